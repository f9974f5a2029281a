//! A rental plan: the experiments to run, where, and the circumstances that
//! decide the bill (stops, storage, uploads, spot, discounts, forgetting to
//! shut down). Written by students as TOML (`examples/*.toml`, format in
//! `docs/plans.md`) or built by the app; priced by [`crate::quote`].

use chrono::NaiveDate;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use crate::error::{DataError, Refusal};
use crate::job::JobSpec;
use crate::message::Message;
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

impl Payment {
    /// Whether the instance is paid for by a day, week or month package.
    pub fn is_package(self) -> bool {
        matches!(self, Self::Package(_))
    }
}

/// The name of a run group nobody named (the one group of a plan that
/// lists none, the runs recommend and the app's defaults make): a catalog
/// key, so the bill says it in the reader's language ("运行" / "run"). A
/// plan file leaves it out, and a group written without a name is this one.
pub const DEFAULT_GROUP: &str = "enum.group.run";

fn default_group() -> String {
    DEFAULT_GROUP.to_owned()
}

/// A group of identical runs in the experiment matrix.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct RunGroup {
    /// What the runs are (e.g. "lr sweep"); [`DEFAULT_GROUP`] when unnamed.
    #[serde(default = "default_group")]
    pub name: String,
    /// How many runs.
    #[serde(default = "one")]
    pub count: u32,
    /// Hours of each run; defaults to the job's hours.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(type = "string | null"))]
    pub hours: Option<Decimal>,
    /// Or minutes of each run (exact where hours would need many decimals).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(type = "string | null"))]
    pub minutes: Option<Decimal>,
    /// Epochs of each run, scaling the job's time per epoch.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(type = "string | null"))]
    pub epochs: Option<Decimal>,
}

fn one() -> u32 {
    1
}

fn is_one(n: &u32) -> bool {
    *n == 1
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
    /// GB downloaded back at the end (results, checkpoints): egress traffic.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(type = "string | null"))]
    pub download_gb: Option<Decimal>,
}

/// Upload speed of a home or campus link, Mbit/s, when a plan names none
/// (a typical campus Wi-Fi or home broadband uplink).
pub const DEFAULT_UPLOAD_MBPS: u32 = 20;

fn default_mbps() -> Decimal {
    Decimal::from(DEFAULT_UPLOAD_MBPS)
}

/// Which disk a plan's data lives on.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub enum Disk {
    /// The instance's own data disk: deleted when the instance is released.
    #[default]
    Instance,
    /// Network or file storage that outlives instances.
    Persistent,
}

/// Storage kept for the plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct StorageSpec {
    /// GB kept (dataset, checkpoints, environment).
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub gb: Decimal,
    /// Days it is kept from the first start; by default until the last run
    /// (and any forgotten idle) ends, when the instance is released.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(type = "string | null"))]
    pub days: Option<Decimal>,
    /// Which disk holds it.
    #[serde(default)]
    pub on: Disk,
}

/// What the instance does between scheduled runs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub enum Between {
    /// Stopped: the GPU stops billing where stopping ends it; disks keep billing.
    #[default]
    Stop,
    /// Released: nothing bills; the instance disk is deleted.
    Release,
    /// Left running: the GPU bills idle.
    KeepRunning,
}

/// When the runs happen: spread evenly over a number of days (sessions),
/// with the instance stopped, released or left running in between.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Schedule {
    /// Calendar days the runs are spread over.
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub days: Decimal,
    /// What the instance does in the gaps.
    #[serde(default)]
    pub between_runs: Between,
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
    /// CNY per GB-day of persistent storage.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(type = "string | null"))]
    pub persistent_per_gb_day: Option<Decimal>,
    /// CNY per GB downloaded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(type = "string | null"))]
    pub egress_per_gb: Option<Decimal>,
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
    /// First day, for the timeline's dates and package periods.
    #[serde(default)]
    pub start_date: Option<NaiveDate>,
    /// Hour of the first start on the first day (0-23; 9 when absent): with a
    /// start date, it places the runs in hours of the day for peak prices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_hour: Option<u32>,
    /// Instances rented at once, each running its share of the runs
    /// (seed 000 §1.2: two single-card instances finish a sweep overnight).
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub parallel: u32,
    /// Free credit (CNY) the student holds on the platform (a coupon, a gift).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(type = "string | null"))]
    pub credit: Option<Decimal>,
    /// Prepaid balance (CNY): the platform stops the instance when it runs out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(type = "string | null"))]
    pub balance: Option<Decimal>,
    /// Student certification done.
    #[serde(default)]
    pub student: bool,
    /// A new account on this platform: its newcomer coupon applies.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub newcomer: bool,
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
    /// Runs spread over days.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule: Option<Schedule>,
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

