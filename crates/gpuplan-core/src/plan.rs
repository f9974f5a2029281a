//! A rental plan: the experiments to run, where, and the circumstances that
//! decide the bill (stops, storage, uploads, spot, discounts, forgetting to
//! shut down). Written by students as TOML (`examples/*.toml`, format in
//! `docs/plans.md`) or built by the app; priced by [`crate::quote`].

use chrono::NaiveDate;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use crate::error::DataError;
use crate::job::JobSpec;
use crate::platform::{Granularity, PackagePeriod};

/// How compute is paid for.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub enum Payment {
    /// Pay as you go at the on-demand price.
    #[default]
    OnDemand,
    /// Interruptible / spot price, with reruns after preemption.
    Spot,
    /// A prepaid package of the given period.
    Package(PackagePeriod),
}

/// A group of identical runs in the experiment matrix.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct RunGroup {
    /// What the runs are (e.g. "lr sweep").
    pub name: String,
    /// How many runs.
    #[serde(default = "one")]
    pub count: u32,
    /// Hours of each run; defaults to the job's hours.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(type = "string | null"))]
    pub hours: Option<Decimal>,
    /// Epochs of each run, scaling the job's time per epoch.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(type = "string | null"))]
    pub epochs: Option<Decimal>,
}

fn one() -> u32 {
    1
}

/// Debugging on a cheap card before the main runs (seed 000 §6.4).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct DebugPhase {
    /// Catalog id of the cheap card, on the same platform.
    pub gpu: String,
    /// Hours spent debugging.
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub hours: Decimal,
}

/// The dataset to upload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct DataSpec {
    /// Compressed size, GB.
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub size_gb: Decimal,
    /// Upload speed, Mbit/s.
    #[serde(default = "default_mbps")]
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub upload_mbps: Decimal,
}

fn default_mbps() -> Decimal {
    Decimal::from(20)
}

/// Persistent storage kept for the plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct StorageSpec {
    /// GB kept (dataset, checkpoints, environment).
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub gb: Decimal,
    /// Days it is kept.
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub days: Decimal,
}

/// Stopping the instance between sessions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Stops {
    /// How many times it is stopped and started again.
    pub count: u32,
    /// Hours each stop lasts.
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub hours_each: Decimal,
}

/// Spot instances (seed 000 §4.4).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct SpotSpec {
    /// Hours between checkpoints (the scripts issue's resume template uses the same).
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(type = "string | null"))]
    pub checkpoint_every_hours: Option<Decimal>,
    /// Or epochs between checkpoints (converted with the time per epoch).
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(type = "string | null"))]
    pub checkpoint_every_epochs: Option<Decimal>,
    /// Expected preemptions per day of running.
    #[serde(default = "default_preemptions")]
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub preemptions_per_day: Decimal,
    /// Minutes lost restarting after each preemption.
    #[serde(default = "default_restart")]
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub restart_minutes: Decimal,
}

fn default_preemptions() -> Decimal {
    Decimal::from(DEFAULT_PREEMPTIONS_PER_DAY)
}

fn default_restart() -> Decimal {
    Decimal::from(DEFAULT_RESTART_MINUTES)
}

/// Preemptions per day of running a spot plan assumes when it names none:
/// the marketplaces' interruptible instances are typically reclaimed once or
/// twice a day (seed 000 §4.4 advises planning for interruptions).
pub const DEFAULT_PREEMPTIONS_PER_DAY: u32 = 2;
/// Minutes lost restarting after a preemption when the plan names none: a new
/// instance, the image pulled and the checkpoint loaded.
pub const DEFAULT_RESTART_MINUTES: u32 = 5;

impl Default for SpotSpec {
    fn default() -> Self {
        Self {
            checkpoint_every_hours: None,
            checkpoint_every_epochs: None,
            preemptions_per_day: default_preemptions(),
            restart_minutes: default_restart(),
        }
    }
}

/// Prices that replace the profile's for this plan (the seed cases pin theirs).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct PriceOverrides {
    /// CNY per GPU-hour on demand.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(type = "string | null"))]
    pub gpu_per_hour: Option<Decimal>,
    /// CNY per GPU-hour on the debug card.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(type = "string | null"))]
    pub debug_gpu_per_hour: Option<Decimal>,
    /// CNY per GPU-hour on spot.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(type = "string | null"))]
    pub spot_per_hour: Option<Decimal>,
    /// CNY per hour while stopped.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(type = "string | null"))]
    pub stopped_fee_per_hour: Option<Decimal>,
    /// CNY per GB-day of storage.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(type = "string | null"))]
    pub storage_per_gb_day: Option<Decimal>,
    /// CNY per GB-month of storage (converted at 30 days).
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(type = "string | null"))]
    pub storage_per_gb_month: Option<Decimal>,
    /// Free storage GB.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(type = "string | null"))]
    pub free_storage_gb: Option<Decimal>,
    /// Minimum billed minutes per start.
    #[serde(default)]
    pub minimum_charge_minutes: Option<u32>,
    /// Billing granularity.
    #[serde(default)]
    pub granularity: Option<Granularity>,
    /// Price of a package of the chosen period.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(type = "string | null"))]
    pub package_price: Option<Decimal>,
}

/// A whole plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Plan {
    /// Format version (1). Files without it are version 1; a newer version is
    /// refused rather than misread.
    #[serde(default = "plan_version")]
    pub version: u32,
    /// What the plan is for (shown as text, never interpreted).
    pub name: String,
    /// Platform id.
    pub platform: String,
    /// Catalog id of the main card.
    pub gpu: String,
    /// Budget in CNY.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(type = "string | null"))]
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
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub own_time_per_hour: Decimal,
    /// Hours the instance runs idle after the last run before someone notices.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub forgotten_shutdown_hours: Decimal,
    /// Hours setting up the environment on the first start.
    #[serde(default = "default_setup")]
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub setup_hours: Decimal,
    /// The job.
    #[serde(default)]
    pub job: JobSpec,
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

/// Hours of environment setup a plan assumes on the first start when it names
/// none: pulling an image and installing requirements (seed 000 §3.2's first
/// session). Every shell takes this default from here.
pub fn default_setup() -> Decimal {
    Decimal::new(25, 2)
}

/// The plan file format version this build writes and reads.
pub const PLAN_VERSION: u32 = 1;

fn plan_version() -> u32 {
    PLAN_VERSION
}

/// Largest number of runs a plan (or a recommendation) may ask for.
pub const MAX_RUNS: u32 = 87_600;

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

    /// Range checks as an input error naming the dotted field (`job.hours`).
    pub fn check(&self) -> Result<(), crate::error::InputError> {
        self.validate().map_err(|(t, k, m)| {
            crate::error::InputError::new(
                &if t.is_empty() {
                    k.to_owned()
                } else {
                    format!("{t}.{k}")
                },
                m,
                "see docs/plans.md",
            )
        })
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
        if self.version != PLAN_VERSION {
            return Err((
                "",
                "version",
                format!(
                    "version {} is not one this gpuplan reads (it reads {PLAN_VERSION})",
                    self.version
                ),
            ));
        }
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
            if r.count == 0 || r.count > MAX_RUNS {
                return Err((
                    "run",
                    "count",
                    format!("{} is outside 1..={MAX_RUNS}", r.count),
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
