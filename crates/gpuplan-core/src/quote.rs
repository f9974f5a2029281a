//! The cost engine: prices a whole [`Plan`] on a [`PlatformProfile`], traps
//! included, in exact decimal CNY.
//!
//! The bill is built from what actually happens: each run is a start billed at
//! the platform's granularity and minimum charge; stops bill what a stopped
//! instance still costs (or the full GPU price where stopping does not end
//! billing); storage above the free amount bills per GB-day; the upload runs in
//! the cheap no-GPU mode where there is one and on the GPU where there is not;
//! spot runs lose half a checkpoint interval plus a restart per preemption;
//! a forgotten shutdown bills idle GPU hours. Warnings name the traps the plan
//! walks into (data wiped by a deadline, walltime or quota exceeded, a cheaper
//! package, minimum-charge waste, budget exceeded).

use std::collections::BTreeMap;

use chrono::{Days, NaiveDate};
use rust_decimal::prelude::{FromPrimitive, ToPrimitive};
use rust_decimal::Decimal;
use serde::Serialize;

use crate::catalog::GpuCatalog;
use crate::error::InputError;
use crate::estimate;
use crate::message::Message;
use crate::plan::{Payment, Plan};
use crate::platform::{Granularity, PackagePeriod, PlatformProfile};
use crate::zoo::ModelZoo;

/// Bill categories, in display order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub enum Category {
    /// GPU hours actually used (main runs and debugging).
    GpuCompute,
    /// Persistent storage.
    Storage,
    /// Fees of stopped instances and idle (forgotten) running time.
    StoppedIdle,
    /// Data transfer.
    Traffic,
    /// Environment setup and uploads (no-GPU mode where offered).
    SetupNoGpu,
    /// Work redone after spot preemptions.
    PreemptionReruns,
    /// Billed but unused time from granularity and minimum charges.
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
    /// Traffic fees.
    Traffic,
    /// A stopped instance's fees.
    Stopped,
    /// Stops that keep billing the GPU.
    StoppedBilling,
    /// Idle running after the last run.
    Forgotten,
    /// Work redone after preemptions.
    Reruns,
    /// Storage above the free amount.
    Storage,
    /// Free credit.
    Credit,
    /// The student's own time.
    OwnTime,
}

impl LineKind {
    /// Every kind.
    pub const ALL: [Self; 15] = [
        Self::Runs,
        Self::Debug,
        Self::DebugWaste,
        Self::Waste,
        Self::Package,
        Self::Setup,
        Self::Upload,
        Self::Traffic,
        Self::Stopped,
        Self::StoppedBilling,
        Self::Forgotten,
        Self::Reruns,
        Self::Storage,
        Self::Credit,
        Self::OwnTime,
    ];
}

/// One line of the bill.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct LineItem {
    /// Category.
    pub category: Category,
    /// What the line is for (the text is `bill.line.<kind>`).
    pub kind: LineKind,
    /// Values for the text's placeholders.
    pub params: BTreeMap<String, String>,
    /// Hours behind it, when it is time-based.
    #[cfg_attr(feature = "ts", ts(type = "string | null"))]
    pub hours: Option<Decimal>,
    /// CNY.
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub amount: Decimal,
}

/// A trap the plan walks into.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub enum Warning {
    /// A stopped instance (and its data) is released after the deadline.
    DataWiped {
        /// Days stopped in the plan.
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
    /// A run is longer than the walltime or session cap.
    RunExceedsCap {
        /// Longest run, hours.
        #[cfg_attr(feature = "ts", ts(type = "string"))]
        run_hours: Decimal,
        /// The cap, hours.
        #[cfg_attr(feature = "ts", ts(type = "string"))]
        cap_hours: Decimal,
    },
    /// The weekly free quota is used up.
    QuotaExhausted {
        /// GPU hours in the plan.
        #[cfg_attr(feature = "ts", ts(type = "string"))]
        hours: Decimal,
        /// Hours the quota allows over the plan's weeks.
        #[cfg_attr(feature = "ts", ts(type = "string"))]
        quota_hours: Decimal,
    },
    /// A package would cost less than paying as you go.
    PackageCheaper {
        /// Which package.
        period: PackagePeriod,
        /// Its cost for the plan.
        #[cfg_attr(feature = "ts", ts(type = "string"))]
        cost: Decimal,
        /// The pay-as-you-go compute cost it replaces.
        #[cfg_attr(feature = "ts", ts(type = "string"))]
        instead_of: Decimal,
    },
    /// Granularity and minimum charges waste a large share of compute.
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
}

