//! Stage one of a quote: the prices that apply to the plan. The profile's
//! prices, replaced by the plan's own `[prices]`, after the student
//! discount, per instance (an instance of several GPUs bills each).

// Operators allowed on the bound stated in `quote/mod.rs`: every input is
// validated before the cost engine runs.
#![allow(
    clippy::arithmetic_side_effects,
    reason = "inputs bounded by Plan::check and profile validation; see quote/mod.rs"
)]

use rust_decimal::Decimal;

use crate::catalog::GpuCatalog;
use crate::error::InputError;
use crate::message::Message;
use crate::plan::{Disk, Payment, Plan};
use crate::platform::{Granularity, Offer, PackagePeriod, PlatformKind, PlatformProfile};

/// How setup and uploads are billed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SetupMode {
    /// In the platform's no-GPU mode.
    NoGpu,
    /// On the GPU instance, at its price.
    Gpu,
    /// Free: no instance to pay for (a campus login node, a free notebook).
    Free,
}

impl SetupMode {
    /// The catalog key that names it on a bill line.
    pub fn key(self) -> &'static str {
        match self {
            Self::NoGpu => "enum.setup-mode.no-gpu",
            Self::Gpu => "enum.setup-mode.gpu",
            Self::Free => "enum.setup-mode.free",
        }
    }
}

/// The prices that apply to this plan.
#[derive(Debug, Clone)]
pub struct Prices {
    /// An instance-hour on demand.
    pub gpu: Decimal,
    /// An instance-hour of the runs (the spot price on spot).
    pub run: Decimal,
    /// An hour of the debug card.
    pub debug_gpu: Decimal,
    /// The debug card as a person reads it ("RTX 3060 12GB").
    pub debug_card: String,
    /// An hour stopped (the occupancy fee).
    pub stopped_fee: Decimal,
    /// An hour of setup and uploads.
    pub setup: Decimal,
    /// How setup is billed.
    pub setup_mode: SetupMode,
    /// A GB-day of the instance disk above its free amount.
    pub storage_gb_day: Decimal,
    /// GB of the instance disk free.
    pub free_gb: Decimal,
    /// A GB-day of persistent storage, when the platform has it.
    pub persistent_gb_day: Option<Decimal>,
    /// GB of persistent storage free.
    pub persistent_free_gb: Decimal,
    /// A GB downloaded.
    pub egress_per_gb: Decimal,
    /// The billing unit.
    pub granularity: Granularity,
    /// The minimum charge per start, minutes.
    pub minimum_minutes: u32,
    /// A package of the plan's period, when it buys packages.
    pub package: Option<(PackagePeriod, Decimal)>,
    /// Whether the runs are spot.
    pub spot: bool,
    /// Where the platform sells its data disk in sizes: the size the plan's
    /// disk is billed as (GB) and what it costs a day (the size's price, or
    /// the plan's own price per GB on that size).
    pub disk: Option<(Decimal, Decimal)>,
}

/// The offer the plan rents and what an instance of it is.
pub struct Rental<'a> {
    /// The offer.
    pub offer: &'a Offer,
    /// GPUs in one instance.
    pub gpus: u32,
    /// The instance as a bill line names it ("4 x rtx4090").
    pub name: String,
    /// The student discount (1 without one).
    pub discount: Decimal,
}

