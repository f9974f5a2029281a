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

mod advice;
mod figures;
mod prices;
mod schedule;
pub use schedule::DEFAULT_GROUP;
pub mod spot;
mod stages;

pub use figures::{Figure, GradedFigure, Unverified, UNVERIFIED_NOTE_PERCENT};

use std::collections::BTreeMap;

use chrono::{Days, NaiveDate};
use rust_decimal::prelude::{FromPrimitive, ToPrimitive};
use rust_decimal::{Decimal, RoundingStrategy};
use serde::Serialize;

use crate::catalog::GpuCatalog;
use crate::correction::{Calibration, Corrections};
use crate::error::InputError;
use crate::estimate;
use crate::message::Message;
use crate::pipeline::RunParts;
use crate::plan::{Plan, MAX_CNY, MAX_HOURS};
use crate::platform::{Granularity, PackagePeriod, PlatformProfile};
use crate::zoo::ModelZoo;

/// Bill categories, in display order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub enum Category {
    /// GPU hours actually used (main runs, debugging, peak surcharges, packages).
    GpuCompute,
    /// The instance running with nothing to do: between runs, and left on
    /// after the last.
    IdleRunning,
    /// Instance disks and persistent storage.
    Storage,
    /// Fees of stopped instances.
    Stopped,
    /// Data transfer in and out.
    Traffic,
    /// Environment setup and bringing the data onto each instance.
    Setup,
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
    pub const ALL: [Self; 10] = [
        Self::GpuCompute,
        Self::IdleRunning,
        Self::Storage,
        Self::Stopped,
        Self::Traffic,
        Self::Setup,
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
    /// Billing-unit rounding of the runs, where there is no minimum charge.
    Rounding,
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
    /// The data disk a deadline keeps past the instance's recycle (优云智算):
    /// all of it, the free space having been the recycled system disk's.
    DataDisk,
    /// Persistent storage above its free amount.
    PersistentStorage,
    /// The platform's free credit for students.
    Credit,
    /// The plan's own coupon or credit.
    Coupon,
    /// The platform's coupon for new accounts.
    NewcomerCredit,
    /// The student's own time.
    OwnTime,
}

impl LineKind {
    /// Every kind.
    pub const ALL: [Self; 23] = [
        Self::Runs,
        Self::PeakSurcharge,
        Self::Debug,
        Self::DebugWaste,
        Self::Waste,
        Self::Rounding,
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
        Self::DataDisk,
        Self::PersistentStorage,
        Self::Credit,
        Self::Coupon,
        Self::NewcomerCredit,
        Self::OwnTime,
    ];

