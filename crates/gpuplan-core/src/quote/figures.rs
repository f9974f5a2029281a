//! Which of the platform's figures each bill line rests on, and how much of
//! the bill rests on figures nobody checked against the platform (a seed
//! article or an estimate). A figure the plan sets itself (`[prices]`) is
//! the student's own and never counts as unverified.

// Operators allowed on the bound stated in `quote/mod.rs`: every input is
// validated before the cost engine runs.
#![allow(
    clippy::arithmetic_side_effects,
    reason = "inputs bounded by Plan::check and profile validation; see quote/mod.rs"
)]

use rust_decimal::Decimal;
use serde::Serialize;

use super::prices::{Prices, SetupMode};
use super::{LineItem, LineKind};
use crate::catalog::GpuCatalog;
use crate::plan::{Payment, Plan};
use crate::platform::{Offer, PlatformProfile};
use crate::sourced::Grade;

/// Share of a bill (percent) resting on unverified figures above which the
/// quote says so beside the total.
pub const UNVERIFIED_NOTE_PERCENT: u32 = 10;

/// A platform figure a bill rests on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub enum Figure {
    /// The offer's price per GPU-hour.
    PricePerHour,
    /// The offer's spot price.
    SpotPerHour,
    /// The debug card's price.
    DebugPricePerHour,
    /// The student discount.
    StudentDiscount,
    /// The billing unit.
    Granularity,
    /// The minimum charge per start.
    MinimumCharge,
    /// Whether a stop ends GPU billing.
    StopEndsGpuBilling,
    /// The stopped fee.
    StoppedFee,
    /// The no-GPU mode's price.
    NoGpuMode,
    /// Peak-hour prices.
    PeakMultiplier,
    /// The instance disk's price.
    StoragePrice,
    /// The instance disk's free amount.
    FreeStorage,
    /// Whether the disk bills while stopped.
    StorageWhileStopped,
    /// The smallest disk billed.
    MinimumDisk,
    /// The release deadline of a stopped instance.
    ReleaseDeadline,
    /// Persistent storage's price.
    PersistentPrice,
    /// Persistent storage's free amount.
    PersistentFree,
    /// Traffic in.
    TrafficPrice,
    /// Traffic out.
    EgressPrice,
    /// The package price.
    PackagePrice,
    /// The student credit.
    StudentCredit,
    /// The newcomer coupon.
    NewcomerCredit,
}

impl Figure {
    /// As spelled in JSON and catalog keys (`figure.*`).
    pub fn key(self) -> &'static str {
        match self {
            Self::PricePerHour => "price-per-hour",
            Self::SpotPerHour => "spot-per-hour",
            Self::DebugPricePerHour => "debug-price-per-hour",
            Self::StudentDiscount => "student-discount",
            Self::Granularity => "granularity",
            Self::MinimumCharge => "minimum-charge",
            Self::StopEndsGpuBilling => "stop-ends-gpu-billing",
            Self::StoppedFee => "stopped-fee",
            Self::NoGpuMode => "no-gpu-mode",
            Self::PeakMultiplier => "peak-multiplier",
            Self::StoragePrice => "storage-price",
            Self::FreeStorage => "free-storage",
            Self::StorageWhileStopped => "storage-while-stopped",
            Self::MinimumDisk => "minimum-disk",
            Self::ReleaseDeadline => "release-deadline",
            Self::PersistentPrice => "persistent-price",
            Self::PersistentFree => "persistent-free",
            Self::TrafficPrice => "traffic-price",
            Self::EgressPrice => "egress-price",
            Self::PackagePrice => "package-price",
            Self::StudentCredit => "student-credit",
            Self::NewcomerCredit => "newcomer-credit",
        }
    }

    /// Whether a plan's own price (`[prices]`, `gpuplan override set`, the
    /// price box) can stand in for this figure: the advice for an old one
    /// is then "check it and set yours", else "check it, or a newer pack".
    /// These are the figures `billing` and `storage` pass through `own`
    /// (a `PriceOverrides` field each); a new override adds its figure here.
    pub fn own_price_replaces(self) -> bool {
        matches!(
            self,
            Self::PricePerHour
                | Self::SpotPerHour
                | Self::DebugPricePerHour
                | Self::StoppedFee
                | Self::StoragePrice
                | Self::PersistentPrice
                | Self::EgressPrice
                | Self::PackagePrice
                | Self::MinimumCharge
                | Self::Granularity
                | Self::FreeStorage
        )
    }

    /// A price (money per unit), whose date says how old a bill's prices
    /// are; rules and allowances (units, deadlines, free amounts) age too,
    /// but a bill's "prices as of" is about money.
    pub fn is_price(self) -> bool {
        matches!(
            self,
            Self::PricePerHour
                | Self::SpotPerHour
                | Self::DebugPricePerHour
                | Self::StudentDiscount
                | Self::StoppedFee
                | Self::NoGpuMode
                | Self::StoragePrice
                | Self::PersistentPrice
                | Self::TrafficPrice
                | Self::EgressPrice
                | Self::PackagePrice
        )
    }

    /// Every figure.
    pub const ALL: [Self; 22] = [
        Self::PricePerHour,
        Self::SpotPerHour,
        Self::DebugPricePerHour,
        Self::StudentDiscount,
        Self::Granularity,
        Self::MinimumCharge,
        Self::StopEndsGpuBilling,
        Self::StoppedFee,
        Self::NoGpuMode,
        Self::PeakMultiplier,
        Self::StoragePrice,
        Self::FreeStorage,
        Self::StorageWhileStopped,
        Self::MinimumDisk,
        Self::ReleaseDeadline,
        Self::PersistentPrice,
        Self::PersistentFree,
        Self::TrafficPrice,
        Self::EgressPrice,
        Self::PackagePrice,
        Self::StudentCredit,
        Self::NewcomerCredit,
    ];
}