/// The offer, the instance and the prices of `plan` on `profile`.
pub fn prices<'a>(
    plan: &Plan,
    profile: &'a PlatformProfile,
    catalog: &GpuCatalog,
) -> Result<(Rental<'a>, Prices), InputError> {
    let offer = profile.offer(&plan.gpu, catalog)?;
    let gpus = super::instance_gpus(plan, offer, profile)?;
    let per_instance = Decimal::from(gpus);
    let discount = if plan.student {
        profile.student.discount.value
    } else {
        Decimal::ONE
    };
    let o = &plan.prices;
    let gpu = o.gpu_per_hour.unwrap_or(offer.price_per_hour.typical) * discount * per_instance;
    let spot = spot_price(plan, profile, offer, discount * per_instance)?;
    let (debug_gpu, debug_card) = debug_rate(plan, profile, catalog, discount)?;
    // Setting up on the GPU happens on the instance the runs use: a spot
    // instance's setup bills at the spot price.
    let (setup, setup_mode) = setup_rate(profile, spot.unwrap_or(gpu));
    let persistent = profile.storage.persistent.as_ref();
    let prices = Prices {
        gpu,
        run: spot.unwrap_or(gpu),
        debug_gpu,
        debug_card,
        stopped_fee: o
            .stopped_fee_per_hour
            .unwrap_or(profile.billing.stopped_fee_per_hour.value),
        setup,
        setup_mode,
        storage_gb_day: disk_rate(plan, profile),
        free_gb: o.free_storage_gb.unwrap_or(profile.storage.free_gb.value),
        persistent_gb_day: o
            .persistent_per_gb_day
            .or(persistent.map(|p| p.price_per_gb_day.value)),
        persistent_free_gb: persistent.map(|p| p.free_gb.value).unwrap_or_default(),
        egress_per_gb: o
            .egress_per_gb
            .or(profile.storage.egress_per_gb.as_ref().map(|e| e.value))
            .unwrap_or_default(),
        granularity: o.granularity.unwrap_or(profile.billing.granularity.value),
        minimum_minutes: o
            .minimum_charge_minutes
            .unwrap_or(profile.billing.minimum_charge_minutes.value),
        package: package(plan, profile, offer, discount * per_instance)?,
        spot: spot.is_some(),
        disk: None,
    };
    let prices = Prices {
        disk: disk_size(plan, profile, prices.storage_gb_day)?,
        ..prices
    };
    check_storage(plan, profile, &prices)?;
    // The card as a person reads it ("RTX 4090"), not its id.
    let card = catalog
        .get(&offer.gpu)
        .map(|g| g.label())
        .unwrap_or_else(|_| offer.gpu.clone());
    let name = if gpus > 1 {
        format!("{gpus} × {card}")
    } else {
        card
    };
    Ok((
        Rental {
            offer,
            gpus,
            name,
            discount,
        },
        prices,
    ))
}

/// The debugging card's hourly price (the plan's own, else the platform's,
/// with the student discount) and its name as a person reads it; zero and
/// empty without a debugging phase.
fn debug_rate(
    plan: &Plan,
    profile: &PlatformProfile,
    catalog: &GpuCatalog,
    discount: Decimal,
) -> Result<(Decimal, String), InputError> {
    let Some(d) = &plan.debug else {
        return Ok((Decimal::ZERO, String::new()));
    };
    let offer = profile.offer(&d.gpu, catalog).map_err(|e| InputError {
        field: "debug.gpu".into(),
        ..e
    })?;
    let rate = plan
        .prices
        .debug_gpu_per_hour
        .unwrap_or(offer.price_per_hour.typical)
        * discount;
    let card = catalog
        .get(&d.gpu)
        .map(|g| g.label())
        .unwrap_or_else(|_| d.gpu.clone());
    Ok((rate, card))
}

/// The instance disk's price per GB-day: the plan's own (a month's over 30
/// days), else the package's disk price, else the platform's.
fn disk_rate(plan: &Plan, profile: &PlatformProfile) -> Decimal {
    let o = &plan.prices;
    o.storage_per_gb_day
        .or(o.storage_per_gb_month.map(|m| m / Decimal::from(30)))
        .or(package_disk(plan, profile).map(|f| f.value))
        .unwrap_or(profile.storage.price_per_gb_day.value)
}

/// The instance disk's price on the plan's package, where the platform
/// prices it apart from pay-as-you-go and the plan sets no disk price of
/// its own: the disk is then bought with the package.
pub(super) fn package_disk<'a>(
    plan: &Plan,
    profile: &'a PlatformProfile,
) -> Option<&'a crate::sourced::Fact<Decimal>> {
    let o = &plan.prices;
    match plan.payment {
        Payment::Package(period)
            if o.storage_per_gb_day.is_none() && o.storage_per_gb_month.is_none() =>
        {
            profile.storage.package_price(period)
        }
        _ => None,
    }
}

/// The spot price of an instance, on a spot plan.
fn spot_price(
    plan: &Plan,
    profile: &PlatformProfile,
    offer: &Offer,
    scale: Decimal,
) -> Result<Option<Decimal>, InputError> {
    if plan.payment != Payment::Spot {
        return Ok(None);
    }
    plan.prices
        .spot_per_hour
        .or(offer.spot_per_hour.as_ref().map(|s| s.value))
        .map(|p| Some(p * scale))
        .ok_or_else(|| {
            InputError::new(
                "payment",
                format!("{} offers no spot price for {}", profile.id, offer.gpu),
                "on-demand, or set prices.spot_per_hour",
            )
            .said(
                Message::new("error.noSpot")
                    .with_both("platform", &profile.name.zh, &profile.name.en)
                    .with("gpu", &offer.gpu),
                Some(Message::new("allowed.noSpot")),
            )
        })
}

/// Setup and uploads: in the no-GPU mode where there is one, free where
/// there is no instance to pay for, else on the GPU.
fn setup_rate(profile: &PlatformProfile, gpu: Decimal) -> (Decimal, SetupMode) {
    match profile.kind {
        PlatformKind::CampusHpc | PlatformKind::HostedNotebook => (Decimal::ZERO, SetupMode::Free),
        _ => match &profile.billing.no_gpu_mode_per_hour {
            Some(p) => (p.value, SetupMode::NoGpu),
            None => (gpu, SetupMode::Gpu),
        },
    }
}