impl Warning {
    /// Every kind, as spelled in JSON and catalog keys (`warning.<kind>`).
    pub const KINDS: [&'static str; 10] = [
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
        }
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
    /// Cumulative CNY (cash, own time excluded).
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub cumulative: Decimal,
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
    /// Price per GPU-hour used (after discount).
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub price_per_hour: Decimal,
    /// Bill lines.
    pub lines: Vec<LineItem>,
    /// Sum per category.
    #[cfg_attr(feature = "ts", ts(as = "BTreeMap<Category, String>"))]
    pub by_category: BTreeMap<Category, Decimal>,
    /// Cash total (everything but own time), CNY.
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub cash_total: Decimal,
    /// Total including own time, CNY.
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub total: Decimal,
    /// GPU hours of the main runs (one run each, summed over the matrix).
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub run_hours: Decimal,
    /// Hours of the longest single run (what a walltime or hard stop must cover).
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub longest_run_hours: Decimal,
    /// Hours from start to the last result: startup, queue, upload, debug, runs, reruns.
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub time_to_result_hours: Decimal,
    /// Day-by-day cumulative spend.
    pub timeline: Vec<DayCost>,
    /// Traps.
    pub warnings: Vec<Warning>,
}

/// An amount in CNY to the fen, always with two decimals ("16.00"). Bill lines
/// are rounded first and totals are sums of the rounded lines, so a printed
/// bill adds up.
pub fn cny(d: Decimal) -> Decimal {
    let mut x = d.round_dp(2);
    x.rescale(2);
    x
}

/// Hours rounded up to the billing unit and the minimum charge.
pub fn billed_hours(used: Decimal, granularity: Granularity, minimum_minutes: u32) -> Decimal {
    let sixty = Decimal::from(60);
    let minutes = used * sixty;
    let unit = Decimal::from(granularity.minutes());
    let rounded = if unit.is_zero() {
        minutes
    } else {
        (minutes / unit).ceil() * unit
    };
    rounded.max(Decimal::from(minimum_minutes)) / sixty
}

fn dec(x: f64) -> Decimal {
    Decimal::from_f64(x).unwrap_or(Decimal::ZERO).round_dp(6)
}