impl Default for Plan {
    /// An empty plan with every default of the plan file filled in.
    fn default() -> Self {
        Self {
            version: PLAN_VERSION,
            name: String::new(),
            platform: String::new(),
            gpu: String::new(),
            budget: None,
            start_date: None,
            start_hour: None,
            parallel: 1,
            credit: None,
            balance: None,
            student: false,
            newcomer: false,
            payment: Payment::OnDemand,
            own_time_per_hour: Decimal::ZERO,
            forgotten_shutdown_hours: Decimal::ZERO,
            setup_hours: default_setup(),
            job: JobSpec::default(),
            runs: Vec::new(),
            debug: None,
            data: None,
            storage: None,
            stops: None,
            schedule: None,
            spot: None,
            prices: PriceOverrides::default(),
        }
    }
}

impl RunGroup {
    /// `count` runs of the job named `name`, lasting as long as the job.
    pub fn of_job(name: &str, count: u32) -> Self {
        Self {
            name: name.to_owned(),
            count,
            hours: None,
            minutes: None,
            epochs: None,
        }
    }
}

/// The plan file format version this build writes and reads.
pub const PLAN_VERSION: u32 = 1;

fn plan_version() -> u32 {
    PLAN_VERSION
}

// A plan's limits are the core's vocabulary (`crate::limits`), which the
// forms also read; they are named here too, where plan code uses them.
pub use crate::limits::{
    MAX_CNY, MAX_DAYS, MAX_GB, MAX_HOURS, MAX_PARALLEL, MAX_PRICE_PER_HOUR, MAX_RUNS,
};

impl Plan {
    /// A digest of the job (what the estimate and calibration read): the
    /// kit writes it into each run report, so an import tells a run of this
    /// job from one of a plan edited since under the same name.
    pub fn job_digest(&self) -> String {
        // One job however its hours are written (6.5, 6.50, "6.50").
        let job = crate::job::JobSpec {
            hours: self.job.hours.map(|h| h.normalize()),
            ..self.job.clone()
        };
        crate::digest::of_json(&job)
    }

    /// Whether the plan's data lives on persistent storage, which outlives
    /// the instances: a fresh instance is set up again but needs no upload.
    pub fn data_persists(&self) -> bool {
        self.storage
            .as_ref()
            .is_some_and(|s| s.on == Disk::Persistent)
    }

    /// Parses a plan file; errors name the file, line and field.
    pub fn from_toml(file: &str, text: &str) -> Result<Self, DataError> {
        let plan: Plan =
            toml::from_str(text).map_err(|e| with_range(DataError::from_toml(file, text, &e)))?;
        plan.validate()
            .map_err(|r| DataError::refused(file, text, r))?;
        Ok(plan)
    }

    /// Range checks as an input error naming the dotted field (`job.hours`).
    pub fn check(&self) -> Result<(), crate::error::InputError> {
        self.validate().map_err(Refusal::into_input)
    }

    /// Range checks: (table, key, message) of the first problem. Every field
    /// has a range a student's plan can sit in; fields that would contradict
    /// each other are refused together, naming both. One check per part of
    /// the plan, in the order the plan file lists them.
    pub fn validate(&self) -> Check {
        self.check_top()?;
        self.check_runs()?;
        self.check_resources()?;
        self.check_spot()?;
        self.check_prices()
    }

