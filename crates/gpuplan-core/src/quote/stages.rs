//! The bill, stage by stage, read off one timeline ([`super::schedule`]):
//! setup and data (on every fresh instance), debugging, the GPU (runs or
//! packages, billing units, reruns, idle running, forgotten time), peak
//! surcharges on every running hour wherever it falls, stops, storage, and
//! credit. Each stage adds its lines to the [`Bill`]; none recomputes what
//! another did.

// Operators allowed on the bound stated in `quote/mod.rs`: every input is
// validated before the cost engine runs.
#![allow(
    clippy::arithmetic_side_effects,
    reason = "inputs bounded by Plan::check and profile validation; see quote/mod.rs"
)]

use chrono::Datelike;
use rust_decimal::Decimal;

use super::prices::{Prices, Rental};
use super::schedule::{self, Group, Interval, Lane, Rate};
use super::{billed_hours, cny, h2, seconds_param, Category, LineItem, LineKind, Params};
use crate::plan::{Between, Disk, Plan};
use crate::platform::PlatformProfile;

/// The accumulating bill.
#[derive(Default)]
pub struct Bill {
    /// The lines so far, each rounded to the fen.
    pub lines: Vec<LineItem>,
    /// Each line's amount before rounding (same order): a surcharge on
    /// them is rounded once with them ([`peak`]).
    exact: Vec<Decimal>,
}