    /// The category a line of this kind belongs to.
    pub fn category(self) -> Category {
        match self {
            Self::Runs | Self::PeakSurcharge | Self::Debug | Self::Package => Category::GpuCompute,
            Self::DebugWaste | Self::Waste | Self::Rounding => Category::MinimumChargeWaste,
            Self::Setup | Self::Upload => Category::Setup,
            Self::Traffic | Self::Egress => Category::Traffic,
            Self::IdleBetween | Self::Forgotten => Category::IdleRunning,
            Self::Stopped | Self::StoppedBilling => Category::Stopped,
            Self::Reruns => Category::PreemptionReruns,
            Self::Storage | Self::DataDisk | Self::PersistentStorage => Category::Storage,
            Self::Credit | Self::Coupon | Self::NewcomerCredit => Category::Credit,
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
    /// The estimated job needs more memory than the card has: the run
    /// would stop at its first step with an out-of-memory error.
    JobDoesNotFit {
        /// Estimated peak per GPU, GiB as nvidia-smi shows it.
        #[cfg_attr(feature = "ts", ts(type = "string"))]
        peak_gib: Decimal,
        /// The card's memory, GiB.
        #[cfg_attr(feature = "ts", ts(type = "string"))]
        card_gib: Decimal,
    },
    /// The card cannot run the job's precision (bf16 before Ampere).
    PrecisionUnsupported {
        /// The precision asked for.
        precision: String,
    },
    /// A stopped instance (and its disk) is released after the deadline.
    DataWiped {
        /// Longest time the instance sits stopped, days.
        #[cfg_attr(feature = "ts", ts(type = "string"))]
        idle_days: Decimal,
        /// The platform's deadline.
        deadline_days: u32,
        /// Fresh instances the plan then needs, its data brought back to each.
        fresh_instances: u32,
    },
    /// A stopped instance is released after the deadline, its data disk
    /// kept (and still billed).
    InstanceReleased {
        /// Longest time the instance sits stopped, days.
        #[cfg_attr(feature = "ts", ts(type = "string"))]
        idle_days: Decimal,
        /// The platform's deadline.
        deadline_days: u32,
        /// Fresh instances the plan then needs, each set up again.
        fresh_instances: u32,
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
    /// A week's quota is used up: the plan waits for the next reset.
    QuotaExhausted {
        /// The first week (from the first start, 1-based) that runs out.
        week: u32,
        /// GPU hours scheduled in that week.
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
    /// The instance sits stopped on a platform whose disk bills while
    /// stopped and gives no free part, but the plan names no disk: none is
    /// priced, though every instance has one.
    DiskUnsized,
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
    /// Releasing between runs deletes the instance disk the plan keeps its
    /// data on: each fresh instance needs it again.
    ReleasedBetweenRuns {
        /// Releases before a run.
        releases: u32,
        /// What bringing the data back costs over them (uploads, traffic).
        #[cfg_attr(feature = "ts", ts(type = "string"))]
        bring_back: Decimal,
    },
    /// Persistent storage would keep the data through the releases: what
    /// it costs for the same span, against bringing the data back.
    PersistentInstead {
        /// Persistent storage for the plan's span.
        #[cfg_attr(feature = "ts", ts(type = "string"))]
        cost: Decimal,
        /// Bringing the data back to each fresh instance.
        #[cfg_attr(feature = "ts", ts(type = "string"))]
        instead_of: Decimal,
    },
    /// The plan gives a start date but no hour: it is taken to start then.
    StartHourAssumed {
        /// The hour assumed.
        hour: u32,
    },
    /// A package plan whose schedule costs less paying as you go.
    PackageDearer {
        /// Which package.
        period: PackagePeriod,
        /// How many it buys.
        count: u32,
        /// What they cost.
        #[cfg_attr(feature = "ts", ts(type = "string"))]
        cost: Decimal,
        /// Paying as you go for the same schedule.
        #[cfg_attr(feature = "ts", ts(type = "string"))]
        instead_of: Decimal,
    },
    /// A package bought for a few hours past the one before.
    ExtraPackage {
        /// Which package.
        period: PackagePeriod,
        /// How many such last packages (one per instance that buys one).
        count: u32,
        /// Hours they cover together.
        #[cfg_attr(feature = "ts", ts(type = "string"))]
        hours: Decimal,
        /// What it costs.
        #[cfg_attr(feature = "ts", ts(type = "string"))]
        cost: Decimal,
        /// Paying as you go for those hours.
        #[cfg_attr(feature = "ts", ts(type = "string"))]
        instead_of: Decimal,
    },
    /// Kept running between runs where stopping costs less.
    StopBetweenRuns {
        /// Hours kept running idle.
        #[cfg_attr(feature = "ts", ts(type = "string"))]
        hours: Decimal,
        /// This plan's cash total.
        #[cfg_attr(feature = "ts", ts(type = "string"))]
        total: Decimal,
        /// The same plan's cash total stopping between runs (each restart
        /// billed from its own first unit and minimum charge).
        #[cfg_attr(feature = "ts", ts(type = "string"))]
        stopped_total: Decimal,
    },
    /// `[storage] days` ends before the work does: the disk is kept until
    /// the work ends, and billed for that.
    StorageDaysShort {
        /// Days the plan keeps storage.
        #[cfg_attr(feature = "ts", ts(type = "string"))]
        days: Decimal,
        /// Days the work spans, billed instead.
        #[cfg_attr(feature = "ts", ts(type = "string"))]
        work_days: Decimal,
    },
    /// The platform charges in another currency: the CNY figures are its
    /// prices at the profile's rate, and the total in that currency.
    ChargedInForeignCurrency {
        /// ISO 4217 code (`USD`).
        currency: String,
        /// CNY per unit the profile converted at.
        #[cfg_attr(feature = "ts", ts(type = "string"))]
        rate: Decimal,
        /// The cash total in that currency, to the cent.
        #[cfg_attr(feature = "ts", ts(type = "string"))]
        total: Decimal,
    },
    /// The plan counts on the newcomer coupon, whose terms do not let it
    /// pay for spot: it is left off the bill.
    NewcomerNotForSpot {
        /// The coupon, CNY.
        #[cfg_attr(feature = "ts", ts(type = "string"))]
        coupon: Decimal,
    },
    /// A schedule whose days cannot hold its runs: they ran back to back.
    ScheduleTooTight {
        /// Days the schedule gives.
        #[cfg_attr(feature = "ts", ts(type = "string"))]
        days: Decimal,
        /// Days the runs need.
        #[cfg_attr(feature = "ts", ts(type = "string"))]
        needed_days: Decimal,
    },
}

impl Warning {
    /// Every kind, as spelled in JSON and catalog keys (`warning.<kind>`).
    pub const KINDS: [&'static str; 26] = [
        "job-does-not-fit",
        "precision-unsupported",
        "data-wiped",
        "instance-released",
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
        "persistent-instead",
        "start-hour-assumed",
        "package-dearer",
        "extra-package",
        "stop-between-runs",
        "schedule-too-tight",
        "storage-days-short",
        "newcomer-not-for-spot",
        "charged-in-foreign-currency",
        "disk-unsized",
    ];

    /// This warning's kind (one of [`Warning::KINDS`]).
    pub fn kind(&self) -> &'static str {
        match self {
            Self::JobDoesNotFit { .. } => "job-does-not-fit",
            Self::PrecisionUnsupported { .. } => "precision-unsupported",
            Self::DataWiped { .. } => "data-wiped",
            Self::InstanceReleased { .. } => "instance-released",
            Self::ScratchWiped { .. } => "scratch-wiped",
            Self::RunExceedsCap { .. } => "run-exceeds-cap",
            Self::QuotaExhausted { .. } => "quota-exhausted",
            Self::PackageCheaper { .. } => "package-cheaper",
            Self::MinimumChargeWaste { .. } => "minimum-charge-waste",
            Self::BudgetExceeded { .. } => "budget-exceeded",
            Self::ForgottenShutdownCostly { .. } => "forgotten-shutdown-costly",
            Self::StopKeepsBilling => "stop-keeps-billing",
            Self::DiskUnsized => "disk-unsized",
            Self::SpotWithoutCheckpoints => "spot-without-checkpoints",
            Self::BalanceRunsOut { .. } => "balance-runs-out",
            Self::TimeOfDayPrices { .. } => "time-of-day-prices",
            Self::ReleasedBetweenRuns { .. } => "released-between-runs",
            Self::PersistentInstead { .. } => "persistent-instead",
            Self::StartHourAssumed { .. } => "start-hour-assumed",
            Self::PackageDearer { .. } => "package-dearer",
            Self::ExtraPackage { .. } => "extra-package",
            Self::StopBetweenRuns { .. } => "stop-between-runs",
            Self::ScheduleTooTight { .. } => "schedule-too-tight",
            Self::StorageDaysShort { .. } => "storage-days-short",
            Self::NewcomerNotForSpot { .. } => "newcomer-not-for-spot",
            Self::ChargedInForeignCurrency { .. } => "charged-in-foreign-currency",
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

    /// Whether the plan cannot run as written (the job does not fit the
    /// card or its precision): these come before everything else.
    pub fn stops_the_run(&self) -> bool {
        matches!(
            self,
            Self::JobDoesNotFit { .. } | Self::PrecisionUnsupported { .. }
        )
    }

    /// The warning as a catalog message: `warning.<kind>` with its fields as
    /// parameters (a package period as its `enum.package-period.*` key).
    pub fn message(&self) -> Message {
        // A deadline met only after the last run leaves no run to start
        // afresh: its own sentence, not "0 later run(s)".
        let key = match self {
            Self::DataWiped {
                fresh_instances: 0, ..
            } => "warning.data-wiped-end".to_owned(),
            Self::InstanceReleased {
                fresh_instances: 0, ..
            } => "warning.instance-released-end".to_owned(),
            // Several instances each buy a last package: one sentence for
            // them together.
            Self::ExtraPackage { count, .. } if *count > 1 => "warning.extra-packages".to_owned(),
            _ => format!("warning.{}", self.kind()),
        };
        let mut m = Message::new(&key);
        if let Ok(serde_json::Value::Object(fields)) = serde_json::to_value(self) {
            for (k, v) in fields {
                if k == "kind" {
                    continue;
                }
                let text = match v {
                    serde_json::Value::String(s) if k == "period" => {
                        format!("enum.package-period.{s}")
                    }
                    serde_json::Value::String(s) if k == "precision" => {
                        format!("enum.precision.{s}")
                    }
                    serde_json::Value::String(s) => s,
                    serde_json::Value::Null => String::new(),
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

impl TimeToResult {
    /// Every part through `each`, the total the sum of the parts so
    /// changed (as a bill's total is of its lines).
    fn parts_as(&self, each: impl Fn(Decimal) -> Decimal) -> Self {
        let (waiting, setup, running, reruns, gaps) = (
            each(self.waiting),
            each(self.setup),
            each(self.running),
            each(self.reruns),
            each(self.gaps),
        );
        Self {
            waiting,
            setup,
            running,
            reruns,
            gaps,
            total: waiting + setup + running + reruns + gaps,
        }
    }

    /// Every part in whole seconds, the total their sum.
    fn in_seconds(&self) -> Self {
        self.parts_as(whole_seconds)
    }

    /// Every duration to two places, as the text shows it, and the total
    /// the sum of the parts as shown: 0.53 + 1.23 + 2.70 is 4.46, not the
    /// 4.47 the unrounded sum rounds to.
    fn rounded(&self) -> Self {
        self.parts_as(h2)
    }
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
    /// Price per hour of one instance of the runs, every GPU in it (after
    /// discount; the spot price on spot), a rate to four places.
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub price_per_hour: Decimal,
    /// GPUs in one instance.
    pub instance_gpus: u32,
    /// The same price per GPU-hour: what the platform's price list and the
    /// student's own price box name.
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub price_per_gpu_hour: Decimal,
    /// The student discount in that price, when the plan says the student
    /// has it and it lowers the price (0.95 = 5% off): a price the student
    /// typed is a platform's list price, which the discount then applies to.
    #[cfg_attr(feature = "ts", ts(type = "string | null"))]
    pub student_discount: Option<Decimal>,
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
    /// Hours of the longest single run (what a walltime or hard stop must
    /// cover), to two places as every duration here.
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub longest_run_hours: Decimal,
    /// The longest run to the second (what the kit's hard stop is made
    /// from).
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub longest_run_seconds: Decimal,
    /// Hours from the first start to the last result.
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub time_to_result_hours: Decimal,
    /// Where those hours go.
    pub time: TimeToResult,
    /// The same, each part in whole seconds and the total their sum: for a
    /// shell that shows short plans in minutes (0.14 h is 8.4 min where
    /// the run is 8.2), so parts, total and the bill's run lines agree.
    pub time_seconds: TimeToResult,
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
    /// How much of the bill rests on figures nobody checked against the
    /// platform (seed articles, estimates), and which.
    pub unverified: Unverified,
    /// The date (`YYYY-MM-DD`) of the oldest dated price the bill rests on,
    /// when any is dated: how old its prices are.
    pub prices_observed: Option<String>,
    /// Which price that oldest date is (the advice differs: a GPU price
    /// the student can set; a student discount only a newer pack renews).
    pub prices_oldest: Option<figures::Figure>,
}

/// An amount as a bill prints it: rounded to the fen, half up (四舍五入),
/// always with two places ("16.00").
pub fn cny(d: Decimal) -> Decimal {
    let mut x = settled(d).round_dp_with_strategy(2, RoundingStrategy::MidpointAwayFromZero);
    x.rescale(2);
    x
}

/// An amount without the tail a decimal leaves where hours are seconds /
/// 3600, which it cannot hold exactly (1/3 h at 0.015 is 0.00499...9).
/// Sixteen places drop that tail; an exact amount of prices to four places,
/// GB to two and seconds lies at least 1e-13 from a half fen, so none is
/// moved across one.
pub fn settled(d: Decimal) -> Decimal {
    d.round_dp_with_strategy(16, RoundingStrategy::MidpointNearestEven)
}

/// Hours to two places, half up, for showing.
fn h2(d: Decimal) -> Decimal {
    cny(d)
}

/// Whole seconds of `hours`: billing counts seconds, so 61 minutes written as
/// 1.0167 h is 3660 s, not 3660.12. Written without a scale: 9456, never
/// 9456.000000000000000000000000 (hours carry many places).
pub fn whole_seconds(hours: Decimal) -> Decimal {
    (hours * Decimal::from(3600)).round_dp_with_strategy(0, RoundingStrategy::MidpointAwayFromZero)
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

/// Whole seconds as hours, exact to the decimal's precision: rounding the
/// hours (to six places, as before) made 1,200 s at 0.015 per hour 0.00499
/// instead of 0.005, so a half fen rounded down.
pub fn seconds_to_hours(seconds: Decimal) -> Decimal {
    seconds / Decimal::from(3600)
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

/// What `profile` bills for one start of `seconds` on `gpus` GPUs at
/// `price` per GPU-hour: the hours billed (rounded up to its billing unit,
/// then to its minimum charge) and the amount, rounded to the fen half up,
/// as a bill line is. `None` when the figures overflow.
pub fn one_start(
    seconds: u64,
    gpus: u32,
    price: Decimal,
    profile: &PlatformProfile,
) -> Option<(Decimal, Decimal)> {
    let used = seconds_to_hours(Decimal::from(seconds));
    let billed = billed_hours(
        used,
        profile.billing.granularity.value,
        profile.billing.minimum_charge_minutes.value,
    );
    let amount = billed
        .checked_mul(price)?
        .checked_mul(Decimal::from(gpus))?
        .round_dp_with_strategy(2, RoundingStrategy::MidpointAwayFromZero);
    Some((billed, amount))
}

fn dec(field: &str, x: f64) -> Result<Decimal, InputError> {
    if !x.is_finite() {
        return Err(
            InputError::new(field, format!("{x} is not a number"), "a finite number").said(
                Message::new("error.notNumber").with("value", x),
                Some(Message::new("allowed.finite")),
            ),
        );
    }
    Decimal::from_f64(x).map(|d| d.round_dp(6)).ok_or_else(|| {
        InputError::new(field, format!("{x} is out of range"), "a smaller number").said(
            Message::new("error.outOfRange").with("value", x),
            Some(Message::new("allowed.smaller")),
        )
    })
}

fn overflow(fields: &str) -> InputError {
    InputError::new(
        fields,
        "the plan's figures are too large to price",
        "hours, runs and prices a student plan can have",
    )
    .said(
        Message::new("error.tooLargeToPrice"),
        Some(Message::new("allowed.studentPlan")),
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
        .said(
            Message::new("error.perEpoch")
                .with("hours", hours)
                .with("epochs", epochs),
            Some(Message::new("allowed.perEpoch")),
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
/// where the run's seconds go, the calibration applied to the estimate
/// (when measured runs were looked at) and whether it fits the card.
struct JobHours {
    hours: Decimal,
    /// Hours each epoch adds (its steps, evaluation and checkpoints).
    per_epoch: Option<Decimal>,
    /// Hours a run spends once whatever its epochs (warm-up, compilation,
    /// the first epoch's cold reads): a `[[run]]` with its own epochs pays
    /// them once, not scaled with the epochs.
    once: Decimal,
    run_parts: Option<RunParts>,
    calibration: Option<Calibration>,
    fit: Option<Warning>,
}

impl JobHours {
    /// Hours given by the plan, not estimated.
    fn given(hours: Decimal, per_epoch: Option<Decimal>) -> Self {
        Self {
            hours,
            per_epoch,
            once: Decimal::ZERO,
            run_parts: None,
            calibration: None,
            fit: None,
        }
    }
}

/// What stops an estimated job on the plan's card, if anything: memory past
/// the card's (one GPU's share of a multi-GPU layout) or a precision it
/// cannot run.
fn memory_fit(est: &estimate::Estimate, card: &crate::catalog::Gpu) -> Option<Warning> {
    let row = est.gpus.iter().find(|g| g.id == card.id)?;
    let gib = |x: f64| Decimal::from_f64_retain(x).map(cny).unwrap_or_default();
    let (verdict, peak_gib) = match &est.parallel {
        Some(p) => (
            estimate::verdict(card, &est.job, p.peak_gib * 1024.0 * 1024.0 * 1024.0),
            p.peak_gib,
        ),
        None => (row.verdict, est.vram.peak_gib()),
    };
    match verdict {
        estimate::Verdict::DoesNotFit => Some(Warning::JobDoesNotFit {
            peak_gib: gib(peak_gib),
            card_gib: gib(row.vram_gib),
        }),
        estimate::Verdict::Unsupported => Some(Warning::PrecisionUnsupported {
            precision: est.job.precision.to_string(),
        }),
        estimate::Verdict::Fits | estimate::Verdict::Tight => None,
    }
}

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
            )
            .said(
                Message::new("error.outOfRange").with("value", e),
                Some(
                    Message::new("allowed.above")
                        .with("min", 0)
                        .with("max", 100_000),
                ),
            ))
        }
        e => e,
    };
    if let Some(h) = plan.job.hours {
        let per_epoch = match epochs {
            Some(e) => Some(per_epoch_hours(h, e)?),
            None => None,
        };
        return Ok(JobHours::given(h, per_epoch));
    }
    let Some(model) = &plan.job.model else {
        if !plan.runs.is_empty()
            && plan
                .runs
                .iter()
                .all(|r| r.hours.is_some() || r.minutes.is_some())
        {
            return Ok(JobHours::given(Decimal::ZERO, None));
        }
        return Err(InputError::new(
            "job",
            "the plan gives neither job hours nor a model to estimate",
            "job.hours, or job.model with dataset_samples and epochs, or hours on every [[run]]",
        )
        .said(
            Message::new("error.hoursOrModel"),
            Some(Message::new("allowed.planHours")),
        ));
    };
    let entry = zoo.get(model)?;
    let job = plan.job.resolve(entry)?;
    let card = catalog.get(gpu)?;
    let est = estimate::estimate_with(entry, &job, catalog, Some(card), host, corrections);
    // The whole run: steps with the input pipeline, evaluation, checkpoints
    // and warm-up, as the platform's host runs them.
    let run_s = est
        .target_run
        .map(|r| r.total_s)
        .ok_or_else(InputError::needs_dataset_samples)?;
    if !(run_s.is_finite() && run_s <= MAX_HOURS as f64 * 3600.0) {
        return Err(InputError::new(
            "job.epochs",
            "one run would take more than ten years",
            "fewer epochs or samples",
        )
        .said(
            Message::new("error.runTenYears"),
            Some(Message::new("allowed.fewerEpochs")),
        ));
    }
    let hours = dec("job.dataset_samples", run_s / 3600.0)?;
    let n = job.epochs.unwrap_or(1.0).max(1e-6);
    let once_s = est
        .target_run
        .map(|r| (r.warmup_s + r.cold_cache_s).clamp(0.0, run_s))
        .unwrap_or(0.0);
    let per_epoch = dec("job.epochs", (run_s - once_s) / 3600.0 / n)?;
    Ok(JobHours {
        hours: hours.max(Decimal::new(1, 6)),
        per_epoch: Some(per_epoch),
        once: dec("job.epochs", once_s / 3600.0)?,
        fit: memory_fit(&est, card),
        run_parts: est.target_run,
        calibration: est.calibration,
    })
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

/// A plan that stops a spot instance where the platform cannot stop one
/// (only release it) is refused: pricing the stop would bill a disk and a
/// restart that do not exist, and skip the upload a fresh instance needs.
fn spot_stops(plan: &Plan, profile: &PlatformProfile, spot: bool) -> Result<(), InputError> {
    let cannot = profile.lifecycle.spot_only_released();
    if !(spot && cannot) {
        return Ok(());
    }
    let field = if plan.stops.as_ref().is_some_and(|s| s.count > 0) {
        "stops.count"
    } else if plan
        .schedule
        .as_ref()
        .is_some_and(|s| s.between_runs == crate::plan::Between::Stop)
    {
        "schedule.between_runs"
    } else {
        return Ok(());
    };
    Err(InputError::new(
        field,
        "a spot instance on this platform cannot be stopped, only released",
        "between_runs = \"release\" and no [stops], or pay as you go",
    )
    .said(
        Message::new("error.spotCannotStop"),
        Some(Message::new("allowed.spotCannotStop")),
    ))
}

/// [`quote`] with an estimated job's time corrected by measured runs
/// ([`crate::correction`]); the quote says what was applied.
///
/// A pipeline of stages over one timeline: the prices ([`prices`]), the
/// work (how long each run takes, spot reruns, the data upload), the
/// timeline ([`schedule::lay_out`]), the billed states ([`stages`]: setup
/// and data, debugging, the GPU, peak hours, stops, storage, credit), the
/// time to result, then the warnings and advice ([`advice`]).
pub fn quote_with(
    plan: &Plan,
    profile: &PlatformProfile,
    catalog: &GpuCatalog,
    zoo: &ModelZoo,
    corrections: &Corrections,
) -> Result<Quote, InputError> {
    let mut q = quote_once(plan, profile, catalog, zoo, corrections)?;
    confirm_stop_advice(&mut q, plan, |alt| {
        quote_once(alt, profile, catalog, zoo, corrections)
    });
    Ok(q)
}

/// The advice to stop between runs compares whole bills: on hourly billing
/// with a minimum charge each restart bills its own first unit, which can
/// cost more than the idle hours it saves. The advice stays only when the
/// same plan stopping between runs costs less, and then states both totals.
fn confirm_stop_advice(
    q: &mut Quote,
    plan: &Plan,
    price: impl Fn(&Plan) -> Result<Quote, InputError>,
) {
    let Some(i) = q
        .warnings
        .iter()
        .position(|w| matches!(w, Warning::StopBetweenRuns { .. }))
    else {
        return;
    };
    let mut stopping = plan.clone();
    let cheaper = match stopping.schedule.as_mut() {
        Some(s) => {
            s.between_runs = crate::plan::Between::Stop;
            price(&stopping)
                .ok()
                .map(|alt| alt.cash_total)
                .filter(|t| *t < q.cash_total)
        }
        None => None,
    };
    match (cheaper, &mut q.warnings[i]) {
        (
            Some(t),
            Warning::StopBetweenRuns {
                total,
                stopped_total,
                ..
            },
        ) => {
            *total = q.cash_total;
            *stopped_total = t;
        }
        _ => {
            q.warnings.remove(i);
        }
    }
}

/// One pricing of `plan` (see [`quote_with`]).
fn quote_once(
    plan: &Plan,
    profile: &PlatformProfile,
    catalog: &GpuCatalog,
    zoo: &ModelZoo,
    corrections: &Corrections,
) -> Result<Quote, InputError> {
    plan.check()?;
    let (rental, prices) = prices::prices(plan, profile, catalog)?;
    spot_stops(plan, profile, prices.spot)?;
    let grades = figures::Grades::of(plan, profile, rental.offer, &prices, catalog);
    let work = work(plan, profile, &rental, &prices, catalog, zoo, corrections)?;
    let walls: Vec<Decimal> = work.walls.iter().map(|(w, _)| *w).collect();
    let debug_hours = plan.debug.as_ref().map(|d| d.hours).unwrap_or_default();
    let lanes = lay_out(plan, profile, &prices, &work, &walls)?;
    let stop_bills_gpu = !profile.billing.stop_ends_gpu_billing.value;
    let Billed {
        mut bill,
        gpu,
        packages,
        peak_placed,
        credit,
    } = billed_states(plan, profile, &rental, &prices, &work, &walls, &lanes);
    let cash_total = bill.sum(|l| l.category != Category::OwnTime);
    let time = schedule::time_to_result(&schedule::TimeInputs {
        plan,
        profile,
        lanes: &lanes,
        setup_hours: plan.setup_hours + work.upload_hours,
        debug_hours,
    })?;
    let total = own_time_and_limits(&mut bill, plan, &time, cash_total)?;
    let warnings = advice::warnings(&advice::Facts {
        plan,
        profile,
        rental: &rental,
        prices: &prices,
        lanes: &lanes,
        gpu: &gpu,
        bill: &bill,
        cash_total,
        packages: packages.as_ref().map(|(c, _)| *c),
        checkpoint: work.checkpoint,
        stop_bills_gpu,
        upload_hours: work.upload_hours,
        peak_placed,
        fit: work.fit.as_ref(),
    });
    let spot = spot_outlook(&prices, &work, cash_total)?;
    let timeline = schedule::timeline(plan, &bill.lines, &lanes, cash_total, credit);
    let by_category = bill.by_category();
    let unverified = figures::unverified(&bill.lines, &grades, &prices);
    let (prices_observed, prices_oldest) =
        match figures::prices_observed(&bill.lines, &grades, &prices) {
            Some((date, figure)) => (Some(date), Some(figure)),
            None => (None, None),
        };
    Ok(Quote {
        plan: plan.name.clone(),
        platform: profile.id.clone(),
        gpu: rental.offer.gpu.clone(),
        price_per_hour: prices.run.round_dp(4).normalize(),
        instance_gpus: rental.gpus,
        price_per_gpu_hour: (prices.run / Decimal::from(rental.gpus.max(1)))
            .round_dp(4)
            .normalize(),
        student_discount: (rental.discount < Decimal::ONE).then(|| rental.discount.normalize()),
        lines: bill.lines,
        by_category,
        cash_total,
        total,
        run_hours: h2(gpu.used),
        longest_run_hours: h2(gpu.longest),
        longest_run_seconds: whole_seconds(gpu.longest),
        time_to_result_hours: time.rounded().total,
        time: time.rounded(),
        time_seconds: time.in_seconds(),
        run_parts: work.run_parts,
        calibration: work.calibration,
        spot,
        packages: prices
            .package
            .zip(packages)
            .map(|((period, _), (count, days))| PackageUse {
                period,
                count,
                bought_on_days: days,
            }),
        timeline,
        warnings,
        unverified,
        prices_observed,
        prices_oldest,
    })
}

/// The plan laid out in time, once: every stage reads this.
fn lay_out(
    plan: &Plan,
    profile: &PlatformProfile,
    prices: &prices::Prices,
    work: &Work,
    walls: &[Decimal],
) -> Result<Vec<schedule::Lane>, InputError> {
    schedule::lay_out(&schedule::Inputs {
        plan,
        profile,
        groups: &work.groups,
        walls,
        setup_hours: plan.setup_hours,
        upload_hours: work.upload_hours,
        debug_hours: plan.debug.as_ref().map(|d| d.hours).unwrap_or_default(),
        setup_on_gpu: prices.setup_mode == prices::SetupMode::Gpu,
    })
}

/// The billed states read off the timeline, in order: setup and data,
/// debugging, the GPU (pay as you go or packages), peak hours, stops,
/// storage, credit.
struct Billed {
    bill: stages::Bill,
    gpu: stages::GpuUse,
    packages: Option<(u32, Vec<u32>)>,
    peak_placed: bool,
    credit: Decimal,
}

fn billed_states(
    plan: &Plan,
    profile: &PlatformProfile,
    rental: &prices::Rental<'_>,
    prices: &prices::Prices,
    work: &Work,
    walls: &[Decimal],
    lanes: &[schedule::Lane],
) -> Billed {
    let stop_bills_gpu = !profile.billing.stop_ends_gpu_billing.value;
    let mut bill = stages::Bill::default();
    stages::setup_and_data(&mut bill, plan, profile, prices, lanes, work.upload_hours);
    stages::debug(&mut bill, plan, prices);
    let gpu = stages::gpu_use(&work.groups, walls, lanes, prices);
    let packages = match prices.package {
        Some(_) => stages::packages(&mut bill, prices, lanes, stop_bills_gpu, gpu.used),
        None => {
            stages::pay_as_you_go(&mut bill, plan, rental, prices, &work.groups, &gpu);
            None
        }
    };
    let peak_placed =
        prices.package.is_none() && stages::peak(&mut bill, plan, profile, prices, lanes);
    stages::stops(
        &mut bill,
        prices,
        lanes,
        stop_bills_gpu,
        prices.package.is_some(),
    );
    // A disk the platform sells on the package itself is prepaid with it:
    // every package period bought, used or not.
    let prepaid_disk = match (prices.package, &packages) {
        (Some((period, _)), Some(_)) if prices::package_disk(plan, profile).is_some() => Some((
            schedule::package_windows(lanes, period.hours(), stop_bills_gpu),
            period.hours() / Decimal::from(24),
        )),
        _ => None,
    };
    stages::storage(
        &mut bill,
        plan,
        profile,
        prices,
        lanes,
        prepaid_disk.as_ref().map(|(w, d)| (w.as_slice(), *d)),
    );
    let credit = stages::credit(&mut bill, plan, profile, prices.spot);
    Billed {
        bill,
        gpu,
        packages,
        peak_placed,
        credit,
    }
}

/// The hour of the day a plan with a start date but no start hour is taken
/// to start at (and the quote says so).
pub const DEFAULT_START_HOUR: u32 = 9;

/// Whole seconds of `hours` (tenths under a second), as a bill line's
/// duration parameter (the renderers word it in seconds, minutes or hours,
/// in the reader's language).
pub fn seconds_param(hours: Decimal) -> String {
    let whole = whole_seconds(hours.max(Decimal::ZERO));
    // Under a second, a tenth (at least 0.1): a fraction of a second that
    // costs 0.03 CNY on eight H800s is not "0 s".
    if whole < Decimal::ONE && hours > Decimal::ZERO {
        let tenths = (hours * Decimal::from(3600))
            .round_dp_with_strategy(1, RoundingStrategy::MidpointAwayFromZero)
            .max(Decimal::new(1, 1));
        return tenths.normalize().to_string();
    }
    whole.normalize().to_string()
}

/// How long the plan's work takes, before it is laid out in time.
struct Work {
    groups: Vec<schedule::Group>,
    /// Wall hours of one run of each group (spot reruns included), and the
    /// spread of a spot run.
    walls: Vec<(Decimal, spot::Outlook)>,
    checkpoint: Option<Decimal>,
    /// Hours of uploading and unpacking the dataset onto one instance.
    upload_hours: Decimal,
    run_parts: Option<RunParts>,
    calibration: Option<Calibration>,
    /// What stops the estimated job on the card, if anything.
    fit: Option<Warning>,
}

/// The work stage: each run group's hours (the estimator's for an estimated
/// job), their expected wall time on spot, and the data's upload.
fn work(
    plan: &Plan,
    profile: &PlatformProfile,
    rental: &prices::Rental<'_>,
    prices: &prices::Prices,
    catalog: &GpuCatalog,
    zoo: &ModelZoo,
    corrections: &Corrections,
) -> Result<Work, InputError> {
    let host = profile.host_for(rental.offer);
    let JobHours {
        hours: job_hours,
        per_epoch,
        once,
        run_parts,
        calibration,
        fit,
    } = self::job_hours(plan, &rental.offer.gpu, &host, catalog, zoo, corrections)?;
    let groups = schedule::groups(plan, job_hours, per_epoch.map(|pe| (pe, once)))?;
    check_run_hours(plan, &groups)?;
    let spot_spec = plan.spot.clone().unwrap_or_default();
    let checkpoint = if prices.spot {
        spot_spec
            .checkpoint_every_hours
            .or(match (spot_spec.checkpoint_every_epochs, per_epoch) {
                (Some(e), Some(pe)) => e.checked_mul(pe),
                _ => None,
            })
    } else {
        None
    };
    let walls = groups
        .iter()
        .map(|g| spot_wall(g, prices.spot, checkpoint, &spot_spec))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Work {
        groups,
        walls,
        checkpoint,
        upload_hours: upload_hours(plan)?,
        run_parts,
        calibration,
        fit,
    })
}

/// The runs alone, spread over every parallel instance, end within ten
/// years: checked before laying the plan out in time, whose cost grows with
/// the plan's length.
fn check_run_hours(plan: &Plan, groups: &[schedule::Group]) -> Result<(), InputError> {
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
                crate::limits::years_of(run_hours / Decimal::from(plan.parallel)),
                plan.parallel
            ),
            "fewer or shorter runs, or more parallel instances",
        )
        .said(
            Message::new("error.runsAddUp")
                .with("hours", run_hours.round_dp(0))
                .with(
                    "years",
                    crate::limits::years_of(run_hours / Decimal::from(plan.parallel)),
                )
                .with("count", plan.parallel),
            Some(Message::new("allowed.fewerRuns")),
        ));
    }
    Ok(())
}

/// One run's expected wall hours on spot (a renewal process), or its hours.
fn spot_wall(
    g: &schedule::Group,
    spot: bool,
    checkpoint: Option<Decimal>,
    spec: &crate::plan::SpotSpec,
) -> Result<(Decimal, spot::Outlook), InputError> {
    if !spot {
        return Ok((g.hours, spot::Outlook::default()));
    }
    let lambda = (spec.preemptions_per_day / Decimal::from(24))
        .to_f64()
        .unwrap_or(0.0);
    let restart = (spec.restart_minutes / Decimal::from(60))
        .to_f64()
        .unwrap_or(0.0);
    let t = g.hours.to_f64().unwrap_or(0.0);
    let out = spot::run(t, checkpoint.and_then(|c| c.to_f64()), lambda, restart)
        .filter(|o| o.mean <= MAX_HOURS as f64)
        .ok_or_else(|| {
            InputError::new(
                "spot.preemptions_per_day",
                format!(
                    "a {} h run at {} preemptions a day would practically never finish",
                    g.hours.round_dp(2),
                    spec.preemptions_per_day
                ),
                "checkpoints (spot.checkpoint_every_hours), fewer preemptions or shorter runs",
            )
            .said(
                Message::new("error.spotNeverFinishes")
                    .with("hours", g.hours.round_dp(2))
                    .with("rate", spec.preemptions_per_day),
                Some(Message::new("allowed.spotFinishes")),
            )
        })?;
    Ok((dec("spot", out.mean)?.max(g.hours), out))
}

/// Hours to upload the dataset onto one instance and unpack it there.
fn upload_hours(plan: &Plan) -> Result<Decimal, InputError> {
    let Some(d) = &plan.data else {
        return Ok(Decimal::ZERO);
    };
    d.size_gb
        .checked_mul(Decimal::from(8192))
        .and_then(|x| x.checked_div(d.upload_mbps))
        .and_then(|x| {
            // Unpacking the archive on the instance follows the upload.
            let unpack = d.size_gb.checked_mul(unpack_seconds_per_gb())?;
            x.checked_add(unpack)
        })
        .map(|x| x / Decimal::from(3600))
        .ok_or_else(|| overflow("data.size_gb"))
}

/// The field that made a plan's time to result too long: the largest part
/// of it, and within setup the largest of setup, upload and debugging.
fn longest_part(plan: &Plan, time: &TimeToResult) -> &'static str {
    let gaps = if plan.stops.is_some() {
        "stops.hours_each"
    } else {
        "schedule.days"
    };
    let setup = {
        let debug = plan.debug.as_ref().map(|d| d.hours).unwrap_or_default();
        let upload = upload_hours(plan).unwrap_or_default();
        [
            ("setup_hours", plan.setup_hours),
            ("data.upload_mbps", upload),
            ("debug.hours", debug),
        ]
        .into_iter()
        .max_by_key(|(_, h)| *h)
        .map_or("setup_hours", |(f, _)| f)
    };
    // Runs that are the job's hours are named where the file writes them.
    let running = if plan.runs.is_empty() && plan.job.hours.is_some() {
        "job.hours"
    } else {
        "run"
    };
    [
        (running, time.running),
        (setup, time.setup),
        ("spot.preemptions_per_day", time.reruns),
        (gaps, time.gaps),
        ("platform", time.waiting),
    ]
    .into_iter()
    .max_by_key(|(_, h)| *h)
    .map_or("run", |(f, _)| f)
}

/// The student's own time, and the limits every printed figure is held to.
/// Returns the total with own time.
fn own_time_and_limits(
    bill: &mut stages::Bill,
    plan: &Plan,
    time: &TimeToResult,
    cash_total: Decimal,
) -> Result<Decimal, InputError> {
    if time.total > Decimal::from(MAX_HOURS) {
        return Err(InputError::new(
            longest_part(plan, time),
            format!(
                "the plan would take {} years to finish",
                crate::limits::years_of(time.total)
            ),
            "fewer or shorter runs, more parallel instances, or another platform",
        )
        .said(
            Message::new("error.planYears").with("years", crate::limits::years_of(time.total)),
            Some(Message::new("allowed.planYears")),
        ));
    }
    let own_hours = time.waiting + time.setup;
    bill.push(
        LineKind::OwnTime,
        vec![("time_s", seconds_param(own_hours))],
        Some(own_hours),
        own_hours * plan.own_time_per_hour,
    );
    let total = bill.sum(|_| true);
    // Credit can bring a total under the limit while a line stays above it:
    // every printed figure is held to the limit, not just the sum.
    let largest = bill
        .lines
        .iter()
        .max_by(|a, b| a.amount.abs().cmp(&b.amount.abs()));
    let line_over = largest.is_some_and(|l| l.amount.abs() > Decimal::from(MAX_CNY));
    if line_over || cash_total > Decimal::from(MAX_CNY) || total > Decimal::from(MAX_CNY) {
        // Name the fields behind the largest line: that is what to change.
        let shown = largest
            .map(|l| l.amount.abs())
            .unwrap_or_default()
            .max(total)
            .max(cash_total);
        return Err(InputError::new(
            fields_of(largest.map(|l| l.kind).unwrap_or(LineKind::Runs)),
            format!(
                "the plan would cost {} CNY, more than any student plan (at most {MAX_CNY} on any line or in total)",
                shown.round_dp(0)
            ),
            "fewer or shorter runs, lower prices or less storage",
        ).said(Message::new("error.planCost").with("cost", shown.round_dp(0)).with("max", MAX_CNY), Some(Message::new("allowed.planCost"))));
    }
    Ok(total)
}

/// Spot: the bad case beside the expectation.
fn spot_outlook(
    prices: &prices::Prices,
    work: &Work,
    cash_total: Decimal,
) -> Result<Option<SpotOutlook>, InputError> {
    if !prices.spot {
        return Ok(None);
    }
    let total: spot::Outlook = work
        .groups
        .iter()
        .zip(&work.walls)
        .map(|(g, (_, o))| o.times(f64::from(g.count)))
        .fold(spot::Outlook::default(), |a, b| a + b);
    let reruns: Decimal = work
        .groups
        .iter()
        .zip(&work.walls)
        .map(|(g, (w, _))| (*w - g.hours) * Decimal::from(g.count))
        .sum();
    let extra = (dec("spot", total.p90())? - dec("spot", total.mean)?).max(Decimal::ZERO);
    Ok(Some(SpotOutlook {
        expected_rerun_hours: h2(reruns),
        p90_rerun_hours: h2(reruns + extra),
        p90_cash_total: cash_total + cny(extra * prices.run),
    }))
}

/// GPUs in one instance of the plan (its job's `gpus`, default 1), within
/// what the offer provides.
fn instance_gpus(
    plan: &Plan,
    offer: &crate::platform::Offer,
    profile: &PlatformProfile,
) -> Result<u32, InputError> {
    // The job's own limits, worded as the job's fields are everywhere; the
    // offer's limit before the split over nodes, so 9 GPUs where an
    // instance has at most 8 is told that, not "8 or 10".
    let in_job = |e: InputError| InputError {
        field: "job.gpus".into(),
        ..e
    };
    let gpus = match plan.job.gpus {
        None => 1,
        Some(g) => crate::job::gpu_count(g).map_err(in_job)?,
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
        )
        .said(
            Message::new("error.instanceGpus")
                .with_both("platform", &profile.name.zh, &profile.name.en)
                .with("max", max)
                .with("gpu", &offer.gpu),
            Some(Message::new("allowed.atMost").with("max", max)),
        ));
    }
    crate::limits::check_node_split(gpus).map_err(in_job)?;
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
        LineKind::Runs
        | LineKind::PeakSurcharge
        | LineKind::Waste
        | LineKind::Rounding
        | LineKind::Package => "run.count, job.hours, prices.gpu_per_hour",
        LineKind::Debug | LineKind::DebugWaste => "debug.hours",
        LineKind::Setup => "setup_hours",
        LineKind::Upload | LineKind::Traffic => "data.size_gb",
        LineKind::Egress => "data.download_gb",
        LineKind::Stopped | LineKind::StoppedBilling => "stops",
        LineKind::IdleBetween => "schedule",
        LineKind::Forgotten => "forgotten_shutdown_hours",
        LineKind::Reruns => "spot",
        LineKind::Storage | LineKind::DataDisk | LineKind::PersistentStorage => {
            "storage.gb, storage.days"
        }
        LineKind::Credit => "student",
        LineKind::Coupon => "credit",
        LineKind::NewcomerCredit => "newcomer",
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