    /// The plan's own fields: version, name, money, hours, start, parallel.
    fn check_top(&self) -> Check {
        if self.version != PLAN_VERSION {
            return Err(Refusal::new(
                "",
                "version",
                format!(
                    "version {} is not one this gpuplan reads (it reads {PLAN_VERSION})",
                    self.version
                ),
                Message::new("error.planVersion")
                    .with("version", self.version)
                    .with("reads", PLAN_VERSION),
            ));
        }
        if self.name.chars().count() > 200 {
            return Err(Refusal::new(
                "",
                "name",
                "longer than 200 characters",
                Message::new("error.tooLong").with("max", 200),
            ));
        }
        for (key, v) in [
            ("budget", self.budget),
            ("credit", self.credit),
            ("balance", self.balance),
        ] {
            if let Some(v) = v {
                money("", key, v)?;
            }
        }
        within(
            "",
            "own_time_per_hour",
            self.own_time_per_hour,
            false,
            MAX_PRICE_PER_HOUR,
        )?;
        hours(
            "",
            "forgotten_shutdown_hours",
            self.forgotten_shutdown_hours,
            false,
        )?;
        hours("", "setup_hours", self.setup_hours, false)?;
        if let Some(d) = self.start_date {
            use chrono::Datelike;
            if !crate::report::YEARS.contains(&d.year()) {
                return Err(Refusal::range(
                    "",
                    "start_date",
                    d,
                    format!("{}-01-01", crate::report::YEARS.start()),
                    format!("{}-12-31", crate::report::YEARS.end()),
                    false,
                ));
            }
        }
        if let Some(h) = self.start_hour {
            if h > 23 {
                return Err(Refusal::range("", "start_hour", h, 0, 23, false));
            }
            // An hour of no day would be silently ignored: peak hours and
            // the calendar need the date.
            if self.start_date.is_none() {
                return Err(Refusal::new(
                    "",
                    "start_hour",
                    "start_hour is an hour of start_date: give the date too, or remove the hour",
                    Message::new("error.hourNeedsDate"),
                ));
            }
        }
        if self.parallel == 0 || self.parallel > MAX_PARALLEL {
            return Err(Refusal::range(
                "",
                "parallel",
                self.parallel,
                1,
                MAX_PARALLEL,
                false,
            ));
        }
        if let Some(h) = self.job.hours {
            hours("job", "hours", h, true)?;
            // With hours written down a model's timing inputs would be
            // silently ignored, and a 90-epoch ImageNet job priced as 1 h.
            // (Without a model, dataset_samples times nothing: the app keeps
            // it beside typed hours, harmlessly.)
            if self.job.model.is_some() && self.job.dataset_samples.is_some() {
                return Err(Refusal::new(
                    "job",
                    "dataset_samples",
                    "job.hours and job.dataset_samples both give how long a run takes: keep one",
                    Message::new("error.hoursAndModel")
                        .with("a", "job.hours")
                        .with("b", "job.dataset_samples"),
                ));
            }
        }
        Ok(())
    }

    /// The run groups: counts, lengths, and the total.
    fn check_runs(&self) -> Check {
        for r in &self.runs {
            if r.count == 0 || r.count > MAX_RUNS {
                return Err(Refusal::range("run", "count", r.count, 1, MAX_RUNS, false));
            }
            // A run's name is printed on its bill line, as the plan's is.
            if r.name.chars().count() > 200 {
                return Err(Refusal::new(
                    "run",
                    "name",
                    "longer than 200 characters",
                    Message::new("error.tooLong").with("max", 200),
                ));
            }
            if r.hours.is_some() && r.minutes.is_some() {
                return Err(Refusal::new(
                    "run",
                    "minutes",
                    "hours and minutes both give the run's length: keep one",
                    Message::new("error.keepOne")
                        .with("a", "hours")
                        .with("b", "minutes"),
                ));
            }
            if let Some(h) = r.hours {
                hours("run", "hours", h, true)?;
            }
            if let Some(m) = r.minutes {
                within("run", "minutes", m, true, MAX_HOURS * 60)?;
            }
            if let Some(e) = r.epochs {
                within("run", "epochs", e, true, 100_000)?;
            }
        }
        let total_runs: u64 = self.runs.iter().map(|r| u64::from(r.count)).sum();
        if total_runs > u64::from(MAX_RUNS) {
            return Err(Refusal::new(
                "run",
                "count",
                format!("{total_runs} runs in all is more than {MAX_RUNS}"),
                Message::new("error.tooManyRuns")
                    .with("runs", total_runs)
                    .with("max", MAX_RUNS),
            ));
        }
        // Each instance rented at once takes its share of the runs: one
        // with none would be set up, loaded with the data and billed its
        // minimum for nothing (parallel = 3 for one run tripled the bill).
        let runs = if self.runs.is_empty() { 1 } else { total_runs };
        if u64::from(self.parallel) > runs {
            return Err(Refusal::new(
                "",
                "parallel",
                format!(
                    "parallel is {}, more than the plan's runs ({runs}): an instance without a run is set up and billed for nothing",
                    self.parallel
                ),
                Message::new("error.parallelOverRuns")
                    .with("parallel", self.parallel)
                    .with("runs", runs),
            ));
        }
        if let Some(d) = &self.debug {
            hours("debug", "hours", d.hours, false)?;
        }
        Ok(())
    }