impl Bill {
    /// Adds a line (a zero amount is left out, except the runs' line).
    pub fn push(
        &mut self,
        kind: LineKind,
        params: Vec<(&'static str, String)>,
        hours: Option<Decimal>,
        amount: Decimal,
    ) {
        self.push_exact(kind, params, hours, amount, amount);
    }

    /// Adds the rest of a charge printed as two lines: `amount` printed
    /// (the whole charge rounded less the first line), `exact` its own share
    /// before rounding, which a surcharge on it is rounded once with.
    fn push_exact(
        &mut self,
        kind: LineKind,
        params: Vec<(&'static str, String)>,
        hours: Option<Decimal>,
        amount: Decimal,
        exact: Decimal,
    ) {
        // A line that prints as 0.00 says nothing (a sub-second remainder,
        // a residue of seconds / 3600) and adds nothing to the printed total.
        if cny(amount).is_zero() && kind != LineKind::Runs {
            return;
        }
        self.lines.push(LineItem {
            category: kind.category(),
            kind,
            params: Params(params),
            hours: hours.map(h2),
            amount: cny(amount),
        });
        self.exact.push(exact);
    }

    /// The exact and the printed sums of the lines of `kinds`.
    fn exact_and_printed(&self, kinds: &[LineKind]) -> (Decimal, Decimal) {
        self.lines
            .iter()
            .zip(&self.exact)
            .filter(|(l, _)| kinds.contains(&l.kind))
            .fold((Decimal::ZERO, Decimal::ZERO), |(e, p), (l, x)| {
                (e + *x, p + l.amount)
            })
    }

    /// The sum of the printed lines `f` picks.
    pub fn sum(&self, f: impl Fn(&LineItem) -> bool) -> Decimal {
        self.lines.iter().filter(|l| f(l)).map(|l| l.amount).sum()
    }

    /// The sum of the printed lines of each category.
    pub fn by_category(&self) -> std::collections::BTreeMap<Category, Decimal> {
        let mut out = std::collections::BTreeMap::new();
        for l in &self.lines {
            *out.entry(l.category).or_insert(Decimal::ZERO) += l.amount;
        }
        out
    }
}

/// What the GPU stage found, for the warnings and the answer.
pub struct GpuUse {
    /// GPU hours the runs used.
    pub used: Decimal,
    /// Hours billed for all starts (units and minimums applied).
    pub billed: Decimal,
    /// Billed but unused.
    pub waste: Decimal,
    /// Expected hours redone after preemptions.
    pub reruns: Decimal,
    /// The longest single run.
    pub longest: Decimal,
    /// Idle hours kept running between runs.
    pub idle_between: Decimal,
}

/// Setup and the data onto every instance, the first and each fresh one
/// after a release; traffic in for each; downloads out.
pub fn setup_and_data(
    bill: &mut Bill,
    plan: &Plan,
    profile: &PlatformProfile,
    prices: &Prices,
    lanes: &[Lane],
    upload_hours: Decimal,
) {
    let instances = Decimal::from(plan.parallel);
    let fresh: u32 = lanes.iter().map(|l| l.reprovisions).sum();
    // Every instance is set up: the first of each lane and each fresh one
    // after a release. Each is given the data too, unless the data lives on
    // persistent storage, which outlives the releases.
    let set_up = instances + Decimal::from(fresh);
    let kept: u32 = lanes.iter().map(|l| l.data_kept).sum();
    // A wiped scratch directory gets the data again on the same instance.
    let wiped: u32 = lanes.iter().map(|l| l.scratch_wipes).sum();
    let uploads = if plan.data_persists() {
        instances
    } else {
        set_up - Decimal::from(kept) + Decimal::from(wiped)
    };
    let mode = prices.setup_mode.key().to_owned();
    bill.push(
        LineKind::Setup,
        vec![
            ("time_s", seconds_param(plan.setup_hours)),
            ("instances", set_up.to_string()),
            ("mode", mode.clone()),
        ],
        Some(plan.setup_hours * set_up),
        plan.setup_hours * set_up * prices.setup,
    );
    bill.push(
        LineKind::Upload,
        vec![
            ("time_s", seconds_param(upload_hours)),
            ("uploads", uploads.to_string()),
            ("mode", mode),
        ],
        Some(upload_hours * uploads),
        upload_hours * uploads * prices.setup,
    );
    if let Some(d) = &plan.data {
        bill.push(
            LineKind::Traffic,
            vec![
                ("gb", (d.size_gb * uploads).normalize().to_string()),
                ("uploads", uploads.to_string()),
            ],
            None,
            d.size_gb * uploads * profile.storage.traffic_per_gb.value,
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
}

/// Whether an instance sits stopped as long as the platform's deadline
/// ("stopped 15 days in a row is released": exactly the deadline already
/// counts; where a package spares the instance, after the package runs out).
pub fn deadline_passed(lanes: &[Lane]) -> bool {
    lanes
        .iter()
        .any(|l| l.gaps.iter().any(|g| g.reaches_deadline()))
}

/// Debugging on a cheap card first (one start, on the first instance).
pub fn debug(bill: &mut Bill, plan: &Plan, prices: &Prices) {
    let Some(d) = &plan.debug else { return };
    let b = billed_hours(d.hours, prices.granularity, prices.minimum_minutes);
    bill.push(
        LineKind::Debug,
        vec![
            ("gpu", prices.debug_card.clone()),
            ("time_s", seconds_param(d.hours)),
        ],
        Some(d.hours),
        d.hours * prices.debug_gpu,
    );
    bill.push_exact(
        LineKind::DebugWaste,
        vec![("time_s", seconds_param(b - d.hours))],
        Some(b - d.hours),
        rest_of(b * prices.debug_gpu, cny(d.hours * prices.debug_gpu)),
        (b - d.hours) * prices.debug_gpu,
    );
}

/// The second line of one charge printed as two (the runs and the billing
/// unit's rest; a base price and its peak surcharge): the whole charge
/// rounded once, less the first line as printed. Rounding each half up on
/// its own would bill 0.13 + 0.13 for a charge of 0.25. Never below zero
/// (several run lines can each round up past a tiny rest).
fn rest_of(whole: Decimal, printed: Decimal) -> Decimal {
    (cny(whole) - printed).max(Decimal::ZERO)
}

/// The GPU's hours: what the runs used, what their starts billed, reruns,
/// idle running, forgotten time.
pub fn gpu_use(groups: &[Group], walls: &[Decimal], lanes: &[Lane], prices: &Prices) -> GpuUse {
    let used: Decimal = groups
        .iter()
        .map(|g| g.hours * Decimal::from(g.count))
        .sum();
    let (powered, billed) =
        lanes
            .iter()
            .flat_map(|l| &l.starts)
            .fold((Decimal::ZERO, Decimal::ZERO), |(p, b), s| {
                // Powered time in the whole seconds billing counts: a start
                // laid out on a schedule's spacing (34 days over 11 runs)
                // carries noise in its 28th digit, which is no waste and
                // must not turn the starts' rounding into a rest line.
                (
                    p + super::seconds_to_hours(super::whole_seconds(*s)),
                    b + billed_hours(*s, prices.granularity, prices.minimum_minutes),
                )
            });
    let reruns = groups
        .iter()
        .zip(walls)
        .map(|(g, w)| (*w - g.hours) * Decimal::from(g.count))
        .sum();
    GpuUse {
        used,
        billed,
        waste: (billed - powered).max(Decimal::ZERO),
        reruns,
        longest: groups.iter().map(|g| g.hours).max().unwrap_or_default(),
        idle_between: lanes
            .iter()
            .map(|l| l.gap_hours(Between::KeepRunning))
            .sum(),
    }
}

/// Pay as you go: the runs, the billing units and minimums, reruns, idle
/// running between runs and after the last.
pub fn pay_as_you_go(
    bill: &mut Bill,
    plan: &Plan,
    rental: &Rental<'_>,
    prices: &Prices,
    groups: &[Group],
    gpu: &GpuUse,
) {
    let mut runs = Decimal::ZERO;
    let mut printed = Decimal::ZERO;
    for g in groups {
        let hours = g.hours * Decimal::from(g.count);
        runs += hours * prices.run;
        printed += cny(hours * prices.run);
        bill.push(
            LineKind::Runs,
            vec![
                ("count", g.count.to_string()),
                ("name", g.name.clone()),
                ("time_s", seconds_param(g.hours)),
                ("gpu", rental.name.clone()),
            ],
            Some(hours),
            hours * prices.run,
        );
    }
    let (kind, minimum) = if prices.minimum_minutes > 0 {
        (LineKind::Waste, prices.minimum_minutes.to_string())
    } else {
        (LineKind::Rounding, String::new())
    };
    let mut params = vec![
        ("time_s", seconds_param(gpu.waste)),
        (
            "unit",
            format!("enum.granularity.{}", prices.granularity.key()),
        ),
    ];
    if !minimum.is_empty() {
        params.push(("minimum", minimum));
    }
    // The billing unit's rest is part of the starts' charge: with every
    // other line billed in those starts (setup and uploads on the GPU,
    // reruns, idle running between runs and after the last) the lines add
    // up to the whole charge rounded once (a 1.35 h start billed as 2 h at
    // 2.5 is 5.00, printed 0.63 + 2.75 + 1.62).
    let on_gpu = prices.setup_mode == super::prices::SetupMode::Gpu;
    let (setup_exact, setup_printed) = if on_gpu {
        bill.exact_and_printed(&[LineKind::Setup, LineKind::Upload])
    } else {
        (Decimal::ZERO, Decimal::ZERO)
    };
    let forgotten = plan.forgotten_shutdown_hours * Decimal::from(plan.parallel);
    let reruns = if prices.spot {
        gpu.reruns
    } else {
        Decimal::ZERO
    };
    let others = [reruns, gpu.idle_between, forgotten].map(|h| h * prices.run);
    let exact_parts = runs + setup_exact + others.iter().copied().sum::<Decimal>();
    let printed_parts = printed + setup_printed + others.iter().map(|x| cny(*x)).sum::<Decimal>();
    let rest = if gpu.waste.is_zero() {
        Decimal::ZERO
    } else {
        rest_of(exact_parts + gpu.waste * prices.run, printed_parts)
    };
    bill.push_exact(kind, params, Some(gpu.waste), rest, gpu.waste * prices.run);
    if prices.spot {
        let rate = plan.spot.clone().unwrap_or_default().preemptions_per_day;
        bill.push(
            LineKind::Reruns,
            vec![
                ("rate", rate.normalize().to_string()),
                ("time_s", seconds_param(gpu.reruns)),
            ],
            Some(gpu.reruns),
            gpu.reruns * prices.run,
        );
    }
    bill.push(
        LineKind::IdleBetween,
        vec![("time_s", seconds_param(gpu.idle_between))],
        Some(gpu.idle_between),
        gpu.idle_between * prices.run,
    );
    bill.push(
        LineKind::Forgotten,
        vec![
            ("time_s", seconds_param(plan.forgotten_shutdown_hours)),
            ("instances", plan.parallel.to_string()),
        ],
        Some(forgotten),
        forgotten * prices.run,
    );
}

/// Packages: every period the schedule's GPU time falls in is bought.
pub fn packages(
    bill: &mut Bill,
    prices: &Prices,
    lanes: &[Lane],
    stop_bills_gpu: bool,
    used: Decimal,
) -> Option<(u32, Vec<u32>)> {
    let (period, price) = prices.package?;
    let (count, days) = schedule::packages(lanes, period.hours(), stop_bills_gpu);
    bill.push(
        LineKind::Package,
        vec![
            ("count", count.to_string()),
            ("period", format!("enum.package-period.{}", period.key())),
            ("time_s", seconds_param(used)),
        ],
        Some(used),
        // Each package is bought on its own, at its price to the fen
        // (two day packages at 34.8935 are 2 x 34.89, not 69.79).
        cny(price) * Decimal::from(count),
    );
    Some((count, days))
}

/// Peak hours: the surcharge above the base price on every running hour
/// that falls in the platform's peak window (runs, reruns, idle running,
/// forgotten time, debugging, and setup where it runs on the GPU), placed
/// where it really is in the schedule. Without a start date the runs cannot
/// be placed; the caller warns instead.
pub fn peak(
    bill: &mut Bill,
    plan: &Plan,
    profile: &PlatformProfile,
    prices: &Prices,
    lanes: &[Lane],
) -> bool {
    let (Some(pk), Some(date)) = (&profile.billing.peak, plan.start_date) else {
        return false;
    };
    let weekday = date.weekday().num_days_from_monday();
    let offset = Decimal::from(plan.start_hour.unwrap_or(super::DEFAULT_START_HOUR));
    let setup_on_gpu = prices.setup_mode == super::prices::SetupMode::Gpu;
    // The lines each rate is charged on: the peak part of a rate's hours
    // is one charge with them.
    let groups: [(Rate, Decimal, &[LineKind]); 3] = [
        (
            Rate::Run,
            prices.run,
            &[
                LineKind::Runs,
                LineKind::Rounding,
                LineKind::Waste,
                LineKind::Reruns,
                LineKind::IdleBetween,
                LineKind::Forgotten,
            ],
        ),
        (
            Rate::Debug,
            prices.debug_gpu,
            &[LineKind::Debug, LineKind::DebugWaste],
        ),
        (
            Rate::Setup,
            prices.gpu,
            &[LineKind::Setup, LineKind::Upload],
        ),
    ];
    let mut hours = Decimal::ZERO;
    let mut surcharge = Decimal::ZERO;
    for (rate, price, kinds) in groups {
        if rate == Rate::Setup && !setup_on_gpu {
            continue;
        }
        let h: Decimal = lanes
            .iter()
            .flat_map(|l| &l.on)
            .filter(|(_, r)| *r == rate)
            .map(|(span, _)| peak_hours(pk, weekday, offset + span.start, offset + span.end))
            .sum();
        if h.is_zero() {
            continue;
        }
        hours += h;
        // The lines' charge with its peak part, rounded once, less the
        // lines as printed: 30 peak minutes at twice 0.25/h are 0.25 in
        // all, not 0.13 + 0.13; a run partly in peak keeps its own line.
        // Lines of another rate with no peak hours (setup before an
        // evening run) keep their own rounding: the surcharge is the
        // peak hours' charge, as one computes it by hand (2.5 h x 3.01 is
        // 7.53 whatever the setup line printed).
        let (exact, printed) = bill.exact_and_printed(kinds);
        surcharge += rest_of(
            exact + h * price * (pk.multiplier.value - Decimal::ONE),
            printed,
        );
    }
    bill.push(
        LineKind::PeakSurcharge,
        vec![
            ("time_s", seconds_param(hours)),
            ("multiplier", pk.multiplier.value.normalize().to_string()),
        ],
        Some(hours),
        surcharge,
    );
    true
}

/// Peak hours in `[a, b)` hours after midnight of the start date, whose
/// weekday is `first_weekday` (0 = Monday).
pub fn peak_hours(
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

/// Stops: an occupancy fee where stopping ends GPU billing (disks are
/// storage, below); the GPU price where it does not. The line says how many
/// stops, how long each, and how long in all.
pub fn stops(
    bill: &mut Bill,
    prices: &Prices,
    lanes: &[Lane],
    stop_bills_gpu: bool,
    package: bool,
) {
    let lengths: Vec<Decimal> = lanes
        .iter()
        .flat_map(|l| l.gap_lengths(Between::Stop))
        .collect();
    let total: Decimal = lengths.iter().copied().sum();
    if total.is_zero() {
        return;
    }
    let shortest = lengths.iter().copied().min().unwrap_or_default();
    let longest = lengths.iter().copied().max().unwrap_or_default();
    // One length ("57600"), or the range ("3600..57600") when they differ.
    let each = if shortest == longest {
        seconds_param(shortest)
    } else {
        format!("{}..{}", seconds_param(shortest), seconds_param(longest))
    };
    let params = vec![
        ("count", lengths.len().to_string()),
        ("each_s", each),
        ("total_s", seconds_param(total)),
    ];
    if stop_bills_gpu {
        if !package {
            bill.push(
                LineKind::StoppedBilling,
                params,
                Some(total),
                total * prices.gpu,
            );
        }
    } else {
        bill.push(
            LineKind::Stopped,
            params,
            Some(total),
            total * prices.stopped_fee,
        );
    }
}

/// Storage: the instance disk while an instance exists (until released by
/// the student or the platform's deadline), in GB-days over every instance,
/// and every package period bought where the disk is prepaid with them
/// (`prepaid`: each lane's package periods, and the days of one); persistent
/// storage for the days it is kept.
pub fn storage(
    bill: &mut Bill,
    plan: &Plan,
    profile: &PlatformProfile,
    prices: &Prices,
    lanes: &[Lane],
    prepaid: Option<(&[Vec<Interval>], Decimal)>,
) {
    let (kept_gb, on) = plan
        .storage
        .as_ref()
        .map(|s| (s.gb, s.on))
        .unwrap_or((Decimal::ZERO, Disk::Instance));
    let instance_gb = super::prices::instance_disk_gb(plan, profile);
    // Data that outlives the platform's deadline is on a data disk, which
    // has no free part: the free space is the system disk's, recycled with
    // the instance (优云智算's 100 GB).
    let data_disk = deadline_passed(lanes) && profile.lifecycle.keeps_data_disk();
    let free_gb = if data_disk {
        Decimal::ZERO
    } else {
        prices.free_gb
    };
    // A disk sold in sizes bills the size that holds it, at that size's
    // price (its whole size: such platforms give no free part).
    let (billable, per_gb_day) = match prices.disk {
        Some((size_gb, per_day)) if size_gb > Decimal::ZERO => (size_gb, per_day / size_gb),
        _ => (
            (instance_gb - free_gb).max(Decimal::ZERO),
            prices.storage_gb_day,
        ),
    };
    let while_stopped = profile.storage.bills_while_stopped.value;
    let day = Decimal::from(24);
    let period_days = prepaid.map(|(_, d)| d).unwrap_or_default();
    let (days, cost_per_gb) =
        disk_days_and_cost(lanes, while_stopped, prepaid, per_gb_day, profile, prices);
    // Each instance has its own disk: the first of each lane and each fresh
    // one after a release (not one that found the kept data disk); the
    // longest one disk lived is what "each" says.
    let instances: u32 = lanes
        .iter()
        .map(|l| l.reprovisions.saturating_sub(l.data_kept).saturating_add(1))
        .fold(0, u32::saturating_add);
    // Each disk's own days: its life, or where a stopped disk does not
    // bill, the instance's running time within that life (never the
    // lane's instances added together).
    let longest = (lanes
        .iter()
        .flat_map(|l| match while_stopped {
            true => l.disk.iter().map(Interval::len).collect::<Vec<_>>(),
            false => schedule::covered_each(&l.disk, &l.disk_spans(false)),
        })
        .max()
        .unwrap_or_default()
        / day)
        .max(period_days);
    bill.push(
        if data_disk {
            LineKind::DataDisk
        } else {
            LineKind::Storage
        },
        vec![
            ("gb", h2(billable).normalize().to_string()),
            ("free", free_gb.normalize().to_string()),
            ("gb_days", h2(billable * days).normalize().to_string()),
            ("instances", instances.to_string()),
            ("days", h2(longest).to_string()),
        ],
        None,
        billable * cost_per_gb,
    );
    if on == Disk::Persistent {
        persistent(bill, plan, prices, lanes, kept_gb);
    }
}

/// The days one GB of the disk is billed and what they cost. Without
/// packages: every day the disk exists, at its price. With the disk
/// prepaid with packages: every package period bought (used or not) at the
/// disk's price, and the days the disk exists outside them (kept between
/// packages, or after the last ran out) at the pay-as-you-go price, as the
/// platform bills a disk no package covers; a disk sold in sizes keeps its
/// size's price throughout.
fn disk_days_and_cost(
    lanes: &[Lane],
    while_stopped: bool,
    prepaid: Option<(&[Vec<Interval>], Decimal)>,
    per_gb_day: Decimal,
    profile: &PlatformProfile,
    prices: &Prices,
) -> (Decimal, Decimal) {
    let day = Decimal::from(24);
    let Some((windows, _)) = prepaid else {
        let days: Decimal = lanes
            .iter()
            .map(|l| l.disk_hours(while_stopped) / day)
            .sum();
        return (days, days * per_gb_day);
    };
    let (mut bought, mut outside) = (Decimal::ZERO, Decimal::ZERO);
    for (lane, periods) in lanes.iter().zip(windows) {
        let spans = lane.disk_spans(while_stopped);
        let covered: Decimal = schedule::covered_each(&spans, periods).into_iter().sum();
        let lived: Decimal = spans.iter().map(Interval::len).sum();
        bought += periods.iter().map(Interval::len).sum::<Decimal>() / day;
        outside += (lived - covered).max(Decimal::ZERO) / day;
    }
    let payg = if prices.disk.is_some() {
        per_gb_day
    } else {
        profile.storage.price_per_gb_day.value
    };
    (bought + outside, bought * per_gb_day + outside * payg)
}

/// Persistent storage, kept for the plan's days or until the last
/// instance's work ends.
fn persistent(bill: &mut Bill, plan: &Plan, prices: &Prices, lanes: &[Lane], kept_gb: Decimal) {
    let work_hours = lanes
        .iter()
        .map(|l| l.forgotten.map(|f| f.end).unwrap_or(l.work_end))
        .max()
        .unwrap_or_default();
    let days = plan
        .storage
        .as_ref()
        .and_then(|s| s.days)
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

/// Credit: the platform's student credit, its newcomer coupon (for a new
/// account, unless its terms exclude spot and the plan rents spot), then the
/// plan's own coupon or credit, each as its own line, never more than the
/// cash they cover. Returns the credit used.
pub fn credit(bill: &mut Bill, plan: &Plan, profile: &PlatformProfile, spot: bool) -> Decimal {
    let mut left = bill
        .sum(|l| l.category != Category::OwnTime)
        .max(Decimal::ZERO);
    let st = &profile.student;
    let newcomer = st.newcomer_for(spot).filter(|_| plan.newcomer);
    let mut used = Decimal::ZERO;
    for (kind, offered) in [
        (
            LineKind::Credit,
            plan.student.then_some(st.free_credit.value),
        ),
        (LineKind::NewcomerCredit, newcomer.map(|c| c.value)),
        (LineKind::Coupon, plan.credit),
    ] {
        let amount = cny(offered.unwrap_or_default().min(left));
        bill.push(kind, vec![], None, -amount);
        left -= amount;
        used += amount;
    }
    used
}
