//! What the planning use cases take: the requests of the kit's scripts and
//! of a pack export, and their limits. The use cases, one file each, are
//! `info`, `estimating`, `recommending`, `quoting`, `kit` and `pack_export`:
//! what the app's six steps and the CLI's `estimate`, `recommend`, `quote`,
//! `script` and `pack export` do, once for both shells.

use gpuplan_core::plan::Plan;
use rust_decimal::prelude::ToPrimitive;
use rust_decimal::Decimal;

use crate::{defaults, AppError, Result};

/// The keys of the kit's scripts (`before.scripts.<key>` in the catalog).
pub const SCRIPT_KEYS: [&str; 11] = [
    "shutdown",
    "slurm",
    "slurm-requeue",
    "probe",
    "offline",
    "resume",
    "report",
    "launch",
    "accelerate",
    "deepspeed",
    "slurm-multigpu",
];

/// Options the app's options screen lists.
pub const APP_OPTIONS: usize = gpuplan_core::recommend::SHORTLIST;
/// Largest accepted custom `config.json`, bytes.
pub const MAX_CONFIG_BYTES: u64 = 1_000_000;

/// A custom transformer's `config.json`, read by the shell.
pub struct CustomConfig<'a> {
    /// Where it came from (for messages and the report's model id).
    pub name: &'a str,
    /// Its text.
    pub text: &'a str,
}

/// What `gpuplan script shutdown` asks for.
pub struct ShutdownRequest<'a> {
    /// Platform id.
    pub platform: &'a str,
    /// Job name (default [`defaults::JOB_NAME`]).
    pub job_name: Option<&'a str>,
    /// The training command.
    pub command: &'a str,
    /// A hard maximum in hours; else from the plan, else the default.
    pub max_hours: Option<f64>,
    /// A plan whose longest run sets the maximum.
    pub plan: Option<&'a Plan>,
    /// Vast.ai: destroy instead of stop.
    pub destroy: bool,
}

/// What `gpuplan script slurm` asks for; `None` takes the defaults.
#[derive(Default)]
pub struct SlurmRequest<'a> {
    /// Job name.
    pub job_name: &'a str,
    /// Partition.
    pub partition: Option<&'a str>,
    /// GPUs.
    pub gpus: Option<u32>,
    /// CPU cores.
    pub cpus: Option<u32>,
    /// Memory, GB.
    pub mem_gb: Option<u32>,
    /// Hours of the run, or
    pub hours: Option<f64>,
    /// a plan whose longest run sets them.
    pub plan: Option<&'a Plan>,
    /// The cluster's walltime cap (default: the campus profile's).
    pub cap_hours: Option<f64>,
    /// Log path.
    pub output: Option<&'a str>,
    /// `conda:ENV` / `module:NAME` lines.
    pub activate: Vec<String>,
    /// The training command.
    pub command: &'a str,
    /// Requeue variant.
    pub requeue: bool,
}

/// What `gpuplan pack export` asks for.
pub struct PackExport<'a> {
    /// Course name.
    pub name: &'a str,
    /// Instructor.
    pub instructor: &'a str,
    /// Platform ids to include (with the exporter's overrides applied).
    pub platforms: &'a [String],
    /// Plans whose jobs become presets.
    pub presets: Vec<Plan>,
    /// Budget cap per student, CNY (decimal text).
    pub budget_cap: Option<&'a str>,
    /// The class's measured runs, anonymised, from the files students
    /// handed in (`gpuplan ledger runs --export`).
    pub measured_runs: Vec<gpuplan_core::correction::MeasuredRun>,
}

/// The shortest limit a script may set: one minute. Slurm counts walltime
/// in minutes, and a watchdog that stops training after a few seconds is a
/// unit slip (minutes typed as hours), not a plan.
const SHORTEST_SCRIPT_HOURS: f64 = 1.0 / 60.0;

/// Hours given to a script, at most sixty days: a limit (`--max-hours`,
/// `--cap-hours`: `limit`) of at least a minute; a run's estimated hours
/// (`--hours`, to which the walltime adds its margin) of anything above 0.
pub(crate) fn hours_arg(field: &str, h: Option<f64>, limit: bool) -> Result<Option<f64>> {
    let allowed = || {
        if limit {
            gpuplan_core::Message::new("allowed.fromAMinute").with("max", 1440)
        } else {
            gpuplan_core::Message::new("allowed.above")
                .with("min", 0)
                .with("max", 1440)
        }
    };
    match h {
        Some(v) if limit && v.is_finite() && v > 0.0 && v < SHORTEST_SCRIPT_HOURS => {
            Err(AppError::input(
                field,
                format!("{v} h is shorter than a minute"),
                "hours, at least one minute (0.017)",
            )
            .said(
                gpuplan_core::Message::new("error.underAMinute").with("value", v),
                Some(allowed()),
            ))
        }
        Some(v) if !(v.is_finite() && v > 0.0 && v <= 24.0 * 60.0) => {
            Err(
                AppError::input(field, format!("{v} is out of range"), "hours in (0, 1440]").said(
                    gpuplan_core::Message::new("error.outOfRange").with("value", v),
                    Some(allowed()),
                ),
            )
        }
        v => Ok(v),
    }
}

/// The checkpoint interval a plan's resumable template uses: the spot
/// interval the quote assumed, else the default. The template counts whole
/// epochs, so a fractional interval is refused rather than silently changed
/// (the quote would then assume a different interval than the script runs).
pub(crate) fn checkpoint_every(plan: Option<&Plan>) -> Result<u32> {
    match plan
        .and_then(|p| p.spot.as_ref())
        .and_then(|s| s.checkpoint_every_epochs)
    {
        None => Ok(defaults::CHECKPOINT_EVERY_EPOCHS),
        Some(e) => {
            if e.fract() != Decimal::ZERO {
                return Err(AppError::input(
                    "spot.checkpoint_every_epochs",
                    format!("{e} is not a whole number of epochs"),
                    "a whole number of epochs for the resumable template",
                )
                .said(
                    gpuplan_core::Message::new("error.notWhole").with("value", e),
                    Some(
                        gpuplan_core::Message::new("allowed.whole")
                            .with("min", 1)
                            .with("max", 1000),
                    ),
                ));
            }
            e.to_u32().ok_or_else(|| {
                AppError::input(
                    "spot.checkpoint_every_epochs",
                    format!("{e} is out of range"),
                    "1 to 1000 epochs",
                )
                .said(
                    gpuplan_core::Message::new("error.outOfRange").with("value", e),
                    Some(
                        gpuplan_core::Message::new("allowed.whole")
                            .with("min", 1)
                            .with("max", 1000),
                    ),
                )
            })
        }
    }
}
