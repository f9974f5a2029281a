//! A rental plan: the experiments to run, where, and the circumstances that
//! decide the bill (stops, storage, uploads, spot, discounts, forgetting to
//! shut down). Written by students as TOML (`examples/*.toml`, format in
//! `docs/plans.md`) or built by the app; priced by [`crate::quote`].

use chrono::NaiveDate;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use crate::error::DataError;
use crate::job::{JobRequest, Mode, Optimizer, Precision};
use crate::platform::{Granularity, PackagePeriod};

/// How compute is paid for.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Payment {
    /// Pay as you go at the on-demand price.
    #[default]
    OnDemand,
    /// Interruptible / spot price, with reruns after preemption.
    Spot,
    /// A prepaid package of the given period.
    Package(PackagePeriod),
}

/// The training job behind the runs: either hours given directly, or a model
/// the estimator times on the plan's GPU.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlanJob {
    /// Hours of one run, when known from experience.
    #[serde(default)]
    pub hours: Option<Decimal>,
    /// Zoo model id, to estimate the hours instead.
    #[serde(default)]
    pub model: Option<String>,
    /// Samples per step.
    #[serde(default)]
    pub batch: Option<f64>,
    /// Image side (vision).
    #[serde(default)]
    pub resolution: Option<f64>,
    /// Tokens per sequence (transformers).
    #[serde(default)]
    pub seq_len: Option<f64>,
    /// Output classes.
    #[serde(default)]
    pub classes: Option<f64>,
    /// Precision.
    #[serde(default)]
    pub precision: Option<Precision>,
    /// Optimizer.
    #[serde(default)]
    pub optimizer: Option<Optimizer>,
    /// Mode.
    #[serde(default)]
    pub mode: Option<Mode>,
    /// LoRA rank.
    #[serde(default)]
    pub lora_rank: Option<f64>,
    /// Gradient checkpointing.
    #[serde(default)]
    pub grad_checkpointing: Option<bool>,
    /// Samples per epoch.
    #[serde(default)]
    pub dataset_samples: Option<f64>,
    /// Epochs of one run.
    #[serde(default)]
    pub epochs: Option<f64>,
}

impl PlanJob {
    /// The estimator's view of the job.
    pub fn request(&self) -> JobRequest {
        JobRequest {
            batch: self.batch,
            resolution: self.resolution,
            seq_len: self.seq_len,
            classes: self.classes,
            precision: self.precision,
            optimizer: self.optimizer,
            mode: self.mode,
            lora_rank: self.lora_rank,
            lora_targets: None,
            grad_checkpointing: self.grad_checkpointing,
            dataset_samples: self.dataset_samples,
            epochs: self.epochs,
        }
    }
}

/// A group of identical runs in the experiment matrix.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunGroup {
    /// What the runs are (e.g. "lr sweep").
    pub name: String,
    /// How many runs.
    #[serde(default = "one")]
    pub count: u32,
    /// Hours of each run; defaults to the job's hours.
    #[serde(default)]
    pub hours: Option<Decimal>,
    /// Epochs of each run, scaling the job's time per epoch.
    #[serde(default)]
    pub epochs: Option<Decimal>,
}

fn one() -> u32 {
    1
}

/// Debugging on a cheap card before the main runs (seed 000 §6.4).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DebugPhase {
    /// Catalog id of the cheap card, on the same platform.
    pub gpu: String,
    /// Hours spent debugging.
    pub hours: Decimal,
}

/// The dataset to upload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DataSpec {
    /// Compressed size, GB.
    pub size_gb: Decimal,
    /// Upload speed, Mbit/s.
    #[serde(default = "default_mbps")]
    pub upload_mbps: Decimal,
}

fn default_mbps() -> Decimal {
    Decimal::from(20)
}

/// Persistent storage kept for the plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StorageSpec {
    /// GB kept (dataset, checkpoints, environment).
    pub gb: Decimal,
    /// Days it is kept.
    pub days: Decimal,
}