/// A figure and its grade.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct GradedFigure {
    /// Which figure.
    pub figure: Figure,
    /// Its grade.
    pub grade: Grade,
}

/// How much of a bill rests on figures nobody checked against the platform.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Unverified {
    /// Money on lines resting on at least one unverified figure (their
    /// absolute amounts), CNY.
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub amount: Decimal,
    /// That money as a share of all cash lines (absolute amounts), whole
    /// percent.
    pub percent: u32,
    /// The unverified figures the bill rests on, each once.
    pub figures: Vec<GradedFigure>,
    /// Whether the share is over [`UNVERIFIED_NOTE_PERCENT`]: the quote then
    /// says so beside the total.
    pub noted: bool,
}

/// The grade of each figure this plan takes from the profile (none where the
/// plan sets it itself or it does not apply), and the date its source shows.
pub struct Grades(Vec<(Figure, Grade, Option<String>)>);

/// A figure's grade and date, from any graded value.
fn of<T>(f: &crate::sourced::Fact<T>) -> (Grade, Option<String>) {
    (f.grade, f.observed.clone())
}

/// A figure with its grade and date, or none where the plan sets it itself
/// or it does not apply.
type Graded = (Figure, Option<(Grade, Option<String>)>);

/// None where the plan sets the figure itself (`set`).
fn own(set: bool, g: Option<(Grade, Option<String>)>) -> Option<(Grade, Option<String>)> {
    if set {
        None
    } else {
        g
    }
}

impl Grades {
    /// The grades of the figures `plan` takes from `profile`: its prices
    /// and billing rules, its storage, its credits.
    pub fn of(
        plan: &Plan,
        profile: &PlatformProfile,
        offer: &Offer,
        prices: &Prices,
        catalog: &GpuCatalog,
    ) -> Self {
        Self(
            billing(plan, profile, offer, prices, catalog)
                .into_iter()
                .chain(storage(plan, profile, offer))
                .chain(credits(plan, profile))
                .filter_map(|(f, g)| g.map(|(g, d)| (f, g, d)))
                .collect(),
        )
    }

    fn grade(&self, f: Figure) -> Option<Grade> {
        self.0.iter().find(|(x, ..)| *x == f).map(|(_, g, _)| *g)
    }

    /// The date the source of figure `f` shows, where it has one.
    fn observed(&self, f: Figure) -> Option<String> {
        self.0
            .iter()
            .find(|(x, ..)| *x == f)
            .and_then(|(.., d)| d.clone())
    }
}

