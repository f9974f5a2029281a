//! Why a measured run differed from its plan: the causes a student reads on
//! the ledger, decided from what was planned and what the run's report
//! measured. Pure: the caller hands both sides; the thresholds are in
//! [`crate::calibration`] with their reasons.

use serde::{Deserialize, Serialize};

use crate::calibration::{
    VERSUS_BOTH_OFF, VERSUS_CPU_BOUND_PERCENT, VERSUS_FASTER, VERSUS_MORE_MEMORY, VERSUS_SLOWER,
};

/// One cause of a gap between a run and its plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub enum RunGap {
    /// The run exited with an error.
    FailedRun,
    /// It ran on another card than the plan's.
    DifferentCard,
    /// Slow because the data loader could not keep up (the CPUs measured
    /// nearly full).
    InputBound,
    /// Slow on a job the estimate found held back by data loading, the
    /// report measuring no CPU use to confirm it.
    InputBoundEstimated,
    /// Slower than the estimate with the CPUs measured calm.
    SlowerThanEstimated,
    /// Slower than the estimate; the report measured no CPU use, so the
    /// cause is not known.
    SlowerCpuUnknown,
    /// Faster than the estimate.
    FasterThanEstimated,
    /// A higher memory peak than estimated.
    MoreMemory,
    /// Memory and step time off together: another batch or sequence length.
    DifferentBatch,
    /// The run's progress stops at an epoch before the plan's last (early
    /// stopping, a smoke test) or starts past its first (a piece resumed
    /// without its run id): its time is not the plan's, so it is not
    /// compared.
    StoppedShort,
}

impl RunGap {
    /// Every cause, in the order a ledger lists them.
    pub const ALL: [Self; 10] = [
        Self::FailedRun,
        Self::DifferentCard,
        Self::InputBound,
        Self::InputBoundEstimated,
        Self::SlowerThanEstimated,
        Self::SlowerCpuUnknown,
        Self::FasterThanEstimated,
        Self::MoreMemory,
        Self::DifferentBatch,
        Self::StoppedShort,
    ];

    /// The catalog key's last part (`ledger.gap.<key>`).
    pub const fn key(self) -> &'static str {
        match self {
            Self::FailedRun => "failed-run",
            Self::DifferentCard => "different-card",
            Self::InputBound => "input-bound",
            Self::InputBoundEstimated => "input-bound-estimated",
            Self::SlowerThanEstimated => "slower-than-estimated",
            Self::SlowerCpuUnknown => "slower-cpu-unknown",
            Self::FasterThanEstimated => "faster-than-estimated",
            Self::MoreMemory => "more-memory",
            Self::DifferentBatch => "different-batch",
            Self::StoppedShort => "stopped-short",
        }
    }
}

/// What was planned and what was measured, as far as each is known.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Observed {
    /// The run exited 0.
    pub succeeded: bool,
    /// It ran on the plan's card.
    pub same_card: bool,
    /// Planned and measured hours of the run.
    pub hours: (f64, f64),
    /// Planned and measured peak memory, GiB.
    pub peak_gib: (Option<f64>, Option<f64>),
    /// Planned and measured seconds per step.
    pub step_seconds: (Option<f64>, Option<f64>),
    /// The estimate says the data loader, not the GPU, sets the pace.
    pub input_bound: bool,
    /// The CPU share the report measured, percent.
    pub cpu_percent: Option<u32>,
    /// The run stopped before the plan's last epoch ([`stopped_short`]).
    pub stopped_short: bool,
}

/// Whether a run whose progress lines name epochs `first` to `last` is a
/// piece of a plan of `epochs` epochs, not all of it: it stopped before the
/// plan's last epoch, or it started past its first (resumed mid-way without
/// its run id). Loops count epochs from 0 or from 1, so only what is short
/// either way counts: `Epoch 3` of a 4-epoch plan may be its last (0..3),
/// `Epoch 1` is not; a first `Epoch 1` may be the first, `Epoch 2` is not.
pub fn stopped_short(first: Option<u64>, last: Option<u64>, epochs: Option<f64>) -> bool {
    let ends_early = match (last, epochs) {
        (Some(k), Some(e)) if e.is_finite() => (k as f64) + 1.0 < e.ceil(),
        _ => false,
    };
    ends_early || first.is_some_and(|k| k > 1)
}

