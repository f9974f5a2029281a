//! Spot (preemptible) runs as a renewal process.
//!
//! Preemptions arrive as a Poisson process at rate `λ` per hour of running.
//! A segment of `t` hours between checkpoints finishes only in an attempt that
//! runs `t` hours uninterrupted (probability `p = e^{-λt}`); every failed
//! attempt loses the time it ran (an exponential variable cut at `t`) plus a
//! restart overhead `r`. The number of failed attempts `K` is geometric, so
//!
//! - E[time] = t + E[K]·E[loss] = (1/λ + r)(e^{λt} − 1), the classic result
//!   (a 24 h run at 3 preemptions a day takes about 6.5× its length), and
//! - Var[time] = E[K]·Var[loss] + Var[K]·E[loss]², which gives the spread.
//!
//! With checkpoints every `c` hours a run is a chain of independent segments
//! of `c` hours (the last one shorter); means and variances add. The 90th
//! percentile of a plan's total is taken from the normal approximation
//! `mean + 1.2816·sd`, which is what a student budgeting for a bad week needs
//! without a simulation.

// Operators allowed on the bound stated in `quote/mod.rs`: every input is
// validated before the cost engine runs.
#![allow(
    clippy::arithmetic_side_effects,
    reason = "inputs bounded by Plan::check and profile validation; see quote/mod.rs"
)]

/// The z-score of the 90th percentile of a normal distribution.
pub const Z90: f64 = 1.281_551_565_5;

/// Mean and variance of the wall hours a piece of work takes.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Outlook {
    /// Expected hours.
    pub mean: f64,
    /// Variance, hours².
    pub var: f64,
}

impl std::ops::Add for Outlook {
    type Output = Outlook;
    fn add(self, o: Outlook) -> Outlook {
        Outlook {
            mean: self.mean + o.mean,
            var: self.var + o.var,
        }
    }
}

impl Outlook {
    /// `n` independent copies.
    pub fn times(self, n: f64) -> Outlook {
        Outlook {
            mean: self.mean * n,
            var: self.var * n,
        }
    }

    /// The 90th percentile (never below the mean).
    pub fn p90(self) -> f64 {
        self.mean + Z90 * self.var.max(0.0).sqrt()
    }
}

/// One segment of `t` hours at `lambda` preemptions per hour with `r` hours
/// lost restarting after each. `None` when the expectation is astronomically
/// large (the work would practically never finish).
pub fn segment(t: f64, lambda: f64, r: f64) -> Option<Outlook> {
    if !(t.is_finite() && lambda.is_finite() && r.is_finite()) || t < 0.0 || lambda < 0.0 || r < 0.0
    {
        return None;
    }
    if t == 0.0 {
        return Some(Outlook::default());
    }
    if lambda == 0.0 {
        return Some(Outlook { mean: t, var: 0.0 });
    }
    let x = lambda * t;
    if x > 200.0 {
        return None;
    }
    // E[K] = e^{x} − 1 and Var[K] = (e^{x} − 1)·e^{x}, with expm1 for small x.
    let ek = x.exp_m1();
    let var_k = ek * x.exp();
    // The loss of a failed attempt: L ~ Exp(λ) conditioned on L < t, plus r.
    let q = -(-x).exp_m1(); // 1 − e^{−x}
    let p = 1.0 - q;
    let inv = 1.0 / lambda;
    let mean_l = inv - t * p / q;
    let second_l = (2.0 * inv * inv - p * (t * t + 2.0 * t * inv + 2.0 * inv * inv)) / q;
    let var_l = (second_l - mean_l * mean_l).max(0.0);
    let mean_y = mean_l + r;
    let out = Outlook {
        mean: t + ek * mean_y,
        var: ek * var_l + var_k * mean_y * mean_y,
    };
    (out.mean.is_finite() && out.var.is_finite()).then_some(out)
}

/// A run of `t` hours checkpointed every `c` hours (`None`: never, so every
/// preemption restarts the run).
pub fn run(t: f64, checkpoint: Option<f64>, lambda: f64, r: f64) -> Option<Outlook> {
    match checkpoint.filter(|c| c.is_finite() && *c > 0.0 && *c < t) {
        None => segment(t, lambda, r),
        Some(c) => {
            let full = (t / c).floor();
            // Floating error can leave a rest a hair below zero.
            let rest = (t - full * c).max(0.0);
            Some(segment(c, lambda, r)?.times(full) + segment(rest, lambda, r)?)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_expectation_is_the_renewal_formula() {
        // (t, λ per hour, r hours, why)
        let cases = [
            (
                24.0,
                3.0 / 24.0,
                5.0 / 60.0,
                "a day-long run at 3 preemptions a day",
            ),
            (6.0, 2.0 / 24.0, 5.0 / 60.0, "six hours at two a day"),
            (0.5, 1.0, 0.0, "short work at a high rate, free restarts"),
        ];
        for (t, l, r, why) in cases {
            let got = segment(t, l, r).expect("finite").mean;
            let want = (1.0 / l + r) * ((l * t).exp() - 1.0);
            assert!((got - want).abs() < 1e-9 * want, "{why}: {got} vs {want}");
        }
        let day = segment(24.0, 3.0 / 24.0, 5.0 / 60.0).expect("finite").mean;
        assert!(
            (6.0..7.0).contains(&(day / 24.0)),
            "the issue's example: about 6.5 times the on-demand hours, got {}",
            day / 24.0
        );
    }

    #[test]
    fn the_variance_matches_a_simulation() {
        // A small deterministic simulation (linear congruential generator)
        // of the same process checks the closed-form mean and variance.
        let (t, l, r) = (3.0_f64, 0.4_f64, 0.25_f64);
        let mut seed: u64 = 12345;
        let mut uniform = || {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            ((seed >> 11) as f64 + 0.5) / (1u64 << 53) as f64
        };
        let n = 200_000;
        let (mut sum, mut sum2) = (0.0, 0.0);
        for _ in 0..n {
            let mut time = 0.0;
            loop {
                let gap = -uniform().ln() / l;
                if gap >= t {
                    time += t;
                    break;
                }
                time += gap + r;
            }
            sum += time;
            sum2 += time * time;
        }
        let mean = sum / n as f64;
        let var = sum2 / n as f64 - mean * mean;
        let o = segment(t, l, r).expect("finite");
        assert!(
            (o.mean - mean).abs() / mean < 0.01,
            "mean {} vs simulated {mean}",
            o.mean
        );
        assert!(
            (o.var - var).abs() / var < 0.03,
            "variance {} vs simulated {var}",
            o.var
        );
    }

    #[test]
    fn checkpoints_make_spot_cheaper_and_zero_rate_is_free() {
        let l = 2.0 / 24.0;
        let none = run(24.0, None, l, 0.1).expect("finite").mean;
        let every4 = run(24.0, Some(4.0), l, 0.1).expect("finite").mean;
        let every1 = run(24.0, Some(1.0), l, 0.1).expect("finite").mean;
        assert!(
            every1 < every4 && every4 < none,
            "more checkpoints, less lost: {every1} < {every4} < {none}"
        );
        assert_eq!(
            run(24.0, None, 0.0, 0.1).map(|o| o.mean),
            Some(24.0),
            "no preemptions, no loss"
        );
        assert!(
            segment(1000.0, 1.0, 0.0).is_none(),
            "a run that practically never finishes is reported, not overflowed"
        );
    }
}