/// Stopping the instance between sessions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Stops {
    /// How many times it is stopped and started again.
    pub count: u32,
    /// Hours each stop lasts.
    pub hours_each: Decimal,
}

/// Spot instances (seed 000 §4.4).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpotSpec {
    /// Hours between checkpoints (the scripts issue's resume template uses the same).
    #[serde(default)]
    pub checkpoint_every_hours: Option<Decimal>,
    /// Or epochs between checkpoints (converted with the time per epoch).
    #[serde(default)]
    pub checkpoint_every_epochs: Option<Decimal>,
    /// Expected preemptions per day of running.
    #[serde(default = "default_preemptions")]
    pub preemptions_per_day: Decimal,
    /// Minutes lost restarting after each preemption.
    #[serde(default = "default_restart")]
    pub restart_minutes: Decimal,
}

fn default_preemptions() -> Decimal {
    Decimal::from(2)
}

fn default_restart() -> Decimal {
    Decimal::from(5)
}

/// Prices that replace the profile's for this plan (the seed cases pin theirs).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PriceOverrides {
    /// CNY per GPU-hour on demand.
    #[serde(default)]
    pub gpu_per_hour: Option<Decimal>,
    /// CNY per GPU-hour on the debug card.
    #[serde(default)]
    pub debug_gpu_per_hour: Option<Decimal>,
    /// CNY per GPU-hour on spot.
    #[serde(default)]
    pub spot_per_hour: Option<Decimal>,
    /// CNY per hour while stopped.
    #[serde(default)]
    pub stopped_fee_per_hour: Option<Decimal>,
    /// CNY per GB-day of storage.
    #[serde(default)]
    pub storage_per_gb_day: Option<Decimal>,
    /// CNY per GB-month of storage (converted at 30 days).
    #[serde(default)]
    pub storage_per_gb_month: Option<Decimal>,
    /// Free storage GB.
    #[serde(default)]
    pub free_storage_gb: Option<Decimal>,
    /// Minimum billed minutes per start.
    #[serde(default)]
    pub minimum_charge_minutes: Option<u32>,
    /// Billing granularity.
    #[serde(default)]
    pub granularity: Option<Granularity>,
    /// Price of a package of the chosen period.
    #[serde(default)]
    pub package_price: Option<Decimal>,
}

/// A whole plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Plan {
    /// What the plan is for (shown as text, never interpreted).
    pub name: String,
    /// Platform id.
    pub platform: String,
    /// Catalog id of the main card.
    pub gpu: String,
    /// Budget in CNY.
    #[serde(default)]
    pub budget: Option<Decimal>,
    /// First day, for the timeline's dates.
    #[serde(default)]
    pub start_date: Option<NaiveDate>,
    /// Student certification done.
    #[serde(default)]
    pub student: bool,
    /// How compute is paid for.
    #[serde(default)]
    pub payment: Payment,
    /// The student's own time in CNY per hour (0 = not counted).
    #[serde(default)]
    pub own_time_per_hour: Decimal,
    /// Hours the instance runs idle after the last run before someone notices.
    #[serde(default)]
    pub forgotten_shutdown_hours: Decimal,
    /// Hours setting up the environment on the first start.
    #[serde(default = "default_setup")]
    pub setup_hours: Decimal,
    /// The job.
    #[serde(default)]
    pub job: PlanJob,
    /// The experiment matrix; one run of the job when empty.
    #[serde(default, rename = "run")]
    pub runs: Vec<RunGroup>,
    /// Debugging on a cheap card first.
    #[serde(default)]
    pub debug: Option<DebugPhase>,
    /// Dataset upload.
    #[serde(default)]
    pub data: Option<DataSpec>,
    /// Storage kept.
    #[serde(default)]
    pub storage: Option<StorageSpec>,
    /// Stops between sessions.
    #[serde(default)]
    pub stops: Option<Stops>,
    /// Spot settings (with `payment = "spot"`).
    #[serde(default)]
    pub spot: Option<SpotSpec>,
    /// Price overrides.
    #[serde(default)]
    pub prices: PriceOverrides,
}