/// The causes of the gap between a run and its plan; none for a run on plan.
pub fn gaps(o: &Observed) -> Vec<RunGap> {
    let mut gaps = Vec::new();
    if !o.succeeded {
        gaps.push(RunGap::FailedRun);
    }
    if !o.same_card {
        gaps.push(RunGap::DifferentCard);
    }
    if o.stopped_short {
        gaps.push(RunGap::StoppedShort);
    }
    // Time is compared for a whole run of the plan on its card: a shorter
    // run or another card's speed is not the estimate's error.
    let (planned, measured) = o.hours;
    if planned > 0.0 && o.succeeded && o.same_card && !o.stopped_short {
        let ratio = measured / planned;
        if ratio > VERSUS_SLOWER {
            // Each cause says only what the report measured: "the CPUs
            // were nearly full" needs a CPU figure that says so.
            gaps.push(match o.cpu_percent {
                Some(c) if c >= VERSUS_CPU_BOUND_PERCENT => RunGap::InputBound,
                Some(_) => RunGap::SlowerThanEstimated,
                None if o.input_bound => RunGap::InputBoundEstimated,
                None => RunGap::SlowerCpuUnknown,
            });
        } else if ratio < VERSUS_FASTER {
            gaps.push(RunGap::FasterThanEstimated);
        }
    }
    if let (Some(p), Some(m)) = o.peak_gib {
        if p > 0.0 && m / p > VERSUS_MORE_MEMORY {
            gaps.push(RunGap::MoreMemory);
        }
    }
    // A different batch or sequence length moves memory and the time per
    // step together, the same way; a slower card or a starved data loader
    // moves only the time. When both are off by a quarter or more in the
    // same direction, that is the likelier explanation, and it replaces the
    // speed and memory ones.
    if o.succeeded {
        if let (Some(mem), Some(step)) = (off(o.peak_gib), off(o.step_seconds)) {
            if mem == step {
                gaps.retain(|g| {
                    !matches!(
                        g,
                        RunGap::SlowerThanEstimated
                            | RunGap::FasterThanEstimated
                            | RunGap::MoreMemory
                    )
                });
                gaps.push(RunGap::DifferentBatch);
            }
        }
    }
    gaps
}

