//! The cost engine: prices a whole [`Plan`] on a [`PlatformProfile`], traps
//! included, in exact decimal CNY, as the platform's invoice would.
//!
//! The plan is first laid out in time ([`schedule`]): setup and upload, then
//! each instance's runs (several instances with `parallel`), spread over the
//! scheduled days with the instance stopped, released or left running in the
//! gaps, then any forgotten idle time; storage lives from the first start
//! until it is released (by the student, or by the platform's deadline, which
//! deletes it). Each state bills once, by the profile's rules:
//!
//! - running: the GPU, each start rounded up to the billing unit and the
//!   minimum charge (`minimum-charge-waste`), at peak prices in peak hours;
//! - stopped: the instance's occupancy fee where there is one, or the full GPU
//!   price where stopping does not end billing (矩池云); its disk as storage;
//! - no-GPU mode: setup and uploads where the platform has one;
//! - released: nothing, except persistent storage.
//!
//! Packages cover calendar periods from the moment they are bought, so a
//! plan needs one package per period its GPU time falls in. Spot runs are a
//! renewal process ([`spot`]): the expected hours are billed and the 90th
//! percentile is reported beside them. Every line is rounded to the fen, half
//! up (四舍五入), and totals are the sums of the printed lines. Time to result
//! counts what the student waits for: queues (per Slurm job on a campus
//! cluster), startups, walltime requeues and session restarts, weekly quota
//! resets, and the gaps of the schedule.

// Operators on `Decimal` and counters are allowed in the cost engine, on one
// proven bound rather than a checked call at each of its ~140 operations:
// `quote` runs only after `Plan::check` and profile validation have bounded
// every input (hours per run, stop, setup or idle <= 87,600; run and stop
// counts <= 87,600; parallel <= 64; prices <= 10,000 CNY/h; money <= 1e7
// CNY; storage <= 1e6 GB; days <= 3,650; preemptions <= 1,000 a day), and a
// check before the layout refuses runs past ten years on all instances. The
// largest product the engine forms (GB x days x price per GB-day) stays
// below 1e12, seventeen orders of magnitude under `Decimal::MAX` (7.9e28);
// every divisor is a constant, a count of at least one, or guarded with
// `max(ONE)`/`checked_div`. `tests/tests/hostile.rs` draws whole plans with
// every field at these edges through the engine; a total past 1e7 CNY or
// ten years is an error naming the fields.
#![allow(
    clippy::arithmetic_side_effects,
    reason = "inputs bounded by Plan::check and profile validation; see the bound above"
)]

mod schedule;
pub mod spot;

use std::collections::BTreeMap;

use chrono::{Datelike, Days, NaiveDate};
use rust_decimal::prelude::{FromPrimitive, ToPrimitive};
use rust_decimal::{Decimal, RoundingStrategy};
use serde::Serialize;

use crate::catalog::GpuCatalog;
use crate::correction::{Calibration, Corrections};
use crate::error::InputError;
use crate::estimate;
use crate::message::Message;
use crate::pipeline::RunParts;
use crate::plan::{Between, Disk, Payment, Plan, MAX_CNY, MAX_HOURS};
use crate::platform::{Granularity, PackagePeriod, PlatformKind, PlatformProfile};
use crate::zoo::ModelZoo;

/// Bill categories, in display order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub enum Category {
    /// GPU hours actually used (main runs, debugging, peak surcharges, packages).
    GpuCompute,
    /// Instance disks and persistent storage.
    Storage,
    /// Fees of stopped instances and idle running time.
    StoppedIdle,
    /// Data transfer in and out.
    Traffic,
    /// Environment setup and uploads (no-GPU mode where offered).
    SetupNoGpu,
    /// Work redone after spot preemptions.
    PreemptionReruns,
    /// Billed but unused time from billing units and minimum charges.
    MinimumChargeWaste,
    /// Free credit applied (negative).
    Credit,
    /// The student's own time at the given rate.
    OwnTime,
}

impl Category {
    /// Every category, in display order.
    pub const ALL: [Self; 9] = [
        Self::GpuCompute,
        Self::Storage,
        Self::StoppedIdle,
        Self::Traffic,
        Self::SetupNoGpu,
        Self::PreemptionReruns,
        Self::MinimumChargeWaste,
        Self::Credit,
        Self::OwnTime,
    ];
}

/// What a bill line is for; its text is the catalog's `bill.line.<kind>`
/// with the line's parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub enum LineKind {
    /// The main runs.
    Runs,
    /// Runs falling in peak hours: the surcharge above the base price.
    PeakSurcharge,
    /// Debugging on a cheap card.
    Debug,
    /// The debug start rounded up to the billing unit.
    DebugWaste,
    /// Billing units and minimum charges of the runs.
    Waste,
    /// Prepaid packages instead of pay-as-you-go.
    Package,
    /// Environment setup.
    Setup,
    /// Dataset upload.
    Upload,
    /// Traffic in.
    Traffic,
    /// Traffic out (downloads of results).
    Egress,
    /// A stopped instance's occupancy fee.
    Stopped,
    /// Stops that keep billing the GPU.
    StoppedBilling,
    /// The instance left running between scheduled runs.
    IdleBetween,
    /// Idle running after the last run.
    Forgotten,
    /// Work redone after preemptions.
    Reruns,
    /// The instance disk above its free amount.
    Storage,
    /// Persistent storage above its free amount.
    PersistentStorage,
    /// Free credit.
    Credit,
    /// The student's own time.
    OwnTime,
}

impl LineKind {
    /// Every kind.
    pub const ALL: [Self; 19] = [
        Self::Runs,
        Self::PeakSurcharge,
        Self::Debug,
        Self::DebugWaste,
        Self::Waste,
        Self::Package,
        Self::Setup,
        Self::Upload,
        Self::Traffic,
        Self::Egress,
        Self::Stopped,
        Self::StoppedBilling,
        Self::IdleBetween,
        Self::Forgotten,
        Self::Reruns,
        Self::Storage,
        Self::PersistentStorage,
        Self::Credit,
        Self::OwnTime,
    ];

    /// The category a line of this kind belongs to.
    pub fn category(self) -> Category {
        match self {
            Self::Runs | Self::PeakSurcharge | Self::Debug | Self::Package => Category::GpuCompute,
            Self::DebugWaste | Self::Waste => Category::MinimumChargeWaste,
            Self::Setup | Self::Upload => Category::SetupNoGpu,
            Self::Traffic | Self::Egress => Category::Traffic,
            Self::Stopped | Self::StoppedBilling | Self::IdleBetween | Self::Forgotten => {
                Category::StoppedIdle
            }
            Self::Reruns => Category::PreemptionReruns,
            Self::Storage | Self::PersistentStorage => Category::Storage,
            Self::Credit => Category::Credit,
            Self::OwnTime => Category::OwnTime,
        }
    }
}

/// A bill line's parameters: a few named values, kept as a small list (a
/// quote of a hundred runs builds a hundred lines) and written as a map.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Params(pub Vec<(&'static str, String)>);