    /// Data, storage, stops and the schedule.
    fn check_resources(&self) -> Check {
        if let Some(d) = &self.data {
            within("data", "size_gb", d.size_gb, false, MAX_GB)?;
            within("data", "upload_mbps", d.upload_mbps, true, 1_000_000)?;
            if let Some(g) = d.download_gb {
                within("data", "download_gb", g, false, MAX_GB)?;
            }
        }
        if let Some(s) = &self.storage {
            within("storage", "gb", s.gb, false, MAX_GB)?;
            if let Some(d) = s.days {
                within("storage", "days", d, false, MAX_DAYS)?;
            }
        }
        if let Some(s) = &self.stops {
            hours("stops", "hours_each", s.hours_each, false)?;
            if s.count > MAX_RUNS {
                return Err(Refusal::range(
                    "stops", "count", s.count, 0, MAX_RUNS, false,
                ));
            }
            if self.schedule.is_some() {
                return Err(Refusal::new(
                    "stops",
                    "count",
                    "[stops] and [schedule] both say when the instance is stopped: keep one",
                    Message::new("error.keepOne")
                        .with("a", "[stops]")
                        .with("b", "[schedule]"),
                ));
            }
        }
        if let Some(s) = &self.schedule {
            within("schedule", "days", s.days, true, MAX_DAYS)?;
        }
        Ok(())
    }

    /// The spot section: the checkpoint interval (one way), preemptions.
    fn check_spot(&self) -> Check {
        let Some(s) = &self.spot else {
            return Ok(());
        };
        if let Some(h) = s.checkpoint_every_hours {
            hours("spot", "checkpoint_every_hours", h, true)?;
        }
        if let Some(e) = s.checkpoint_every_epochs {
            within("spot", "checkpoint_every_epochs", e, true, 100_000)?;
        }
        if s.checkpoint_every_hours.is_some() && s.checkpoint_every_epochs.is_some() {
            return Err(Refusal::new(
                "spot",
                "checkpoint_every_epochs",
                "checkpoint_every_hours and checkpoint_every_epochs both set the interval: keep one",
                Message::new("error.keepOne")
                    .with("a", "checkpoint_every_hours")
                    .with("b", "checkpoint_every_epochs"),
            ));
        }
        within(
            "spot",
            "preemptions_per_day",
            s.preemptions_per_day,
            false,
            1000,
        )?;
        within(
            "spot",
            "restart_minutes",
            s.restart_minutes,
            false,
            7 * 24 * 60,
        )
    }