/// Whether a measure is well above (true) or well below (false) its plan;
/// none when it is near the plan or either side is unknown.
fn off((planned, measured): (Option<f64>, Option<f64>)) -> Option<bool> {
    match (planned, measured) {
        (Some(p), Some(m)) if p > 0.0 && m > 0.0 => {
            let r = m / p;
            if r >= VERSUS_BOTH_OFF {
                Some(true)
            } else if r <= VERSUS_FASTER {
                Some(false)
            } else {
                None
            }
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn on_plan() -> Observed {
        Observed {
            succeeded: true,
            same_card: true,
            hours: (2.0, 2.1),
            peak_gib: (Some(10.0), Some(10.3)),
            step_seconds: (Some(0.5), Some(0.52)),
            input_bound: false,
            cpu_percent: Some(30),
            stopped_short: false,
        }
    }

    #[test]
    fn each_cause_is_named_when_its_measure_is_off() {
        // (change to a run on plan, causes expected, why)
        type Change = fn(&mut Observed);
        let cases: [(Change, &[RunGap], &str); 13] = [
            (|_| {}, &[], "a run on plan names no cause"),
            (
                |o| o.succeeded = false,
                &[RunGap::FailedRun],
                "a failed run says so",
            ),
            (
                |o| o.same_card = false,
                &[RunGap::DifferentCard],
                "another card",
            ),
            (
                |o| o.hours.1 = 3.0,
                &[RunGap::SlowerThanEstimated],
                "50% slow with a calm CPU and the same step memory",
            ),
            (
                |o| {
                    o.hours.1 = 3.0;
                    o.cpu_percent = Some(95);
                },
                &[RunGap::InputBound],
                "slow with the CPU flat out: the loader",
            ),
            (
                |o| {
                    o.hours.1 = 3.0;
                    o.input_bound = true;
                },
                &[RunGap::SlowerThanEstimated],
                "an input-bound estimate but the CPUs measured calm: not the loader",
            ),
            (
                |o| {
                    o.hours.1 = 3.0;
                    o.input_bound = true;
                    o.cpu_percent = None;
                },
                &[RunGap::InputBoundEstimated],
                "no CPU figure: the estimate's own finding, not a measured one",
            ),
            (
                |o| {
                    o.hours.1 = 3.0;
                    o.cpu_percent = None;
                },
                &[RunGap::SlowerCpuUnknown],
                "no CPU figure and a GPU-bound estimate: cause unknown",
            ),
            (
                |o| o.hours.1 = 1.0,
                &[RunGap::FasterThanEstimated],
                "twice as fast",
            ),
            (
                |o| o.peak_gib.1 = Some(12.0),
                &[RunGap::MoreMemory],
                "20% more memory",
            ),
            (
                |o| {
                    o.hours.1 = 3.0;
                    o.peak_gib.1 = Some(14.0);
                    o.step_seconds.1 = Some(0.8);
                },
                &[RunGap::DifferentBatch],
                "memory and step time both up: another batch, not three causes",
            ),
            (
                |o| {
                    o.hours.1 = 0.5;
                    o.stopped_short = true;
                },
                &[RunGap::StoppedShort],
                "a run stopped at an early epoch is short, not fast: no budget advice",
            ),
            (
                |o| {
                    o.hours.1 = 1.0;
                    o.same_card = false;
                },
                &[RunGap::DifferentCard],
                "another card's speed is not the estimate's error: not 'faster'",
            ),
        ];
        for (change, want, why) in cases {
            let mut o = on_plan();
            change(&mut o);
            assert_eq!(gaps(&o), want, "{why}");
        }
    }

    #[test]
    fn a_run_stopped_before_the_plans_last_epoch_is_short_counting_from_0_or_1() {
        // (last epoch printed, plan's epochs, short, why)
        let cases = [
            (Some(1), Some(4.0), true, "a one-epoch smoke test of four"),
            (
                Some(3),
                Some(4.0),
                false,
                "0-based: epoch 3 is the fourth and last",
            ),
            (Some(4), Some(4.0), false, "1-based: epoch 4 is the last"),
            (Some(30), Some(50.0), true, "early stopping at 30 of 50"),
            (
                Some(9),
                Some(2.5),
                false,
                "past the plan's epochs (2.5 runs into a third)",
            ),
            (
                None,
                Some(4.0),
                false,
                "no epoch printed (steps): nothing to say",
            ),
            (
                Some(1),
                None,
                false,
                "a plan by hours: no epochs to compare",
            ),
        ];
        for (last, epochs, want, why) in cases {
            assert_eq!(stopped_short(None, last, epochs), want, "{why}");
        }
        // (first epoch printed, short, why)
        let starts = [
            (Some(0), false, "0-based: the first epoch"),
            (Some(1), false, "1-based: the first epoch"),
            (
                Some(26),
                true,
                "resumed at epoch 26 without its run id: a piece",
            ),
        ];
        for (first, want, why) in starts {
            assert_eq!(stopped_short(first, Some(50), Some(50.0)), want, "{why}");
        }
    }

    #[test]
    fn keys_are_the_serialised_names() {
        for g in RunGap::ALL {
            assert_eq!(
                serde_json::to_value(g).expect("serialises"),
                serde_json::Value::String(g.key().to_owned()),
                "{g:?}: the key the catalog uses is what crosses IPC"
            );
        }
    }
}