impl Params {
    /// The parameters as (name, value) pairs.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, &str)> {
        self.0.iter().map(|(k, v)| (*k, v.as_str()))
    }

    /// The value of one parameter.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.iter().find(|(k, _)| *k == name).map(|(_, v)| v)
    }
}

impl Serialize for Params {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

/// One line of the bill.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct LineItem {
    /// Category.
    pub category: Category,
    /// What the line is for (the text is `bill.line.<kind>`).
    pub kind: LineKind,
    /// Values for the text's placeholders (names are the catalog's).
    #[cfg_attr(feature = "ts", ts(type = "{ [key in string]: string }"))]
    pub params: Params,
    /// Hours behind it, when it is time-based.
    #[cfg_attr(feature = "ts", ts(type = "string | null"))]
    pub hours: Option<Decimal>,
    /// CNY, rounded to the fen.
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub amount: Decimal,
}

/// A trap the plan walks into.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub enum Warning {
    /// A stopped instance (and its disk) is released after the deadline.
    DataWiped {
        /// Longest time the instance sits stopped, days.
        #[cfg_attr(feature = "ts", ts(type = "string"))]
        idle_days: Decimal,
        /// The platform's deadline.
        deadline_days: u32,
    },
    /// A scratch directory is wiped after a stop.
    ScratchWiped {
        /// Which directory.
        path: String,
        /// Hours after a stop.
        after_hours: u32,
    },
    /// A run is longer than the walltime or session cap: it runs in parts.
    RunExceedsCap {
        /// Longest run, hours.
        #[cfg_attr(feature = "ts", ts(type = "string"))]
        run_hours: Decimal,
        /// The cap, hours.
        #[cfg_attr(feature = "ts", ts(type = "string"))]
        cap_hours: Decimal,
        /// Parts (jobs or sessions) the longest run needs.
        parts: u32,
    },
    /// The weekly quota is used up: the plan waits for resets.
    QuotaExhausted {
        /// GPU hours in the plan.
        #[cfg_attr(feature = "ts", ts(type = "string"))]
        hours: Decimal,
        /// Hours the quota allows per week.
        #[cfg_attr(feature = "ts", ts(type = "string"))]
        quota_hours: Decimal,
        /// Weeks the plan needs.
        weeks: u32,
    },
    /// Packages covering the same schedule would cost less than pay-as-you-go.
    PackageCheaper {
        /// Which package.
        period: PackagePeriod,
        /// How many the schedule needs.
        count: u32,
        /// Their cost.
        #[cfg_attr(feature = "ts", ts(type = "string"))]
        cost: Decimal,
        /// The pay-as-you-go cost they replace.
        #[cfg_attr(feature = "ts", ts(type = "string"))]
        instead_of: Decimal,
    },
    /// Billing units and minimum charges waste a large share of compute.
    MinimumChargeWaste {
        /// Percent of billed GPU time unused.
        #[cfg_attr(feature = "ts", ts(type = "string"))]
        percent: Decimal,
    },
    /// The total exceeds the budget.
    BudgetExceeded {
        /// Total cash cost.
        #[cfg_attr(feature = "ts", ts(type = "string"))]
        total: Decimal,
        /// The budget.
        #[cfg_attr(feature = "ts", ts(type = "string"))]
        budget: Decimal,
    },
    /// Idle time after forgetting to shut down costs more than the training.
    ForgottenShutdownCostly {
        /// Idle cost.
        #[cfg_attr(feature = "ts", ts(type = "string"))]
        idle: Decimal,
        /// Training compute cost.
        #[cfg_attr(feature = "ts", ts(type = "string"))]
        training: Decimal,
    },
    /// Stopping does not end GPU billing here; only releasing does.
    StopKeepsBilling,
    /// Spot without checkpoints: each preemption restarts the run.
    SpotWithoutCheckpoints,
    /// The prepaid balance runs out before the plan is done.
    BalanceRunsOut {
        /// The balance.
        #[cfg_attr(feature = "ts", ts(type = "string"))]
        balance: Decimal,
        /// What is missing.
        #[cfg_attr(feature = "ts", ts(type = "string"))]
        short: Decimal,
    },
    /// Prices vary by time of day and the plan has no start date to place its runs.
    TimeOfDayPrices {
        /// The peak multiplier.
        #[cfg_attr(feature = "ts", ts(type = "string"))]
        multiplier: Decimal,
    },
    /// Releasing between runs deletes the instance disk the plan keeps its data on.
    ReleasedBetweenRuns,
}

impl Warning {
    /// Every kind, as spelled in JSON and catalog keys (`warning.<kind>`).
    pub const KINDS: [&'static str; 13] = [
        "data-wiped",
        "scratch-wiped",
        "run-exceeds-cap",
        "quota-exhausted",
        "package-cheaper",
        "minimum-charge-waste",
        "budget-exceeded",
        "forgotten-shutdown-costly",
        "stop-keeps-billing",
        "spot-without-checkpoints",
        "balance-runs-out",
        "time-of-day-prices",
        "released-between-runs",
    ];

    /// This warning's kind (one of [`Warning::KINDS`]).
    pub fn kind(&self) -> &'static str {
        match self {
            Self::DataWiped { .. } => "data-wiped",
            Self::ScratchWiped { .. } => "scratch-wiped",
            Self::RunExceedsCap { .. } => "run-exceeds-cap",
            Self::QuotaExhausted { .. } => "quota-exhausted",
            Self::PackageCheaper { .. } => "package-cheaper",
            Self::MinimumChargeWaste { .. } => "minimum-charge-waste",
            Self::BudgetExceeded { .. } => "budget-exceeded",
            Self::ForgottenShutdownCostly { .. } => "forgotten-shutdown-costly",
            Self::StopKeepsBilling => "stop-keeps-billing",
            Self::SpotWithoutCheckpoints => "spot-without-checkpoints",
            Self::BalanceRunsOut { .. } => "balance-runs-out",
            Self::TimeOfDayPrices { .. } => "time-of-day-prices",
            Self::ReleasedBetweenRuns => "released-between-runs",
        }
    }

    /// Whether the warning is about money the student does not have: these
    /// come first wherever warnings are listed.
    pub fn is_about_budget(&self) -> bool {
        matches!(
            self,
            Self::BudgetExceeded { .. } | Self::BalanceRunsOut { .. }
        )
    }

    /// The warning as a catalog message: `warning.<kind>` with its fields as
    /// parameters (a package period as its `enum.package-period.*` key).
    pub fn message(&self) -> Message {
        let mut m = Message::new(&format!("warning.{}", self.kind()));
        if let Ok(serde_json::Value::Object(fields)) = serde_json::to_value(self) {
            for (k, v) in fields {
                if k == "kind" {
                    continue;
                }
                let text = match v {
                    serde_json::Value::String(s) if k == "period" => {
                        format!("enum.package-period.{s}")
                    }
                    serde_json::Value::String(s) => s,
                    other => other.to_string(),
                };
                m = m.with(&k, text);
            }
        }
        m
    }
}