    /// The plan's own prices, each within what any platform charges.
    fn check_prices(&self) -> Check {
        let p = &self.prices;
        // Prices per hour and the package's price are billed as written:
        // more places than the bill's rate prints (2.00005 shown as 2)
        // would bill a figure the student never sees.
        let (hourly, fen) = (
            Some(crate::limits::PRICE_PLACES),
            Some(crate::limits::MONEY_PLACES),
        );
        for (key, v, max, places) in [
            ("gpu_per_hour", p.gpu_per_hour, MAX_PRICE_PER_HOUR, hourly),
            (
                "debug_gpu_per_hour",
                p.debug_gpu_per_hour,
                MAX_PRICE_PER_HOUR,
                hourly,
            ),
            ("spot_per_hour", p.spot_per_hour, MAX_PRICE_PER_HOUR, hourly),
            (
                "stopped_fee_per_hour",
                p.stopped_fee_per_hour,
                MAX_PRICE_PER_HOUR,
                hourly,
            ),
            ("storage_per_gb_day", p.storage_per_gb_day, 100, None),
            ("storage_per_gb_month", p.storage_per_gb_month, 3000, None),
            ("persistent_per_gb_day", p.persistent_per_gb_day, 100, None),
            ("egress_per_gb", p.egress_per_gb, 100, None),
            ("free_storage_gb", p.free_storage_gb, MAX_GB, None),
            ("package_price", p.package_price, MAX_CNY, fen),
        ] {
            let Some(v) = v else { continue };
            within("prices", key, v, false, max)?;
            if let Some(places) = places {
                crate::limits::at_most_places("prices", key, v, places)?;
            }
        }
        if let Some(m) = p.minimum_charge_minutes {
            if m > 24 * 60 {
                return Err(Refusal::range(
                    "prices",
                    "minimum_charge_minutes",
                    m,
                    0,
                    1440,
                    false,
                ));
            }
        }
        Ok(())
    }
}

/// The result of one plan check: what it refused, if anything.
type Check = Result<(), Refusal>;

/// `v` from 0 (above 0 when `lo_open`) to `max`.
fn within(table: &'static str, key: &'static str, v: Decimal, lo_open: bool, max: i64) -> Check {
    let max = Decimal::from(max);
    if v < Decimal::ZERO || (lo_open && v.is_zero()) || v > max {
        Err(Refusal::range(table, key, v, 0, max, lo_open))
    } else {
        Ok(())
    }
}

/// Hours within a plan's longest span.
fn hours(table: &'static str, key: &'static str, v: Decimal, lo_open: bool) -> Check {
    within(table, key, v, lo_open, MAX_HOURS)
}

/// An amount of money within a plan's largest, in yuan and fen: a budget
/// of 0.001 would be shown as 0.00 and exceeded by any bill.
fn money(table: &'static str, key: &'static str, v: Decimal) -> Check {
    within(table, key, v, false, MAX_CNY)?;
    crate::limits::at_most_places(table, key, v, crate::limits::MONEY_PLACES)
}

/// A value of the wrong kind (nan, "150元", 1e308) in a plan field with a
/// known range says the range too.
fn with_range(mut e: DataError) -> DataError {
    if e.is_wrong_value() && e.allowed.is_none() {
        let f = e.field.as_str();
        e.allowed = crate::limits::ALL
            .iter()
            .find(|l| l.field == f || f.strip_suffix(l.field).is_some_and(|h| h.ends_with('.')))
            .map(|l| Box::new(l.allowed().1))
            // Fields without a range still say what they take: a date, a
            // price ("¥2.5" is read where typed, not in a file).
            .or_else(|| {
                // The plan's whole numbers ("count = 2.5" said no range).
                let whole = |min: u32, max: u32| {
                    Some(Box::new(
                        Message::new("allowed.whole")
                            .with("min", min)
                            .with("max", max),
                    ))
                };
                match f {
                    "run.count" => return whole(1, MAX_RUNS),
                    "stops.count" => return whole(0, MAX_RUNS),
                    "parallel" => return whole(1, MAX_PARALLEL),
                    "start_hour" => return whole(0, 23),
                    _ => {}
                }
                // Fields that take a word or a whole number, not a price.
                let key = if f == "payment" {
                    "allowed.payment"
                } else if f == "prices.granularity" {
                    "allowed.granularity"
                } else if f == "prices.minimum_charge_minutes" {
                    return Some(Box::new(
                        Message::new("allowed.whole")
                            .with("min", 0)
                            .with("max", 24 * 60),
                    ));
                } else if f.ends_with("_date") {
                    "allowed.dateFormat"
                } else if f.starts_with("prices.")
                    || f.ends_with("_per_hour")
                    || f.ends_with("price")
                {
                    "allowed.number"
                } else {
                    return None;
                };
                Some(Box::new(Message::new(key)))
            });
    }
    e
}
