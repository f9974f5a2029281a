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
}

impl RunGap {
    /// Every cause, in the order a ledger lists them.
    pub const ALL: [Self; 9] = [
        Self::FailedRun,
        Self::DifferentCard,
        Self::InputBound,
        Self::InputBoundEstimated,
        Self::SlowerThanEstimated,
        Self::SlowerCpuUnknown,
        Self::FasterThanEstimated,
        Self::MoreMemory,
        Self::DifferentBatch,
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
    let (planned, measured) = o.hours;
    if planned > 0.0 && o.succeeded {
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
        }
    }

    #[test]
    fn each_cause_is_named_when_its_measure_is_off() {
        // (change to a run on plan, causes expected, why)
        type Change = fn(&mut Observed);
        let cases: [(Change, &[RunGap], &str); 11] = [
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
        ];
        for (change, want, why) in cases {
            let mut o = on_plan();
            change(&mut o);
            assert_eq!(gaps(&o), want, "{why}");
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