/// Cumulative spend at the end of a day.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct DayCost {
    /// Day number, 1-based.
    pub day: u32,
    /// Calendar date when the plan has a start date.
    pub date: Option<NaiveDate>,
    /// Cumulative cash, CNY (own time excluded), to the fen.
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub cumulative: Decimal,
}

/// Where the hours until the last result go.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct TimeToResult {
    /// Queues, instance startups, restarts after walltime or session caps,
    /// and weekly quota resets.
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub waiting: Decimal,
    /// Setup, uploads and debugging.
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub setup: Decimal,
    /// The runs themselves.
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub running: Decimal,
    /// Work redone after spot preemptions (expected).
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub reruns: Decimal,
    /// Scheduled gaps and stops between runs.
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub gaps: Decimal,
    /// Hours from the first start to the last result (the slowest instance).
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub total: Decimal,
}

/// The spread of a spot plan's cost.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct SpotOutlook {
    /// Expected hours redone after preemptions (billed above).
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub expected_rerun_hours: Decimal,
    /// Hours redone in a bad case (90th percentile).
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub p90_rerun_hours: Decimal,
    /// Cash total in that bad case, CNY.
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub p90_cash_total: Decimal,
}

/// Packages a plan buys.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct PackageUse {
    /// Period of each.
    pub period: PackagePeriod,
    /// How many (over every instance).
    pub count: u32,
    /// Day (1-based) each is bought on.
    pub bought_on_days: Vec<u32>,
}

/// The priced plan.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Quote {
    /// Plan name (text).
    pub plan: String,
    /// Platform id.
    pub platform: String,
    /// GPU id.
    pub gpu: String,
    /// Price per GPU-hour of the runs (after discount; the spot price on
    /// spot), a rate to four places.
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub price_per_hour: Decimal,
    /// Bill lines, each rounded to the fen.
    pub lines: Vec<LineItem>,
    /// Sum per category.
    #[cfg_attr(feature = "ts", ts(as = "BTreeMap<Category, String>"))]
    pub by_category: BTreeMap<Category, Decimal>,
    /// Cash total (everything but own time): the sum of the cash lines.
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub cash_total: Decimal,
    /// Total including own time.
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub total: Decimal,
    /// GPU hours of the main runs (one run each, summed over the matrix).
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub run_hours: Decimal,
    /// Hours of the longest single run (what a walltime or hard stop must cover).
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub longest_run_hours: Decimal,
    /// Hours from the first start to the last result.
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub time_to_result_hours: Decimal,
    /// Where those hours go.
    pub time: TimeToResult,
    /// Where one estimated run's seconds go on the platform's host (GPU
    /// compute, input pipeline, evaluation, checkpoints, warm-up); absent
    /// when the plan gives hours.
    pub run_parts: Option<RunParts>,
    /// What measured runs changed in the estimated time, when any were
    /// looked at.
    pub calibration: Option<Calibration>,
    /// The spread of a spot plan's cost.
    pub spot: Option<SpotOutlook>,
    /// Packages bought by a package plan.
    pub packages: Option<PackageUse>,
    /// Day-by-day cumulative spend.
    pub timeline: Vec<DayCost>,
    /// Traps, budget and balance first.
    pub warnings: Vec<Warning>,
}

/// An amount as a bill prints it: rounded to the fen, half up (四舍五入),
/// always with two places ("16.00").
pub fn cny(d: Decimal) -> Decimal {
    let mut x = d.round_dp_with_strategy(2, RoundingStrategy::MidpointAwayFromZero);
    x.rescale(2);
    x
}

/// Hours to two places, half up, for showing.
fn h2(d: Decimal) -> Decimal {
    cny(d)
}

/// Whole seconds of `hours`: billing counts seconds, so 61 minutes written as
/// 1.0167 h is 3660 s, not 3660.12.
pub fn whole_seconds(hours: Decimal) -> Decimal {
    let s = hours * Decimal::from(3600);
    if s.fract().is_zero() {
        s
    } else {
        s.round_dp_with_strategy(0, RoundingStrategy::MidpointAwayFromZero)
    }
}

/// `hours` as a whole number of seconds (at least one), in hours: exact hours
/// such as 2.5 stay as they are.
pub fn to_whole_seconds(hours: Decimal) -> Decimal {
    let s = hours * Decimal::from(3600);
    if s.fract().is_zero() && s >= Decimal::ONE {
        hours
    } else {
        seconds_to_hours(whole_seconds(hours).max(Decimal::ONE))
    }
}

/// Whole seconds as hours, to six places (a hundredth of a second's
/// precision, far below a fen, keeps the arithmetic short).
pub fn seconds_to_hours(seconds: Decimal) -> Decimal {
    (seconds / Decimal::from(3600)).round_dp(6)
}

/// Hours billed for one start of `used` hours: rounded up to the billing unit,
/// then to the minimum charge.
pub fn billed_hours(used: Decimal, granularity: Granularity, minimum_minutes: u32) -> Decimal {
    let seconds = whole_seconds(used);
    let unit = Decimal::from(granularity.minutes()) * Decimal::from(60);
    let rounded = if unit.is_zero() {
        seconds
    } else {
        (seconds / unit).ceil() * unit
    };
    seconds_to_hours(rounded.max(Decimal::from(minimum_minutes) * Decimal::from(60)))
}

fn dec(field: &str, x: f64) -> Result<Decimal, InputError> {
    if !x.is_finite() {
        return Err(InputError::new(
            field,
            format!("{x} is not a number"),
            "a finite number",
        ));
    }
    Decimal::from_f64(x)
        .map(|d| d.round_dp(6))
        .ok_or_else(|| InputError::new(field, format!("{x} is out of range"), "a smaller number"))
}

fn overflow(fields: &str) -> InputError {
    InputError::new(
        fields,
        "the plan's figures are too large to price",
        "hours, runs and prices a student plan can have",
    )
}

/// Hours of one epoch when a run of `hours` covers `epochs`: at least a
/// second and at most a run's ten years, or an error naming `job.epochs`.
pub fn per_epoch_hours(hours: Decimal, epochs: f64) -> Result<Decimal, InputError> {
    let refuse = || {
        InputError::new(
            "job.epochs",
            format!("{hours} hours over {epochs} epochs is not a usable time per epoch"),
            "epochs in (0, 100000] with at least a second per epoch",
        )
    };
    if !(epochs.is_finite() && epochs > 0.0 && epochs <= 100_000.0) {
        return Err(refuse());
    }
    let per = hours
        .checked_div(dec("job.epochs", epochs)?)
        .ok_or_else(refuse)?;
    let second = Decimal::ONE / Decimal::from(3600);
    if per < second || per > Decimal::from(MAX_HOURS) {
        return Err(refuse());
    }
    Ok(per)
}