/// The prices and billing rules a plan rests on.
fn billing(
    plan: &Plan,
    profile: &PlatformProfile,
    offer: &Offer,
    prices: &Prices,
    catalog: &GpuCatalog,
) -> [Graded; 10] {
    let o = &plan.prices;
    let b = &profile.billing;
    let debug = plan
        .debug
        .as_ref()
        .and_then(|d| profile.offer(&d.gpu, catalog).ok())
        .map(|d| (d.price_per_hour.grade, d.price_per_hour.observed.clone()));
    let setup = match prices.setup_mode {
        SetupMode::NoGpu => b.no_gpu_mode_per_hour.as_ref().map(of),
        _ => None,
    };
    [
        (
            Figure::PricePerHour,
            own(
                o.gpu_per_hour.is_some(),
                Some((
                    offer.price_per_hour.grade,
                    offer.price_per_hour.observed.clone(),
                )),
            ),
        ),
        (
            Figure::SpotPerHour,
            own(
                o.spot_per_hour.is_some(),
                offer.spot_per_hour.as_ref().map(of),
            ),
        ),
        (
            Figure::DebugPricePerHour,
            own(o.debug_gpu_per_hour.is_some(), debug),
        ),
        (
            Figure::StudentDiscount,
            plan.student.then_some(of(&profile.student.discount)),
        ),
        (
            Figure::Granularity,
            own(o.granularity.is_some(), Some(of(&b.granularity))),
        ),
        (
            Figure::MinimumCharge,
            own(
                o.minimum_charge_minutes.is_some(),
                Some(of(&b.minimum_charge_minutes)),
            ),
        ),
        (
            Figure::StopEndsGpuBilling,
            Some(of(&b.stop_ends_gpu_billing)),
        ),
        (
            Figure::StoppedFee,
            own(
                o.stopped_fee_per_hour.is_some(),
                Some(of(&b.stopped_fee_per_hour)),
            ),
        ),
        (Figure::NoGpuMode, setup),
        (
            Figure::PeakMultiplier,
            b.peak.as_ref().map(|p| of(&p.multiplier)),
        ),
    ]
}

/// The storage, traffic and package figures a plan rests on.
fn storage(plan: &Plan, profile: &PlatformProfile, offer: &Offer) -> [Graded; 10] {
    let o = &plan.prices;
    let s = &profile.storage;
    let package = match plan.payment {
        Payment::Package(period) => own(
            o.package_price.is_some(),
            offer
                .packages
                .iter()
                .find(|p| p.period == period)
                .map(|p| (p.grade, p.observed.clone())),
        ),
        _ => None,
    };
    [
        (
            Figure::StoragePrice,
            own(
                o.storage_per_gb_day.is_some() || o.storage_per_gb_month.is_some(),
                // A disk sold in sizes is priced by its sizes; on a
                // package, by the package's disk price where stated.
                Some(s.sizes.as_ref().map_or_else(
                    || {
                        of(super::prices::package_disk(plan, profile)
                            .unwrap_or(&s.price_per_gb_day))
                    },
                    of,
                )),
            ),
        ),
        (
            Figure::FreeStorage,
            own(o.free_storage_gb.is_some(), Some(of(&s.free_gb))),
        ),
        (
            Figure::StorageWhileStopped,
            Some(of(&s.bills_while_stopped)),
        ),
        (Figure::MinimumDisk, s.minimum_gb.as_ref().map(of)),
        (
            Figure::ReleaseDeadline,
            profile
                .lifecycle
                .release_after_stopped_days
                .as_ref()
                .map(of),
        ),
        (
            Figure::PersistentPrice,
            own(
                o.persistent_per_gb_day.is_some(),
                s.persistent.as_ref().map(|p| of(&p.price_per_gb_day)),
            ),
        ),
        (
            Figure::PersistentFree,
            s.persistent.as_ref().map(|p| of(&p.free_gb)),
        ),
        (Figure::TrafficPrice, Some(of(&s.traffic_per_gb))),
        (
            Figure::EgressPrice,
            own(o.egress_per_gb.is_some(), s.egress_per_gb.as_ref().map(of)),
        ),
        (Figure::PackagePrice, package),
    ]
}

/// The credits a plan counts.
fn credits(plan: &Plan, profile: &PlatformProfile) -> [Graded; 2] {
    [
        (
            Figure::StudentCredit,
            plan.student.then_some(of(&profile.student.free_credit)),
        ),
        (
            Figure::NewcomerCredit,
            profile
                .student
                .newcomer_credit
                .as_ref()
                .filter(|_| plan.newcomer)
                .map(of),
        ),
    ]
}