fn default_setup() -> Decimal {
    Decimal::new(25, 2)
}

/// Largest number of hours, runs or days a plan may name: ten years of
/// continuous running, far beyond any student plan.
pub const MAX_HOURS: i64 = 87_600;

impl Plan {
    /// Parses a plan file; errors name the file, line and field.
    pub fn from_toml(file: &str, text: &str) -> Result<Self, DataError> {
        let plan: Plan = toml::from_str(text).map_err(|e| DataError::from_toml(file, text, &e))?;
        plan.validate()
            .map_err(|(table, key, msg)| DataError::invalid(file, text, table, key, msg))?;
        Ok(plan)
    }

    /// Range checks: (table, key, message) of the first problem.
    pub fn validate(&self) -> Result<(), (&'static str, &'static str, String)> {
        let max = Decimal::from(MAX_HOURS);
        let check = |table: &'static str, key: &'static str, v: Decimal, positive: bool| {
            if v < Decimal::ZERO || (positive && v.is_zero()) || v > max {
                Err((
                    table,
                    key,
                    format!(
                        "{v} is outside {}0..={max}",
                        if positive { "(" } else { "" }
                    ),
                ))
            } else {
                Ok(())
            }
        };
        if self.name.chars().count() > 200 {
            return Err(("", "name", "longer than 200 characters".into()));
        }
        if let Some(b) = self.budget {
            check("", "budget", b, false)?;
        }
        check("", "own_time_per_hour", self.own_time_per_hour, false)?;
        check(
            "",
            "forgotten_shutdown_hours",
            self.forgotten_shutdown_hours,
            false,
        )?;
        check("", "setup_hours", self.setup_hours, false)?;
        if let Some(h) = self.job.hours {
            check("job", "hours", h, true)?;
        }
        for r in &self.runs {
            if r.count == 0 || i64::from(r.count) > MAX_HOURS {
                return Err((
                    "run",
                    "count",
                    format!("{} is outside 1..={MAX_HOURS}", r.count),
                ));
            }
            if let Some(h) = r.hours {
                check("run", "hours", h, true)?;
            }
            if let Some(e) = r.epochs {
                check("run", "epochs", e, true)?;
            }
        }
        if let Some(d) = &self.debug {
            check("debug", "hours", d.hours, false)?;
        }
        if let Some(d) = &self.data {
            check("data", "size_gb", d.size_gb, false)?;
            check("data", "upload_mbps", d.upload_mbps, true)?;
        }
        if let Some(s) = &self.storage {
            check("storage", "gb", s.gb, false)?;
            check("storage", "days", s.days, false)?;
        }
        if let Some(s) = &self.stops {
            check("stops", "hours_each", s.hours_each, false)?;
            if i64::from(s.count) > MAX_HOURS {
                return Err((
                    "stops",
                    "count",
                    format!("{} is outside 0..={MAX_HOURS}", s.count),
                ));
            }
        }
        if let Some(s) = &self.spot {
            if let Some(h) = s.checkpoint_every_hours {
                check("spot", "checkpoint_every_hours", h, true)?;
            }
            if let Some(e) = s.checkpoint_every_epochs {
                check("spot", "checkpoint_every_epochs", e, true)?;
            }
            check("spot", "preemptions_per_day", s.preemptions_per_day, false)?;
            check("spot", "restart_minutes", s.restart_minutes, false)?;
        }
        let p = &self.prices;
        for (key, v) in [
            ("gpu_per_hour", p.gpu_per_hour),
            ("debug_gpu_per_hour", p.debug_gpu_per_hour),
            ("spot_per_hour", p.spot_per_hour),
            ("stopped_fee_per_hour", p.stopped_fee_per_hour),
            ("storage_per_gb_day", p.storage_per_gb_day),
            ("storage_per_gb_month", p.storage_per_gb_month),
            ("free_storage_gb", p.free_storage_gb),
            ("package_price", p.package_price),
        ] {
            if let Some(v) = v {
                check("prices", key, v, false)?;
            }
        }
        Ok(())
    }
}