/// Hours of one run, hours per epoch (if known) and, for an estimated job,
/// where the run's seconds go, for the plan's job on `gpu`.
/// The calibration applied to the estimate, when measured runs were looked at.
type JobHours = (
    Decimal,
    Option<Decimal>,
    Option<RunParts>,
    Option<Calibration>,
);

fn job_hours(
    plan: &Plan,
    gpu: &str,
    host: &crate::pipeline::Host,
    catalog: &GpuCatalog,
    zoo: &ModelZoo,
    corrections: &Corrections,
) -> Result<JobHours, InputError> {
    let epochs = match plan.job.epochs {
        Some(e) if !(e.is_finite() && e > 0.0 && e <= 100_000.0) => {
            return Err(InputError::new(
                "job.epochs",
                format!("{e} is out of range"),
                "a number in (0, 100000]",
            ))
        }
        e => e,
    };
    if let Some(h) = plan.job.hours {
        let per_epoch = match epochs {
            Some(e) => Some(per_epoch_hours(h, e)?),
            None => None,
        };
        return Ok((h, per_epoch, None, None));
    }
    let Some(model) = &plan.job.model else {
        if !plan.runs.is_empty()
            && plan
                .runs
                .iter()
                .all(|r| r.hours.is_some() || r.minutes.is_some())
        {
            return Ok((Decimal::ZERO, None, None, None));
        }
        return Err(InputError::new(
            "job",
            "the plan gives neither job hours nor a model to estimate",
            "job.hours, or job.model with dataset_samples and epochs, or hours on every [[run]]",
        ));
    };
    let entry = zoo.get(model)?;
    let job = plan.job.resolve(entry)?;
    let card = catalog.get(gpu)?;
    let est = estimate::estimate_with(entry, &job, catalog, Some(card), host, corrections);
    // The whole run: steps with the input pipeline, evaluation, checkpoints
    // and warm-up, as the platform's host runs them.
    let run_s = est.target_run.map(|r| r.total_s).ok_or_else(|| {
        InputError::new(
            "job.dataset_samples",
            "an estimated job needs the dataset size to time an epoch",
            "a whole number of samples",
        )
    })?;
    if !(run_s.is_finite() && run_s <= MAX_HOURS as f64 * 3600.0) {
        return Err(InputError::new(
            "job.epochs",
            "one run would take more than ten years",
            "fewer epochs or samples",
        ));
    }
    let hours = dec("job.dataset_samples", run_s / 3600.0)?;
    let n = job.epochs.unwrap_or(1.0).max(1e-6);
    let per_epoch = dec("job.epochs", run_s / 3600.0 / n)?;
    Ok((
        hours.max(Decimal::new(1, 6)),
        Some(per_epoch),
        est.target_run,
        est.calibration,
    ))
}

/// The prices that apply to this plan: the profile's, replaced by the plan's
/// own `[prices]`, after the student discount.
struct Prices {
    gpu: Decimal,
    run: Decimal,
    debug_gpu: Decimal,
    stopped_fee: Decimal,
    storage_gb_day: Decimal,
    free_gb: Decimal,
    persistent_gb_day: Option<Decimal>,
    persistent_free_gb: Decimal,
    egress_per_gb: Decimal,
    granularity: Granularity,
    minimum_minutes: u32,
}

/// The accumulating bill.
struct Bill {
    lines: Vec<LineItem>,
}