/// The figures a line of `kind` rests on. `spot`: the runs are priced at the
/// spot price; `setup_on_gpu`: setup and uploads run on the GPU.
fn rests_on(kind: LineKind, spot: bool, setup_on_gpu: bool) -> Vec<Figure> {
    use Figure::*;
    let run = if spot { SpotPerHour } else { PricePerHour };
    match kind {
        LineKind::Runs => vec![run, StudentDiscount],
        LineKind::PeakSurcharge => vec![run, PeakMultiplier, StudentDiscount],
        LineKind::Debug => vec![DebugPricePerHour, StudentDiscount],
        LineKind::DebugWaste => vec![DebugPricePerHour, Granularity, MinimumCharge],
        LineKind::Waste | LineKind::Rounding => vec![run, Granularity, MinimumCharge],
        LineKind::Package => vec![PackagePrice],
        LineKind::Setup | LineKind::Upload if setup_on_gpu => vec![run, StudentDiscount],
        LineKind::Setup | LineKind::Upload => vec![NoGpuMode],
        LineKind::Traffic => vec![TrafficPrice],
        LineKind::Egress => vec![EgressPrice],
        LineKind::Stopped => vec![StoppedFee, StopEndsGpuBilling],
        LineKind::StoppedBilling => vec![PricePerHour, StopEndsGpuBilling],
        LineKind::IdleBetween | LineKind::Forgotten => vec![run, StudentDiscount],
        LineKind::Reruns => vec![SpotPerHour],
        LineKind::Storage | LineKind::DataDisk => vec![
            StoragePrice,
            FreeStorage,
            StorageWhileStopped,
            MinimumDisk,
            ReleaseDeadline,
        ],
        LineKind::PersistentStorage => vec![PersistentPrice, PersistentFree],
        LineKind::Credit => vec![StudentCredit],
        LineKind::NewcomerCredit => vec![NewcomerCredit],
        LineKind::Coupon | LineKind::OwnTime => vec![],
    }
}

/// The date of the oldest price the bill `lines` rests on (each a price
/// with a line of money on it), and which price it is: how old the
/// quote's prices are. A month (`2026-10`) counts as its first day.
pub fn prices_observed(
    lines: &[LineItem],
    grades: &Grades,
    prices: &Prices,
) -> Option<(String, Figure)> {
    let setup_on_gpu = prices.setup_mode == SetupMode::Gpu;
    let day = |d: &str| {
        if d.len() == 7 {
            format!("{d}-01")
        } else {
            d.to_owned()
        }
    };
    lines
        .iter()
        .filter(|l| !l.amount.is_zero())
        .flat_map(|l| rests_on(l.kind, prices.spot, setup_on_gpu))
        .filter(|f| f.is_price())
        .filter_map(|f| grades.observed(f).map(|d| (day(&d), f)))
        .min()
}

/// How much of the bill `lines` rests on unverified figures.
pub fn unverified(lines: &[LineItem], grades: &Grades, prices: &Prices) -> Unverified {
    let setup_on_gpu = prices.setup_mode == SetupMode::Gpu;
    let mut all = Decimal::ZERO;
    let mut amount = Decimal::ZERO;
    let mut figures: Vec<GradedFigure> = Vec::new();
    for l in lines.iter().filter(|l| l.kind != LineKind::OwnTime) {
        all += l.amount.abs();
        let weak: Vec<GradedFigure> = rests_on(l.kind, prices.spot, setup_on_gpu)
            .into_iter()
            .filter_map(|f| {
                grades
                    .grade(f)
                    .map(|grade| GradedFigure { figure: f, grade })
            })
            .filter(|g| g.grade.is_unverified())
            .collect();
        if !weak.is_empty() {
            amount += l.amount.abs();
        }
        for g in weak {
            if !figures.iter().any(|x| x.figure == g.figure) {
                figures.push(g);
            }
        }
    }
    let percent = if all.is_zero() {
        0
    } else {
        use rust_decimal::prelude::ToPrimitive;
        (amount * Decimal::from(100) / all)
            .round()
            .to_u32()
            .unwrap_or(0)
    };
    Unverified {
        // Two places like every amount ("0.00", not "0").
        amount: super::cny(amount),
        percent,
        noted: percent > UNVERIFIED_NOTE_PERCENT && !figures.is_empty(),
        figures,
    }
}