/// The price of `period`'s package for an instance, when the offer (or
/// the plan) has one.
pub fn package_price(
    plan: &Plan,
    offer: &Offer,
    period: PackagePeriod,
    scale: Decimal,
) -> Option<Decimal> {
    let chosen = matches!(plan.payment, Payment::Package(p) if p == period);
    plan.prices
        .package_price
        .filter(|_| chosen)
        .or(offer
            .packages
            .iter()
            .find(|p| p.period == period)
            .map(|p| p.price))
        .map(|p| p * scale)
}

/// The package a package plan buys, and its price.
fn package(
    plan: &Plan,
    profile: &PlatformProfile,
    offer: &Offer,
    scale: Decimal,
) -> Result<Option<(PackagePeriod, Decimal)>, InputError> {
    let Payment::Package(period) = plan.payment else {
        return Ok(None);
    };
    match package_price(plan, offer, period, scale) {
        Some(p) => Ok(Some((period, p))),
        None => Err(InputError::new(
            "payment",
            format!(
                "{} offers no {} package for {}",
                profile.id,
                period.key(),
                offer.gpu
            ),
            "on-demand, or set prices.package_price",
        )
        .said(
            Message::new("error.noPackage")
                .with_both("platform", &profile.name.zh, &profile.name.en)
                .with("period", format!("enum.package-period.{}", period.key()))
                .with("gpu", &offer.gpu),
            Some(Message::new("allowed.noPackage")),
        )),
    }
}

/// GB the instance disk holds: what the plan keeps there, at least the
/// platform's smallest billed disk; none where the plan keeps nothing on
/// it (no `[storage]`, 0 GB, or its data on persistent storage): 揽睿星舟's
/// data disk is optional, and a student who rents none pays for none (seed
/// 003's three 20-minute jobs are "three full hours", 7.50, no disk).
pub fn instance_disk_gb(plan: &Plan, profile: &PlatformProfile) -> Decimal {
    let Some(kept) = plan
        .storage
        .as_ref()
        .filter(|s| s.on == Disk::Instance)
        .map(|s| s.gb)
        .filter(|gb| !gb.is_zero())
    else {
        return Decimal::ZERO;
    };
    let minimum = profile
        .storage
        .minimum_gb
        .as_ref()
        .map(|m| m.value)
        .unwrap_or_default();
    kept.max(minimum)
}

/// The size the instance disk is billed as where the platform sells it in
/// sizes, and its price a day; a disk larger than the largest size is
/// refused naming `storage.gb`.
fn disk_size(
    plan: &Plan,
    profile: &PlatformProfile,
    per_gb_day: Decimal,
) -> Result<Option<(Decimal, Decimal)>, InputError> {
    let gb = instance_disk_gb(plan, profile);
    if gb.is_zero() {
        return Ok(None);
    }
    let own_price =
        plan.prices.storage_per_gb_day.is_some() || plan.prices.storage_per_gb_month.is_some();
    match profile.storage.size_for(gb) {
        None => Ok(None),
        Some(Ok(size)) if own_price => Ok(Some((size.gb, size.gb * per_gb_day))),
        Some(Ok(size)) => Ok(Some((size.gb, size.per_hour * Decimal::from(24)))),
        Some(Err(largest)) => Err(InputError::new(
            "storage.gb",
            format!(
                "{} GB is more than {}'s largest data disk, {} GB",
                gb.normalize(),
                profile.id,
                largest.gb.normalize()
            ),
            format!("at most {} GB", largest.gb.normalize()),
        )
        .said(
            Message::new("error.diskTooLarge")
                .with("gb", gb.normalize())
                .with_both("platform", &profile.name.zh, &profile.name.en)
                .with("largest", largest.gb.normalize()),
            Some(Message::new("allowed.atMostGb").with("largest", largest.gb.normalize())),
        )),
    }
}

fn check_storage(
    plan: &Plan,
    profile: &PlatformProfile,
    prices: &Prices,
) -> Result<(), InputError> {
    match &plan.storage {
        Some(s) if s.on == Disk::Persistent && prices.persistent_gb_day.is_none() => {
            Err(InputError::new(
                "storage.on",
                format!("{} offers no persistent storage", profile.id),
                "instance, or set prices.persistent_per_gb_day",
            )
            .said(
                Message::new("error.noPersistent").with_both(
                    "platform",
                    &profile.name.zh,
                    &profile.name.en,
                ),
                Some(Message::new("allowed.noPersistent")),
            ))
        }
        _ => Ok(()),
    }
}