impl Bill {
    fn push(
        &mut self,
        kind: LineKind,
        params: Vec<(&'static str, String)>,
        hours: Option<Decimal>,
        amount: Decimal,
    ) {
        if amount.is_zero() && kind != LineKind::Runs {
            return;
        }
        self.lines.push(LineItem {
            category: kind.category(),
            kind,
            params: Params(params),
            hours: hours.map(h2),
            amount: cny(amount),
        });
    }

    fn sum(&self, f: impl Fn(&LineItem) -> bool) -> Decimal {
        self.lines.iter().filter(|l| f(l)).map(|l| l.amount).sum()
    }
}

fn price_of(o: Option<Decimal>, profile: Option<Decimal>) -> Decimal {
    o.or(profile).unwrap_or(Decimal::ZERO)
}

/// Peak hours in `[a, b)` hours after midnight of the start date, whose
/// weekday is `first_weekday` (0 = Monday).
fn peak_hours(
    pk: &crate::platform::PeakPricing,
    first_weekday: u32,
    a: Decimal,
    b: Decimal,
) -> Decimal {
    // F(t): peak hours in [0, t); whole weeks repeat, the rest is at most 7 days.
    let week = Decimal::from(168);
    let per_day = Decimal::from(pk.to_hour - pk.from_hour);
    let days_per_week = if pk.weekends_only { 2 } else { 7 };
    let f = |t: Decimal| -> Decimal {
        let t = t.max(Decimal::ZERO);
        let weeks = (t / week).floor();
        let mut acc = weeks * per_day * Decimal::from(days_per_week);
        let mut rest = t - weeks * week;
        let mut day = 0u32;
        while rest > Decimal::ZERO && day < 7 {
            let wd = (first_weekday + day) % 7;
            if !pk.weekends_only || wd >= 5 {
                let into = rest.min(Decimal::from(24));
                let lo = Decimal::from(pk.from_hour);
                let hi = Decimal::from(pk.to_hour);
                acc += (into.min(hi) - lo).max(Decimal::ZERO);
            }
            rest -= Decimal::from(24);
            day += 1;
        }
        acc
    };
    f(b) - f(a)
}

/// Prices `plan` on `profile`. Ids are checked against `catalog`; a job with a
/// model is timed by the estimator over `zoo`.
pub fn quote(
    plan: &Plan,
    profile: &PlatformProfile,
    catalog: &GpuCatalog,
    zoo: &ModelZoo,
) -> Result<Quote, InputError> {
    quote_with(plan, profile, catalog, zoo, &Corrections::none())
}

/// [`quote`] with an estimated job's time corrected by measured runs
/// ([`crate::correction`]); the quote says what was applied.
pub fn quote_with(
    plan: &Plan,
    profile: &PlatformProfile,
    catalog: &GpuCatalog,
    zoo: &ModelZoo,
    corrections: &Corrections,
) -> Result<Quote, InputError> {
    plan.check()?;
    let offer = profile.offer(&plan.gpu, catalog)?;
    let gpu_id = offer.gpu.clone();
    let o = &plan.prices;
    let discount = if plan.student {
        profile.student.discount.value
    } else {
        Decimal::ONE
    };
    let debug_offer = match &plan.debug {
        Some(d) => Some(profile.offer(&d.gpu, catalog).map_err(|e| InputError {
            field: "debug.gpu".into(),
            ..e
        })?),
        None => None,
    };
    // An instance of several GPUs bills each of them: prices here are per
    // instance-hour.
    let gpus = instance_gpus(plan, offer, profile)?;
    let per_instance = Decimal::from(gpus);
    let instance_name = if gpus > 1 {
        format!("{gpus} x {}", offer.gpu)
    } else {
        offer.gpu.clone()
    };
    let gpu_price =
        o.gpu_per_hour.unwrap_or(offer.price_per_hour.typical) * discount * per_instance;
    let spot_price = match plan.payment {
        Payment::Spot => Some(
            o.spot_per_hour
                .or(offer.spot_per_hour.as_ref().map(|s| s.value))
                .map(|p| p * discount * per_instance)
                .ok_or_else(|| {
                    InputError::new(
                        "payment",
                        format!("{} offers no spot price for {gpu_id}", profile.id),
                        "on-demand, or set prices.spot_per_hour",
                    )
                })?,
        ),
        _ => None,
    };
    let persistent = profile.storage.persistent.as_ref();
    let prices = Prices {
        gpu: gpu_price,
        run: spot_price.unwrap_or(gpu_price),
        debug_gpu: price_of(
            o.debug_gpu_per_hour,
            debug_offer.map(|d| d.price_per_hour.typical),
        ) * discount,
        stopped_fee: o
            .stopped_fee_per_hour
            .unwrap_or(profile.billing.stopped_fee_per_hour.value),
        storage_gb_day: o
            .storage_per_gb_day
            .or(o.storage_per_gb_month.map(|m| m / Decimal::from(30)))
            .unwrap_or(profile.storage.price_per_gb_day.value),
        free_gb: o.free_storage_gb.unwrap_or(profile.storage.free_gb.value),
        persistent_gb_day: o
            .persistent_per_gb_day
            .or(persistent.map(|p| p.price_per_gb_day.value)),
        persistent_free_gb: persistent.map(|p| p.free_gb.value).unwrap_or_default(),
        egress_per_gb: price_of(
            o.egress_per_gb,
            profile.storage.egress_per_gb.as_ref().map(|e| e.value),
        ),
        granularity: o.granularity.unwrap_or(profile.billing.granularity.value),
        minimum_minutes: o
            .minimum_charge_minutes
            .unwrap_or(profile.billing.minimum_charge_minutes.value),
    };
    if let Some(s) = &plan.storage {
        if s.on == Disk::Persistent && prices.persistent_gb_day.is_none() {
            return Err(InputError::new(
                "storage.on",
                format!("{} offers no persistent storage", profile.id),
                "instance, or set prices.persistent_per_gb_day",
            ));
        }
    }
    let package_period = match plan.payment {
        Payment::Package(p) => Some(p),
        _ => None,
    };
    let package_price = |period: PackagePeriod| -> Option<Decimal> {
        o.package_price
            .filter(|_| package_period == Some(period))
            .or(offer
                .packages
                .iter()
                .find(|p| p.period == period)
                .map(|p| p.price))
            .map(|p| p * discount * per_instance)
    };
    if let Some(period) = package_period {
        if package_price(period).is_none() {
            return Err(InputError::new(
                "payment",
                format!(
                    "{} offers no {} package for {gpu_id}",
                    profile.id,
                    period.key()
                ),
                "on-demand, or set prices.package_price",
            ));
        }
    }

    // The runs.
    let (job_hours, per_epoch, run_parts, calibration) = job_hours(
        plan,
        &gpu_id,
        &profile.host_for(offer),
        catalog,
        zoo,
        corrections,
    )?;
    let groups = schedule::groups(plan, job_hours, per_epoch)?;
    // The runs alone, spread over every parallel instance, must end within
    // ten years; checked before laying the plan out in time, whose cost
    // grows with the plan's length.
    let run_hours = groups
        .iter()
        .try_fold(Decimal::ZERO, |sum, g| {
            g.hours
                .checked_mul(Decimal::from(g.count))
                .and_then(|h| sum.checked_add(h))
        })
        .ok_or_else(|| overflow("run"))?;
    if run_hours > Decimal::from(MAX_HOURS) * Decimal::from(plan.parallel) {
        return Err(InputError::new(
            "run",
            format!(
                "the runs add up to {} GPU-hours: {} years on {} instance(s)",
                run_hours.round_dp(0),
                (run_hours / Decimal::from(plan.parallel) / Decimal::from(8760)).round_dp(1),
                plan.parallel
            ),
            "fewer or shorter runs, or more parallel instances",
        ));
    }

    // Spot: the expected hours of each run as a renewal process.
    let spot_spec = plan.spot.clone().unwrap_or_default();
    let checkpoint = if spot_price.is_some() {
        spot_spec
            .checkpoint_every_hours
            .or(match (spot_spec.checkpoint_every_epochs, per_epoch) {
                (Some(e), Some(pe)) => e.checked_mul(pe),
                _ => None,
            })
    } else {
        None
    };
    let lambda = (spot_spec.preemptions_per_day / Decimal::from(24))
        .to_f64()
        .unwrap_or(0.0);
    let restart = (spot_spec.restart_minutes / Decimal::from(60))
        .to_f64()
        .unwrap_or(0.0);
    let walls = groups
        .iter()
        .map(|g| -> Result<(Decimal, spot::Outlook), InputError> {
            if spot_price.is_none() {
                return Ok((g.hours, spot::Outlook::default()));
            }
            let t = g.hours.to_f64().unwrap_or(0.0);
            let out = spot::run(t, checkpoint.and_then(|c| c.to_f64()), lambda, restart)
                .filter(|o| o.mean <= MAX_HOURS as f64)
                .ok_or_else(|| {
                    InputError::new(
                        "spot.preemptions_per_day",
                        format!(
                            "a {} h run at {} preemptions a day would practically never finish",
                            g.hours.round_dp(2),
                            spot_spec.preemptions_per_day
                        ),
                        "checkpoints (spot.checkpoint_every_hours), fewer preemptions or shorter runs",
                    )
                })?;
            let mean = dec("spot", out.mean)?.max(g.hours);
            Ok((mean, out))
        })
        .collect::<Result<Vec<_>, _>>()?;

    let start_hour = Decimal::from(plan.start_hour.unwrap_or(9));
    let upload_hours = match &plan.data {
        Some(d) => d
            .size_gb
            .checked_mul(Decimal::from(8192))
            .and_then(|x| x.checked_div(d.upload_mbps))
            .and_then(|x| {
                // Unpacking the archive on the instance follows the upload.
                let unpack = d.size_gb.checked_mul(unpack_seconds_per_gb())?;
                x.checked_add(unpack)
            })
            .map(|x| (x / Decimal::from(3600)).round_dp(6))
            .ok_or_else(|| overflow("data.size_gb"))?,
        None => Decimal::ZERO,
    };
    let lanes = schedule::lay_out(&schedule::Inputs {
        plan,
        profile,
        groups: &groups,
        walls: &walls.iter().map(|(w, _)| *w).collect::<Vec<_>>(),
        before_runs: plan.setup_hours + upload_hours,
    })?;

    let mut bill = Bill { lines: Vec::new() };
    let mut warnings: Vec<Warning> = Vec::new();

    // Setup and uploads, on every instance: in the no-GPU mode where there is
    // one, free where there is no instance to pay for (a campus login node, a
    // free notebook), else on the GPU.
    let setup_rate = match profile.kind {
        PlatformKind::CampusHpc | PlatformKind::HostedNotebook => Decimal::ZERO,
        _ => profile
            .billing
            .no_gpu_mode_per_hour
            .as_ref()
            .map(|p| p.value)
            .unwrap_or(prices.gpu),
    };
    let p = Decimal::from(plan.parallel);
    bill.push(
        LineKind::Setup,
        vec![
            ("hours", h2(plan.setup_hours).to_string()),
            ("instances", plan.parallel.to_string()),
        ],
        Some(plan.setup_hours * p),
        plan.setup_hours * p * setup_rate,
    );
    bill.push(
        LineKind::Upload,
        vec![
            ("hours", h2(upload_hours).to_string()),
            ("instances", plan.parallel.to_string()),
        ],
        Some(upload_hours * p),
        upload_hours * p * setup_rate,
    );
    if let Some(d) = &plan.data {
        bill.push(
            LineKind::Traffic,
            vec![("gb", (d.size_gb * p).normalize().to_string())],
            None,
            d.size_gb * p * profile.storage.traffic_per_gb.value,
        );
        if let Some(g) = d.download_gb {
            bill.push(
                LineKind::Egress,
                vec![("gb", g.normalize().to_string())],
                None,
                g * prices.egress_per_gb,
            );
        }
    }

    // Debugging on a cheap card first (one start, on the first instance's time).
    let mut debug_hours = Decimal::ZERO;
    if let Some(d) = &plan.debug {
        debug_hours = d.hours;
        let b = billed_hours(d.hours, prices.granularity, prices.minimum_minutes);
        bill.push(
            LineKind::Debug,
            vec![("gpu", d.gpu.clone()), ("hours", h2(d.hours).to_string())],
            Some(d.hours),
            d.hours * prices.debug_gpu,
        );
        bill.push(
            LineKind::DebugWaste,
            vec![],
            Some(b - d.hours),
            (b - d.hours) * prices.debug_gpu,
        );
    }

    // The runs: used hours and billed hours per start.
    // Runs are pure GPU work; starts are the spans the instance is on (runs
    // with idle kept running between them and forgotten idle), each rounded
    // up once to the billing unit and minimum.
    let used: Decimal = groups
        .iter()
        .map(|g| g.hours * Decimal::from(g.count))
        .sum();
    let mut powered = Decimal::ZERO;
    let mut billed = Decimal::ZERO;
    let mut longest = Decimal::ZERO;
    for lane in &lanes {
        for s in &lane.starts {
            powered += *s;
            billed += billed_hours(*s, prices.granularity, prices.minimum_minutes);
        }
    }
    for g in &groups {
        longest = longest.max(g.hours);
    }
    let rerun_hours: Decimal = groups
        .iter()
        .zip(&walls)
        .map(|(g, (w, _))| (*w - g.hours) * Decimal::from(g.count))
        .sum();
    let waste_hours = (billed - powered).max(Decimal::ZERO);
    let idle_gap_hours: Decimal = lanes
        .iter()
        .map(|l| l.gap_hours(Between::KeepRunning))
        .sum();
    let stopped_hours: Decimal = lanes.iter().map(|l| l.gap_hours(Between::Stop)).sum();
    let forgotten_hours = plan.forgotten_shutdown_hours * p;
    let stop_bills_gpu = !profile.billing.stop_ends_gpu_billing.value;

    if let Some(period) = package_period {
        // Packages cover whole periods from purchase: everything the GPU
        // bills in a covered period (runs, reruns, idle, a stop that keeps
        // billing) is paid; the periods the schedule touches are bought.
        let (count, days) = schedule::packages(&lanes, period.hours(), stop_bills_gpu);
        let price = package_price(period).unwrap_or_default();
        bill.push(
            LineKind::Package,
            vec![
                ("count", count.to_string()),
                ("period", format!("enum.package-period.{}", period.key())),
                ("hours", h2(used).to_string()),
            ],
            Some(used),
            price * Decimal::from(count),
        );
        let _ = days;
    } else {
        for g in &groups {
            let hours = g.hours * Decimal::from(g.count);
            bill.push(
                LineKind::Runs,
                vec![
                    ("count", g.count.to_string()),
                    ("name", g.name.clone()),
                    ("hours", h2(g.hours).to_string()),
                    ("gpu", instance_name.clone()),
                ],
                Some(hours),
                hours * prices.run,
            );
        }
        bill.push(
            LineKind::Waste,
            vec![
                ("hours", h2(waste_hours).to_string()),
                ("minimum", prices.minimum_minutes.to_string()),
            ],
            Some(waste_hours),
            waste_hours * prices.run,
        );
        if spot_price.is_some() {
            bill.push(
                LineKind::Reruns,
                vec![
                    (
                        "rate",
                        spot_spec.preemptions_per_day.normalize().to_string(),
                    ),
                    ("hours", h2(rerun_hours).to_string()),
                ],
                Some(rerun_hours),
                rerun_hours * prices.run,
            );
        }
        if idle_gap_hours > Decimal::ZERO {
            bill.push(
                LineKind::IdleBetween,
                vec![("hours", h2(idle_gap_hours).to_string())],
                Some(idle_gap_hours),
                idle_gap_hours * prices.run,
            );
        }
        // Forgotten idle bills at the price the instance was rented at.
        bill.push(
            LineKind::Forgotten,
            vec![("hours", h2(forgotten_hours).to_string())],
            Some(forgotten_hours),
            forgotten_hours * prices.run,
        );
        // Peak hours: a surcharge above the base price, when the plan's
        // start places its runs in hours of the day.
        if let Some(pk) = &profile.billing.peak {
            match plan.start_date {
                Some(date) => {
                    let wd = date.weekday().num_days_from_monday();
                    let mut peak = Decimal::ZERO;
                    for lane in &lanes {
                        for r in &lane.runs {
                            peak += peak_hours(pk, wd, start_hour + r.start, start_hour + r.end);
                        }
                    }
                    bill.push(
                        LineKind::PeakSurcharge,
                        vec![
                            ("hours", h2(peak).to_string()),
                            ("multiplier", pk.multiplier.value.normalize().to_string()),
                        ],
                        Some(peak),
                        peak * prices.run * (pk.multiplier.value - Decimal::ONE),
                    );
                }
                None => warnings.push(Warning::TimeOfDayPrices {
                    multiplier: pk.multiplier.value.normalize(),
                }),
            }
        }
    }

    // Stops: an occupancy fee where stopping ends GPU billing (disks are
    // storage, below); the GPU price where it does not.
    if stopped_hours > Decimal::ZERO {
        let count: usize = lanes.iter().map(|l| l.count_gaps(Between::Stop)).sum();
        if stop_bills_gpu {
            if package_period.is_none() {
                bill.push(
                    LineKind::StoppedBilling,
                    vec![
                        ("count", count.to_string()),
                        ("hours", h2(stopped_hours).to_string()),
                    ],
                    Some(stopped_hours),
                    stopped_hours * prices.gpu,
                );
            }
            warnings.push(Warning::StopKeepsBilling);
        } else {
            bill.push(
                LineKind::Stopped,
                vec![
                    ("count", count.to_string()),
                    ("hours", h2(stopped_hours).to_string()),
                ],
                Some(stopped_hours),
                stopped_hours * prices.stopped_fee,
            );
        }
    }

    // Storage: the instance disk while the instance exists (until released by
    // the student or the platform's deadline), and persistent storage for the
    // days it is kept.
    let minimum_gb = profile
        .storage
        .minimum_gb
        .as_ref()
        .map(|m| m.value)
        .unwrap_or_default();
    let (kept_gb, on) = plan
        .storage
        .as_ref()
        .map(|s| (s.gb, s.on))
        .unwrap_or((Decimal::ZERO, Disk::Instance));
    let instance_gb = if on == Disk::Instance {
        kept_gb
    } else {
        Decimal::ZERO
    }
    .max(minimum_gb);
    let billable_instance_gb = (instance_gb - prices.free_gb).max(Decimal::ZERO);
    let disk_hours: Decimal = lanes
        .iter()
        .map(|l| l.disk_hours(profile.storage.bills_while_stopped.value))
        .sum();
    bill.push(
        LineKind::Storage,
        vec![
            ("gb", h2(billable_instance_gb).normalize().to_string()),
            ("free", prices.free_gb.normalize().to_string()),
            ("days", h2(disk_hours / Decimal::from(24)).to_string()),
        ],
        None,
        billable_instance_gb * disk_hours / Decimal::from(24) * prices.storage_gb_day,
    );
    if on == Disk::Persistent {
        // Kept for the plan's days, or until the last instance's work ends.
        let work_hours = lanes
            .iter()
            .map(|l| l.forgotten.map(|f| f.end).unwrap_or(l.work_end))
            .max()
            .unwrap_or_default();
        let kept_days = plan.storage.as_ref().and_then(|s| s.days);
        let days = kept_days
            .unwrap_or_default()
            .max(work_hours / Decimal::from(24));
        let billable = (kept_gb - prices.persistent_free_gb).max(Decimal::ZERO);
        bill.push(
            LineKind::PersistentStorage,
            vec![
                ("gb", billable.normalize().to_string()),
                ("free", prices.persistent_free_gb.normalize().to_string()),
                ("days", h2(days).to_string()),
            ],
            None,
            billable * days * prices.persistent_gb_day.unwrap_or_default(),
        );
    }

    // Free credit: the platform's student credit and the plan's own.
    let cash_before_credit = bill.sum(|l| l.category != Category::OwnTime);
    let credit_available = if plan.student {
        profile.student.free_credit.value
    } else {
        Decimal::ZERO
    } + plan.credit.unwrap_or_default();
    let credit = cny(credit_available.min(cash_before_credit.max(Decimal::ZERO)));
    bill.push(LineKind::Credit, vec![], None, -credit);
    let cash_total = bill.sum(|l| l.category != Category::OwnTime);

    // Time to result, per instance, the slowest deciding.
    let time = schedule::time_to_result(&schedule::TimeInputs {
        plan,
        profile,
        lanes: &lanes,
        setup_hours: plan.setup_hours + upload_hours,
        debug_hours,
        gpu_hours: used + rerun_hours + debug_hours,
    })?;
    if time.total > Decimal::from(MAX_HOURS) {
        return Err(InputError::new(
            "run",
            format!(
                "the plan would take {} years to finish",
                (time.total / Decimal::from(8760)).round_dp(1)
            ),
            "fewer or shorter runs, more parallel instances, or another platform",
        ));
    }

    // The student's own time: waiting, setup, uploads, debugging.
    let own_hours = time.waiting + time.setup;
    bill.push(
        LineKind::OwnTime,
        vec![("hours", h2(own_hours).to_string())],
        Some(own_hours),
        own_hours * plan.own_time_per_hour,
    );
    let total = bill.sum(|_| true);
    // Credit can bring a total under the limit while a line stays above it:
    // every printed figure is held to the limit, not just the sum.
    let line_over = bill
        .lines
        .iter()
        .any(|l| l.amount.abs() > Decimal::from(MAX_CNY));
    if line_over || cash_total > Decimal::from(MAX_CNY) || total > Decimal::from(MAX_CNY) {
        // Name the fields behind the largest line: that is what to change.
        let largest = bill
            .lines
            .iter()
            .max_by(|a, b| a.amount.abs().cmp(&b.amount.abs()))
            .map(|l| l.kind)
            .unwrap_or(LineKind::Runs);
        return Err(InputError::new(
            fields_of(largest),
            format!(
                "the plan would cost {} CNY, more than any student plan (at most {MAX_CNY} on any line or in total)",
                bill.lines.iter().map(|l| l.amount.abs()).max().unwrap_or(Decimal::ZERO).max(total).max(cash_total).round_dp(0)
            ),
            "fewer or shorter runs, lower prices or less storage",
        ));
    }
    let mut by_category = BTreeMap::new();
    for l in &bill.lines {
        *by_category.entry(l.category).or_insert(Decimal::ZERO) += l.amount;
    }

    // Warnings.
    let training = bill.sum(|l| l.kind == LineKind::Runs);
    let idle = bill.sum(|l| l.kind == LineKind::Forgotten);
    if idle > training && idle > Decimal::ZERO {
        warnings.push(Warning::ForgottenShutdownCostly { idle, training });
    }
    if billed > Decimal::ZERO && package_period.is_none() {
        let pct = waste_hours / billed * Decimal::from(100);
        if pct >= Decimal::from(10) {
            warnings.push(Warning::MinimumChargeWaste {
                percent: pct.round_dp(1),
            });
        }
    }
    let cap = profile
        .quota
        .walltime_max_hours
        .as_ref()
        .or(profile.quota.session_max_hours.as_ref())
        .map(|c| c.value);
    if let Some(cap) = cap.filter(|c| *c > Decimal::ZERO) {
        if longest > cap {
            let parts = (longest / cap).ceil().to_u32().unwrap_or(u32::MAX);
            warnings.push(Warning::RunExceedsCap {
                run_hours: h2(longest),
                cap_hours: cap,
                parts,
            });
        }
    }
    if let Some(weekly) = &profile.quota.weekly_gpu_hours {
        let gpu_hours = used + rerun_hours + debug_hours;
        if weekly.value > Decimal::ZERO && gpu_hours > weekly.value {
            warnings.push(Warning::QuotaExhausted {
                hours: h2(gpu_hours),
                quota_hours: weekly.value,
                weeks: (gpu_hours / weekly.value)
                    .ceil()
                    .to_u32()
                    .unwrap_or(u32::MAX),
            });
        }
    }
    if let Some(deadline) = &profile.lifecycle.release_after_stopped_days {
        let longest_stop = lanes
            .iter()
            .map(|l| l.longest_stop)
            .max()
            .unwrap_or_default();
        // "Stopped 15 days in a row is released": a stop of exactly the
        // deadline already loses the disk.
        if on == Disk::Instance
            && longest_stop > Decimal::ZERO
            && longest_stop >= Decimal::from(deadline.value) * Decimal::from(24)
        {
            warnings.push(Warning::DataWiped {
                idle_days: (longest_stop / Decimal::from(24)).round_dp(1),
                deadline_days: deadline.value,
            });
        }
    }
    if let (Some(hours), Some(path)) = (
        &profile.lifecycle.scratch_wipe_after_stopped_hours,
        &profile.lifecycle.scratch_path,
    ) {
        let longest_stop = lanes
            .iter()
            .map(|l| l.longest_stop)
            .max()
            .unwrap_or_default();
        if longest_stop >= Decimal::from(hours.value) && longest_stop > Decimal::ZERO {
            warnings.push(Warning::ScratchWiped {
                path: path.clone(),
                after_hours: hours.value,
            });
        }
    }
    if plan
        .schedule
        .as_ref()
        .is_some_and(|s| s.between_runs == Between::Release)
        && on == Disk::Instance
        && kept_gb > Decimal::ZERO
    {
        warnings.push(Warning::ReleasedBetweenRuns);
    }
    if spot_price.is_some() && checkpoint.is_none() {
        warnings.push(Warning::SpotWithoutCheckpoints);
    }
    if matches!(plan.payment, Payment::OnDemand) {
        // The pay-as-you-go GPU cost of this schedule against the packages
        // that would cover the same schedule.
        let payg = bill.sum(|l| {
            matches!(
                l.kind,
                LineKind::Runs
                    | LineKind::Waste
                    | LineKind::IdleBetween
                    | LineKind::Forgotten
                    | LineKind::StoppedBilling
                    | LineKind::PeakSurcharge
            )
        });
        for pk in &offer.packages {
            let (count, _) = schedule::packages(&lanes, pk.period.hours(), stop_bills_gpu);
            let cost = cny(pk.price * discount * per_instance * Decimal::from(count));
            if cost < payg {
                warnings.push(Warning::PackageCheaper {
                    period: pk.period,
                    count,
                    cost,
                    instead_of: payg,
                });
            }
        }
    }
    if let Some(balance) = plan.balance {
        if cash_total > balance {
            warnings.push(Warning::BalanceRunsOut {
                balance: cny(balance),
                short: cash_total - cny(balance),
            });
        }
    }
    if let Some(budget) = plan.budget {
        if cash_total > budget {
            warnings.push(Warning::BudgetExceeded {
                total: cash_total,
                budget: cny(budget),
            });
        }
    }
    // Money the student does not have comes first.
    warnings.sort_by_key(|w| !w.is_about_budget());

    // Spot: the bad case beside the expectation.
    let spot = match spot_price {
        Some(sp) => {
            let total: spot::Outlook = groups
                .iter()
                .zip(&walls)
                .map(|(g, (_, o))| o.times(f64::from(g.count)))
                .fold(spot::Outlook::default(), |a, b| a + b);
            let p90_hours = dec("spot", total.p90())?;
            let expected = dec("spot", total.mean)?;
            let extra = (p90_hours - expected).max(Decimal::ZERO);
            Some(SpotOutlook {
                expected_rerun_hours: h2(rerun_hours),
                p90_rerun_hours: h2(rerun_hours + extra),
                p90_cash_total: cash_total + cny(extra * sp),
            })
        }
        None => None,
    };
    let packages = package_period.map(|period| {
        let (count, days) = schedule::packages(&lanes, period.hours(), stop_bills_gpu);
        PackageUse {
            period,
            count,
            bought_on_days: days,
        }
    });
    let timeline = schedule::timeline(plan, &bill.lines, &lanes, cash_total, credit);
    Ok(Quote {
        plan: plan.name.clone(),
        platform: profile.id.clone(),
        gpu: gpu_id,
        price_per_hour: prices.run.round_dp(4),
        lines: bill.lines,
        by_category,
        cash_total,
        total,
        run_hours: used.round_dp(4),
        longest_run_hours: longest.round_dp(4),
        time_to_result_hours: h2(time.total),
        time,
        run_parts,
        calibration,
        spot,
        packages,
        timeline,
        warnings,
    })
}

/// GPUs in one instance of the plan (its job's `gpus`, default 1), within
/// what the offer provides.
fn instance_gpus(
    plan: &Plan,
    offer: &crate::platform::Offer,
    profile: &PlatformProfile,
) -> Result<u32, InputError> {
    // The job's own limits, worded as the job's fields are everywhere.
    let gpus = match plan.job.gpus {
        None => 1,
        Some(g) => crate::job::whole_gpus(g).map_err(|e| InputError {
            field: "job.gpus".into(),
            ..e
        })?,
    };
    let max = offer.max_gpus(profile.kind);
    if gpus > max {
        return Err(InputError::new(
            "job.gpus",
            format!(
                "{} gives at most {max} x {} to one instance",
                profile.id, offer.gpu
            ),
            format!("at most {max}"),
        ));
    }
    Ok(gpus)
}

/// Seconds to unpack one GB of dataset archive on the instance.
fn unpack_seconds_per_gb() -> Decimal {
    Decimal::from_f64(1e9 / crate::calibration::UNPACK_BYTES_PER_S)
        .unwrap_or(Decimal::ZERO)
        .round_dp(3)
}

/// The plan fields behind a bill line, for errors that ask the user to
/// change them.
fn fields_of(kind: LineKind) -> &'static str {
    match kind {
        LineKind::Runs | LineKind::PeakSurcharge | LineKind::Waste | LineKind::Package => {
            "run.count, job.hours, prices.gpu_per_hour"
        }
        LineKind::Debug | LineKind::DebugWaste => "debug.hours",
        LineKind::Setup => "setup_hours",
        LineKind::Upload | LineKind::Traffic => "data.size_gb",
        LineKind::Egress => "data.download_gb",
        LineKind::Stopped | LineKind::StoppedBilling => "stops",
        LineKind::IdleBetween => "schedule",
        LineKind::Forgotten => "forgotten_shutdown_hours",
        LineKind::Reruns => "spot",
        LineKind::Storage | LineKind::PersistentStorage => "storage.gb, storage.days",
        LineKind::Credit => "credit",
        LineKind::OwnTime => "own_time_per_hour",
    }
}

/// The day `hours` after the plan's start falls on (1-based).
fn day_of(hours: Decimal) -> u32 {
    (hours / Decimal::from(24))
        .floor()
        .to_u32()
        .unwrap_or(u32::MAX)
        .saturating_add(1)
}

fn date_of(plan: &Plan, day: u32) -> Option<NaiveDate> {
    plan.start_date
        .and_then(|d| d.checked_add_days(Days::new(u64::from(day.saturating_sub(1)))))
}

#[cfg(test)]
mod tests;