/// Hours of one run and hours per epoch (if known) for the plan's job on `gpu`.
fn job_hours(
    plan: &Plan,
    gpu: &str,
    catalog: &GpuCatalog,
    zoo: &ModelZoo,
) -> Result<(Decimal, Option<Decimal>), InputError> {
    if let Some(h) = plan.job.hours {
        let per_epoch = plan.job.epochs.filter(|e| *e > 0.0).map(|e| h / dec(e));
        return Ok((h, per_epoch));
    }
    let Some(model) = &plan.job.model else {
        if plan.runs.iter().all(|r| r.hours.is_some()) && !plan.runs.is_empty() {
            return Ok((Decimal::ZERO, None));
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
    let est = estimate::estimate(entry, &job, catalog, Some(card));
    let row = est.gpus.iter().find(|g| g.id == card.id);
    let epoch_s = row.and_then(|r| r.epoch_seconds).ok_or_else(|| {
        InputError::new(
            "job.dataset_samples",
            "an estimated job needs the dataset size to time an epoch",
            "a whole number of samples",
        )
    })?;
    let per_epoch = dec(epoch_s / 3600.0);
    let epochs = job.epochs.map(dec).unwrap_or(Decimal::ONE);
    Ok((per_epoch * epochs, Some(per_epoch)))
}

struct Prices {
    gpu: Decimal,
    debug_gpu: Decimal,
    stopped_fee: Decimal,
    storage_gb_day: Decimal,
    free_gb: Decimal,
    granularity: Granularity,
    minimum_minutes: u32,
}

/// Prices `plan` on `profile`. Ids are checked against `catalog`; a job with a
/// model is timed by the estimator over `zoo`.
pub fn quote(
    plan: &Plan,
    profile: &PlatformProfile,
    catalog: &GpuCatalog,
    zoo: &ModelZoo,
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
    let prices = Prices {
        gpu: o.gpu_per_hour.unwrap_or(offer.price_per_hour.typical) * discount,
        debug_gpu: o
            .debug_gpu_per_hour
            .or(debug_offer.map(|d| d.price_per_hour.typical))
            .unwrap_or(Decimal::ZERO)
            * discount,
        stopped_fee: o
            .stopped_fee_per_hour
            .unwrap_or(profile.billing.stopped_fee_per_hour.value),
        storage_gb_day: o
            .storage_per_gb_day
            .or(o.storage_per_gb_month.map(|m| m / Decimal::from(30)))
            .unwrap_or(profile.storage.price_per_gb_day.value),
        free_gb: o.free_storage_gb.unwrap_or(profile.storage.free_gb.value),
        granularity: o.granularity.unwrap_or(profile.billing.granularity.value),
        minimum_minutes: o
            .minimum_charge_minutes
            .unwrap_or(profile.billing.minimum_charge_minutes.value),
    };
    let spot_price = match plan.payment {
        Payment::Spot => Some(
            o.spot_per_hour
                .or(offer.spot_per_hour.as_ref().map(|s| s.value))
                .map(|p| p * discount)
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
    let run_price = spot_price.unwrap_or(prices.gpu);

    let (job_hours, per_epoch) = job_hours(plan, &gpu_id, catalog, zoo)?;
    let groups: Vec<(String, u32, Decimal)> = if plan.runs.is_empty() {
        vec![("run".into(), 1, job_hours)]
    } else {
        plan.runs
            .iter()
            .map(|r| {
                let hours = match (r.hours, r.epochs, per_epoch) {
                    (Some(h), _, _) => Ok(h),
                    (None, Some(e), Some(pe)) => Ok(e * pe),
                    (None, Some(_), None) => Err(InputError::new(
                        "run.epochs",
                        format!(
                            "run `{}` gives epochs but the job's time per epoch is unknown",
                            r.name
                        ),
                        "hours on the run, or job.epochs with job.hours",
                    )),
                    (None, None, _) => Ok(job_hours),
                }?;
                if hours <= Decimal::ZERO {
                    return Err(InputError::new(
                        "run.hours",
                        format!("run `{}` has no duration", r.name),
                        "hours > 0",
                    ));
                }
                Ok((r.name.clone(), r.count, hours))
            })
            .collect::<Result<_, _>>()?
    };

    let mut lines: Vec<LineItem> = Vec::new();
    let push = |lines: &mut Vec<LineItem>,
                category: Category,
                kind: LineKind,
                params: Vec<(&str, String)>,
                hours: Option<Decimal>,
                amount: Decimal| {
        if !amount.is_zero() || category == Category::GpuCompute {
            lines.push(LineItem {
                category,
                kind,
                params: params.into_iter().map(|(k, v)| (k.to_owned(), v)).collect(),
                hours,
                amount: amount.round_dp(4),
            });
        }
    };

    // Main runs: each run is one start, billed at the granularity and minimum.
    let mut used = Decimal::ZERO;
    let mut billed = Decimal::ZERO;
    let mut starts: u32 = 0;
    let mut longest = Decimal::ZERO;
    let stops = plan.stops.clone();
    let stop_count = stops.as_ref().map(|s| s.count).unwrap_or(0);
    for (name, count, hours) in &groups {
        let n = Decimal::from(*count);
        used += hours * n;
        billed += billed_hours(*hours, prices.granularity, prices.minimum_minutes) * n;
        starts += count;
        longest = longest.max(*hours);
        push(
            &mut lines,
            Category::GpuCompute,
            LineKind::Runs,
            vec![
                ("count", count.to_string()),
                ("name", name.clone()),
                ("hours", hours.round_dp(2).to_string()),
                ("gpu", gpu_id.clone()),
            ],
            Some(hours * n),
            hours * n * run_price,
        );
    }
    // Each stop splits a run into one more start, which on average rounds up
    // half a billing unit more.
    if stop_count > 0 {
        billed += Decimal::from(prices.granularity.minutes()) / Decimal::from(120)
            * Decimal::from(stop_count);
    }
    starts += stop_count;
    let mut debug_hours = Decimal::ZERO;
    if let Some(d) = &plan.debug {
        debug_hours = d.hours;
        let b = billed_hours(d.hours, prices.granularity, prices.minimum_minutes);
        push(
            &mut lines,
            Category::GpuCompute,
            LineKind::Debug,
            vec![
                ("gpu", d.gpu.clone()),
                ("hours", d.hours.round_dp(2).to_string()),
            ],
            Some(d.hours),
            d.hours * prices.debug_gpu,
        );
        push(
            &mut lines,
            Category::MinimumChargeWaste,
            LineKind::DebugWaste,
            vec![],
            Some(b - d.hours),
            (b - d.hours) * prices.debug_gpu,
        );
        starts += 1;
    }
    let waste_hours = billed - used;
    push(
        &mut lines,
        Category::MinimumChargeWaste,
        LineKind::Waste,
        vec![
            ("hours", waste_hours.round_dp(2).to_string()),
            ("minimum", prices.minimum_minutes.to_string()),
        ],
        Some(waste_hours),
        waste_hours * run_price,
    );

    // Package instead of pay as you go.
    let package_cost = |period: PackagePeriod| -> Option<Decimal> {
        let price = offer
            .packages
            .iter()
            .find(|p| p.period == period)
            .map(|p| p.price)
            .or(o.package_price)?;
        Some((used / period.hours()).ceil().max(Decimal::ONE) * price * discount)
    };
    if let Payment::Package(period) = plan.payment {
        let cost = package_cost(period).ok_or_else(|| {
            InputError::new(
                "payment",
                format!("{} offers no {period:?} package for {gpu_id}", profile.id),
                "on-demand, or set prices.package_price",
            )
        })?;
        lines.retain(|l| !matches!(l.kind, LineKind::Runs | LineKind::Waste));
        push(
            &mut lines,
            Category::GpuCompute,
            LineKind::Package,
            vec![
                ("period", format!("enum.package-period.{}", period.key())),
                ("hours", used.round_dp(2).to_string()),
            ],
            Some(used),
            cost,
        );
    }

    // Setup and uploads: in the no-GPU mode where there is one, else on the GPU.
    let setup_rate = profile
        .billing
        .no_gpu_mode_per_hour
        .as_ref()
        .map(|p| p.value)
        .unwrap_or(prices.gpu);
    let upload_hours = plan
        .data
        .as_ref()
        .map(|d| d.size_gb * Decimal::from(8192) / d.upload_mbps / Decimal::from(3600))
        .unwrap_or(Decimal::ZERO);
    push(
        &mut lines,
        Category::SetupNoGpu,
        LineKind::Setup,
        vec![("hours", plan.setup_hours.round_dp(2).to_string())],
        Some(plan.setup_hours),
        plan.setup_hours * setup_rate,
    );
    push(
        &mut lines,
        Category::SetupNoGpu,
        LineKind::Upload,
        vec![("hours", upload_hours.round_dp(2).to_string())],
        Some(upload_hours),
        upload_hours * setup_rate,
    );
    if let Some(d) = &plan.data {
        push(
            &mut lines,
            Category::Traffic,
            LineKind::Traffic,
            vec![("gb", d.size_gb.to_string())],
            None,
            d.size_gb * profile.storage.traffic_per_gb.value,
        );
    }

    // Stops: what a stopped instance still bills, or the GPU where stopping does not end billing.
    let mut stopped_hours = Decimal::ZERO;
    let mut warnings = Vec::new();
    if let Some(s) = &stops {
        stopped_hours = s.hours_each * Decimal::from(s.count);
        if profile.billing.stop_ends_gpu_billing.value {
            push(
                &mut lines,
                Category::StoppedIdle,
                LineKind::Stopped,
                vec![
                    ("count", s.count.to_string()),
                    ("hours", s.hours_each.round_dp(2).to_string()),
                ],
                Some(stopped_hours),
                stopped_hours * prices.stopped_fee,
            );
        } else {
            push(
                &mut lines,
                Category::StoppedIdle,
                LineKind::StoppedBilling,
                vec![
                    ("count", s.count.to_string()),
                    ("hours", s.hours_each.round_dp(2).to_string()),
                ],
                Some(stopped_hours),
                stopped_hours * prices.gpu,
            );
            warnings.push(Warning::StopKeepsBilling);
        }
    }
    let idle_cost = plan.forgotten_shutdown_hours * prices.gpu;
    push(
        &mut lines,
        Category::StoppedIdle,
        LineKind::Forgotten,
        vec![(
            "hours",
            plan.forgotten_shutdown_hours.round_dp(2).to_string(),
        )],
        Some(plan.forgotten_shutdown_hours),
        idle_cost,
    );

    // Spot: each preemption loses half a checkpoint interval and a restart.
    let mut rerun_hours = Decimal::ZERO;
    if let (Payment::Spot, Some(sp)) = (plan.payment, spot_price) {
        let spec = plan.spot.clone().unwrap_or_default();
        let interval =
            spec.checkpoint_every_hours
                .or(match (spec.checkpoint_every_epochs, per_epoch) {
                    (Some(e), Some(pe)) => Some(e * pe),
                    _ => None,
                });
        let restart = spec.restart_minutes / Decimal::from(60);
        for (_, count, hours) in &groups {
            let preemptions = spec.preemptions_per_day * hours / Decimal::from(24);
            let lost = match interval {
                Some(i) => i.min(*hours) / Decimal::from(2),
                None => *hours / Decimal::from(2),
            };
            rerun_hours += preemptions * (lost + restart) * Decimal::from(*count);
        }
        if interval.is_none() {
            warnings.push(Warning::SpotWithoutCheckpoints);
        }
        push(
            &mut lines,
            Category::PreemptionReruns,
            LineKind::Reruns,
            vec![
                ("rate", spec.preemptions_per_day.to_string()),
                ("hours", rerun_hours.round_dp(2).to_string()),
            ],
            Some(rerun_hours),
            rerun_hours * sp,
        );
    }

    // Storage above the free amount, per GB-day.
    let (storage_gb, storage_days) = plan
        .storage
        .as_ref()
        .map(|s| (s.gb, s.days))
        .unwrap_or((Decimal::ZERO, Decimal::ZERO));
    let billable_gb = (storage_gb - prices.free_gb).max(Decimal::ZERO);
    push(
        &mut lines,
        Category::Storage,
        LineKind::Storage,
        vec![
            ("gb", billable_gb.round_dp(2).to_string()),
            ("free", prices.free_gb.to_string()),
            ("days", storage_days.round_dp(2).to_string()),
        ],
        None,
        billable_gb * storage_days * prices.storage_gb_day,
    );

    // Free credit.
    let cash_before_credit: Decimal = lines.iter().map(|l| l.amount).sum();
    if plan.student && profile.student.free_credit.value > Decimal::ZERO {
        let credit = profile.student.free_credit.value.min(cash_before_credit);
        push(
            &mut lines,
            Category::Credit,
            LineKind::Credit,
            vec![],
            None,
            -credit,
        );
    }
    let cash_total: Decimal = lines.iter().map(|l| l.amount).sum();

    // The student's own time: waiting, setup, uploads, debugging.
    let wait_hours = (profile.timing.startup_minutes.value + profile.timing.queue_minutes.value)
        / Decimal::from(60)
        * Decimal::from(starts.max(1));
    let own_hours = wait_hours + plan.setup_hours + upload_hours + debug_hours;
    push(
        &mut lines,
        Category::OwnTime,
        LineKind::OwnTime,
        vec![("hours", own_hours.round_dp(2).to_string())],
        Some(own_hours),
        own_hours * plan.own_time_per_hour,
    );
    let total: Decimal = lines.iter().map(|l| l.amount).sum();
    let mut by_category = BTreeMap::new();
    for l in &lines {
        *by_category.entry(l.category).or_insert(Decimal::ZERO) += l.amount;
    }

    // Warnings.
    let training_cost: Decimal = lines
        .iter()
        .filter(|l| l.kind == LineKind::Runs)
        .map(|l| l.amount)
        .sum();
    if idle_cost > training_cost && idle_cost > Decimal::ZERO {
        warnings.push(Warning::ForgottenShutdownCostly {
            idle: idle_cost.round_dp(2),
            training: training_cost.round_dp(2),
        });
    }
    if billed > Decimal::ZERO {
        let pct = (billed - used) / billed * Decimal::from(100);
        if pct >= Decimal::from(10) && !matches!(plan.payment, Payment::Package(_)) {
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
    if let Some(cap) = cap {
        if longest > cap {
            warnings.push(Warning::RunExceedsCap {
                run_hours: longest.round_dp(2),
                cap_hours: cap,
            });
        }
    }
    if let Some(weekly) = &profile.quota.weekly_gpu_hours {
        let weeks = (storage_days.max((used + debug_hours) / Decimal::from(24)) / Decimal::from(7))
            .ceil()
            .max(Decimal::ONE);
        let allowed = weekly.value * weeks;
        if used + debug_hours + rerun_hours > allowed {
            warnings.push(Warning::QuotaExhausted {
                hours: (used + debug_hours + rerun_hours).round_dp(2),
                quota_hours: allowed,
            });
        }
    }
    if let Some(deadline) = &profile.lifecycle.release_after_stopped_days {
        let longest_stop_days = stops
            .as_ref()
            .map(|s| s.hours_each / Decimal::from(24))
            .unwrap_or(Decimal::ZERO);
        let kept_idle_days = (storage_days
            - (used + debug_hours + stopped_hours) / Decimal::from(24))
        .max(Decimal::ZERO);
        let idle_days = longest_stop_days.max(kept_idle_days);
        if idle_days > Decimal::from(deadline.value) {
            warnings.push(Warning::DataWiped {
                idle_days: idle_days.round_dp(1),
                deadline_days: deadline.value,
            });
        }
    }
    if let (Some(hours), Some(path)) = (
        &profile.lifecycle.scratch_wipe_after_stopped_hours,
        &profile.lifecycle.scratch_path,
    ) {
        if stops
            .as_ref()
            .is_some_and(|s| s.hours_each > Decimal::from(hours.value))
        {
            warnings.push(Warning::ScratchWiped {
                path: path.clone(),
                after_hours: hours.value,
            });
        }
    }
    if matches!(plan.payment, Payment::OnDemand) {
        let payg: Decimal = lines
            .iter()
            .filter(|l| matches!(l.kind, LineKind::Runs | LineKind::Waste))
            .map(|l| l.amount)
            .sum();
        for p in &offer.packages {
            if let Some(cost) = package_cost(p.period) {
                if cost < payg {
                    warnings.push(Warning::PackageCheaper {
                        period: p.period,
                        cost: cost.round_dp(2),
                        instead_of: payg.round_dp(2),
                    });
                }
            }
        }
    }
    if let Some(budget) = plan.budget {
        if cash_total > budget {
            warnings.push(Warning::BudgetExceeded {
                total: cash_total.round_dp(2),
                budget,
            });
        }
    }

    let queue_h = (profile.timing.startup_minutes.value + profile.timing.queue_minutes.value)
        / Decimal::from(60);
    let time_to_result_hours =
        queue_h + upload_hours + plan.setup_hours + debug_hours + used + rerun_hours;
    let timeline = timeline(
        plan,
        &lines,
        time_to_result_hours + stopped_hours + plan.forgotten_shutdown_hours,
        storage_days,
    );
    Ok(Quote {
        plan: plan.name.clone(),
        platform: profile.id.clone(),
        gpu: gpu_id,
        price_per_hour: run_price.round_dp(4),
        lines,
        by_category,
        cash_total: cny(cash_total),
        total: cny(total),
        run_hours: used.round_dp(4),
        longest_run_hours: longest.round_dp(4),
        time_to_result_hours: time_to_result_hours.round_dp(2),
        timeline,
        warnings,
    })
}

/// Spreads time-based costs evenly over the days the work spans and storage
/// over the days it is kept, then accumulates. Accurate to the day, which is
/// what a budget chart needs.
fn timeline(
    plan: &Plan,
    lines: &[LineItem],
    span_hours: Decimal,
    storage_days: Decimal,
) -> Vec<DayCost> {
    let work_days = (span_hours / Decimal::from(24)).ceil().max(Decimal::ONE);
    let days = work_days
        .max(storage_days.ceil())
        .min(Decimal::from(3650))
        .to_u32()
        .unwrap_or(1)
        .max(1);
    let work_days = work_days.to_u32().unwrap_or(1).clamp(1, days);
    let storage_days_n = storage_days.ceil().to_u32().unwrap_or(0).clamp(0, days);
    let (storage, rest): (Decimal, Decimal) = lines
        .iter()
        .filter(|l| l.category != Category::OwnTime)
        .fold((Decimal::ZERO, Decimal::ZERO), |(s, r), l| {
            if l.category == Category::Storage {
                (s + l.amount, r)
            } else {
                (s, r + l.amount)
            }
        });
    let mut out = Vec::with_capacity(days as usize);
    let mut cumulative = Decimal::ZERO;
    for day in 1..=days {
        if day <= work_days {
            cumulative += rest / Decimal::from(work_days);
        }
        if day <= storage_days_n && storage_days_n > 0 {
            cumulative += storage / Decimal::from(storage_days_n);
        }
        let date = plan
            .start_date
            .and_then(|d| d.checked_add_days(Days::new(u64::from(day - 1))));
        out.push(DayCost {
            day,
            date,
            cumulative: cumulative.round_dp(2),
        });
    }
    out
}
