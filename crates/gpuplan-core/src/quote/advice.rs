//! The last stages of a quote: the traps the plan walks into and advice
//! that follows from the bill itself (a cheaper way to pay for the same
//! schedule, stopping instead of idling, a schedule that cannot hold its
//! runs), each with the figures that make the case.

// Operators allowed on the bound stated in `quote/mod.rs`: every input is
// validated before the cost engine runs.
#![allow(
    clippy::arithmetic_side_effects,
    reason = "inputs bounded by Plan::check and profile validation; see quote/mod.rs"
)]

use rust_decimal::prelude::ToPrimitive;
use rust_decimal::Decimal;

use super::prices::{Prices, Rental};
use super::schedule::{self, Lane};
use super::stages::{Bill, GpuUse};
use super::{cny, h2, Category, LineKind, Warning};
use crate::plan::{Between, Disk, Payment, Plan};
use crate::platform::PlatformProfile;

/// Everything the warnings read.
pub struct Facts<'a> {
    /// The plan.
    pub plan: &'a Plan,
    /// The platform.
    pub profile: &'a PlatformProfile,
    /// The rented offer.
    pub rental: &'a Rental<'a>,
    /// The prices.
    pub prices: &'a Prices,
    /// The timeline.
    pub lanes: &'a [Lane],
    /// The GPU's hours.
    pub gpu: &'a GpuUse,
    /// The bill.
    pub bill: &'a Bill,
    /// Its cash total.
    pub cash_total: Decimal,
    /// Packages bought, when the plan buys them.
    pub packages: Option<u32>,
    /// Checkpoint interval on spot.
    pub checkpoint: Option<Decimal>,
    /// Whether a stop keeps billing the GPU.
    pub stop_bills_gpu: bool,
    /// Hours of bringing the data onto an instance.
    pub upload_hours: Decimal,
    /// Whether peak hours were placed on the calendar.
    pub peak_placed: bool,
    /// What stops the estimated job on the card (memory, precision), if
    /// anything.
    pub fit: Option<&'a Warning>,
}

/// Every warning and piece of advice, money the student does not have
/// first.
pub fn warnings(f: &Facts<'_>) -> Vec<Warning> {
    let mut w = Vec::new();
    money(f, &mut w);
    limits(f, &mut w);
    data(f, &mut w);
    time_of_day(f, &mut w);
    packages(f, &mut w);
    idling(f, &mut w);
    schedule_fits(f, &mut w);
    storage_days(f, &mut w);
    if f.prices.spot && f.checkpoint.is_none() {
        w.push(Warning::SpotWithoutCheckpoints);
    }
    if let Some(c) = &f.profile.billing.charged_in {
        w.push(Warning::ChargedInForeignCurrency {
            currency: c.value.currency.clone(),
            rate: c.value.cny_per_unit.normalize(),
            total: cny(f.cash_total / c.value.cny_per_unit),
        });
    }
    let student = &f.profile.student;
    if let (true, Some(coupon), None) = (
        f.plan.newcomer && f.prices.spot,
        &student.newcomer_credit,
        student.newcomer_for(true),
    ) {
        w.push(Warning::NewcomerNotForSpot {
            coupon: coupon.value,
        });
    }
    w.sort_by_key(|w| !w.is_about_budget());
    // A job that cannot run on the card comes before any money.
    if let Some(fit) = f.fit {
        w.insert(0, fit.clone());
    }
    w
}

fn money(f: &Facts<'_>, w: &mut Vec<Warning>) {
    let training = f.bill.sum(|l| l.kind == LineKind::Runs);
    let idle = f.bill.sum(|l| l.kind == LineKind::Forgotten);
    if idle > training && idle > Decimal::ZERO {
        w.push(Warning::ForgottenShutdownCostly { idle, training });
    }
    // A share wasted that costs nothing printed (a free card, a price of a
    // few fen) is not worth a warning: the bill shows no waste to act on.
    let wasted = f.bill.sum(|l| l.category == Category::MinimumChargeWaste);
    if f.gpu.billed > Decimal::ZERO && f.prices.package.is_none() && wasted > Decimal::ZERO {
        let pct = f.gpu.waste / f.gpu.billed * Decimal::from(100);
        if pct >= Decimal::from(10) {
            w.push(Warning::MinimumChargeWaste {
                percent: pct.round_dp(1),
            });
        }
    }
    if let Some(balance) = f.plan.balance.filter(|b| f.cash_total > *b) {
        w.push(Warning::BalanceRunsOut {
            balance: cny(balance),
            short: f.cash_total - cny(balance),
        });
    }
    if let Some(budget) = f.plan.budget.filter(|b| f.cash_total > *b) {
        w.push(Warning::BudgetExceeded {
            total: f.cash_total,
            budget: cny(budget),
        });
    }
}

/// Walltime and session caps; a weekly quota, week by week.
fn limits(f: &Facts<'_>, w: &mut Vec<Warning>) {
    let q = &f.profile.quota;
    let cap = q
        .walltime_max_hours
        .as_ref()
        .or(q.session_max_hours.as_ref())
        .map(|c| c.value)
        .filter(|c| *c > Decimal::ZERO);
    // Hours past a limit are rounded up, so a run a second over a 48 h cap
    // reads 48.01 h, not "a 48.00 h run exceeds the 48 h cap".
    let over =
        |x: Decimal| x.round_dp_with_strategy(2, rust_decimal::RoundingStrategy::AwayFromZero);
    if let Some(cap) = cap.filter(|c| f.gpu.longest > *c) {
        w.push(Warning::RunExceedsCap {
            run_hours: over(f.gpu.longest),
            cap_hours: cap,
            parts: (f.gpu.longest / cap).ceil().to_u32().unwrap_or(u32::MAX),
        });
    }
    if let Some(quota) = schedule::weekly_quota(f.profile) {
        let weeks = schedule::quota_weeks(f.lanes, quota);
        if let Some(week) = weeks.first_short {
            let scheduled = weeks
                .scheduled
                .get(week as usize - 1)
                .copied()
                .unwrap_or_default();
            w.push(Warning::QuotaExhausted {
                week,
                hours: over(scheduled),
                quota_hours: quota,
                weeks: weeks.weeks,
            });
        }
    }
}

/// What a release or the platform's deadline deletes, and what bringing the
/// data back costs; scratch folders wiped after a stop.
fn data(f: &Facts<'_>, w: &mut Vec<Warning>) {
    let on_instance = f
        .plan
        .storage
        .as_ref()
        .is_none_or(|s| s.on == Disk::Instance);
    let longest_stop = f
        .lanes
        .iter()
        .map(|l| l.longest_stop)
        .max()
        .unwrap_or_default();
    if let Some(deadline) = &f.profile.lifecycle.release_after_stopped_days {
        let past = super::stages::deadline_passed(f.lanes);
        if past && f.profile.lifecycle.keeps_data_disk() {
            w.push(Warning::InstanceReleased {
                idle_days: (longest_stop / Decimal::from(24)).round_dp(1),
                deadline_days: deadline.value,
                fresh_instances: f.lanes.iter().map(|l| l.deadline_releases).sum(),
            });
        } else if on_instance && past {
            w.push(Warning::DataWiped {
                idle_days: (longest_stop / Decimal::from(24)).round_dp(1),
                deadline_days: deadline.value,
                fresh_instances: f.lanes.iter().map(|l| l.deadline_releases).sum(),
            });
        }
    }
    // A stopped disk that bills, with no free part and no size sold, is
    // priced from the plan's size alone: with none given the stops look
    // free (Vast's "still charged storage costs for stopped instances").
    let st = &f.profile.storage;
    if f.plan.storage.is_none()
        && longest_stop > Decimal::ZERO
        && st.bills_while_stopped.value
        && st.free_gb.value.is_zero()
        && st.price_per_gb_day.value > Decimal::ZERO
        && super::prices::instance_disk_gb(f.plan, f.profile).is_zero()
    {
        w.push(Warning::DiskUnsized);
    }
    let lc = &f.profile.lifecycle;
    if let (Some(hours), Some(path)) = (&lc.scratch_wipe_after_stopped_hours, &lc.scratch_path) {
        if longest_stop >= Decimal::from(hours.value) && longest_stop > Decimal::ZERO {
            w.push(Warning::ScratchWiped {
                path: path.clone(),
                after_hours: hours.value,
            });
        }
    }
    let releases: u32 = f
        .lanes
        .iter()
        .map(|l| l.reprovisions - l.deadline_releases)
        .sum();
    if releases > 0 && on_instance {
        released(f, releases, w);
    }
}

/// Releasing between runs: each fresh instance needs the data again (the
/// upload and unpacking, traffic in); persistent storage, where the
/// platform has it, keeps it instead, priced for the same span.
fn released(f: &Facts<'_>, releases: u32, w: &mut Vec<Warning>) {
    // A plan without a dataset brings nothing back: no sentence about
    // 0.00 CNY of uploads, nor a storage comparison of 0.00 with 0.00.
    let Some(data) = &f.plan.data else {
        return;
    };
    let gb = data.size_gb;
    let per = f.upload_hours * f.prices.setup + gb * f.profile.storage.traffic_per_gb.value;
    let bring_back = cny(per * Decimal::from(releases));
    w.push(Warning::ReleasedBetweenRuns {
        releases,
        bring_back,
    });
    let kept = f.plan.storage.as_ref().map(|s| s.gb).unwrap_or(gb).max(gb);
    let span_days =
        f.lanes.iter().map(|l| l.work_end).max().unwrap_or_default() / Decimal::from(24);
    // Offered only where it is the cheaper way: a long plan with a few
    // small uploads keeps paying for the disk every day in between.
    if let Some(p) = f
        .prices
        .persistent_gb_day
        .filter(|_| bring_back > Decimal::ZERO)
    {
        let cost = cny((kept - f.prices.persistent_free_gb).max(Decimal::ZERO) * span_days * p);
        if cost < bring_back {
            w.push(Warning::PersistentInstead {
                cost,
                instead_of: bring_back,
            });
        }
    }
}

/// Peak prices the plan cannot place (no start date), or placed at an
/// hour the plan did not give.
fn time_of_day(f: &Facts<'_>, w: &mut Vec<Warning>) {
    // The hour matters only where prices depend on it.
    let peak = f.profile.billing.peak.as_ref();
    if peak.is_some() && f.plan.start_date.is_some() && f.plan.start_hour.is_none() {
        w.push(Warning::StartHourAssumed {
            hour: super::DEFAULT_START_HOUR,
        });
    }
    if let Some(pk) = peak {
        if !f.peak_placed && f.prices.package.is_none() {
            w.push(Warning::TimeOfDayPrices {
                multiplier: pk.multiplier.value.normalize(),
            });
        }
    }
    if f.stop_bills_gpu && f.lanes.iter().any(|l| l.longest_stop > Decimal::ZERO) {
        w.push(Warning::StopKeepsBilling);
    }
}

/// The same schedule paid another way: packages against pay as you go,
/// both ways, and a package bought for a few hours past the last one.
fn packages(f: &Facts<'_>, w: &mut Vec<Warning>) {
    let scale = f.rental.discount * Decimal::from(f.rental.gpus);
    match (f.plan.payment, f.prices.package) {
        (Payment::OnDemand, _) => {
            let payg = payg_cost(f);
            for pk in &f.rental.offer.packages {
                let (count, _) = schedule::packages(f.lanes, pk.period.hours(), f.stop_bills_gpu);
                let cost = cny(pk.price * scale * Decimal::from(count));
                if cost < payg {
                    w.push(Warning::PackageCheaper {
                        period: pk.period,
                        count,
                        cost,
                        instead_of: payg,
                    });
                }
            }
        }
        (Payment::Package(period), Some((_, price))) => {
            let bought = f.bill.sum(|l| l.kind == LineKind::Package);
            let payg = payg_cost(f);
            if payg < bought {
                w.push(Warning::PackageDearer {
                    period,
                    count: f.packages.unwrap_or(0),
                    cost: bought,
                    instead_of: payg,
                });
            }
            let (extra, hours) =
                schedule::last_package_hours(f.lanes, period.hours(), f.stop_bills_gpu);
            let instead = cny(hours * f.prices.gpu);
            if extra > 0 && instead < cny(price * Decimal::from(extra)) {
                w.push(Warning::ExtraPackage {
                    period,
                    count: extra,
                    hours: h2(hours),
                    cost: cny(price * Decimal::from(extra)),
                    instead_of: instead,
                });
            }
        }
        _ => {}
    }
}

/// What this schedule's GPU time costs paying as you go, on demand.
fn payg_cost(f: &Facts<'_>) -> Decimal {
    let g = f.gpu;
    let mut hours = g.used + g.waste + g.reruns + g.idle_between;
    hours += f.plan.forgotten_shutdown_hours * Decimal::from(f.plan.parallel);
    if f.stop_bills_gpu {
        hours += f
            .lanes
            .iter()
            .map(|l| l.gap_hours(Between::Stop))
            .sum::<Decimal>();
    }
    cny(hours * f.prices.gpu + f.bill.sum(|l| l.kind == LineKind::PeakSurcharge))
}

/// Kept running between runs where the idle hours alone would cost less
/// stopped. A candidate only: `quote_with` prices the plan stopping between
/// runs and keeps the advice (with both totals) only if that bill is lower.
fn idling(f: &Facts<'_>, w: &mut Vec<Warning>) {
    let idle = f.gpu.idle_between;
    if idle.is_zero() || f.stop_bills_gpu || f.prices.package.is_some() {
        return;
    }
    let running = cny(idle * f.prices.run);
    let stopped = cny(idle * f.prices.stopped_fee);
    if stopped < running {
        w.push(Warning::StopBetweenRuns {
            hours: h2(idle),
            total: f.cash_total,
            stopped_total: f.cash_total,
        });
    }
}

/// `[storage] days` shorter than the work: storage cannot end while runs
/// still use it, so the bill keeps it to the work's end; the warning says
/// the plan's days were not what was billed.
fn storage_days(f: &Facts<'_>, w: &mut Vec<Warning>) {
    let Some(days) = f.plan.storage.as_ref().and_then(|s| s.days) else {
        return;
    };
    let end = f.lanes.iter().map(|l| l.work_end).max().unwrap_or_default();
    if days * Decimal::from(24) < end {
        w.push(Warning::StorageDaysShort {
            days: days.normalize(),
            work_days: h2(end / Decimal::from(24)),
        });
    }
}

/// A `[schedule]` whose days cannot hold its runs: the runs went back to
/// back instead; the nearest schedule that holds them is named.
fn schedule_fits(f: &Facts<'_>, w: &mut Vec<Warning>) {
    let Some(s) = &f.plan.schedule else { return };
    if !f.lanes.iter().any(|l| l.schedule_overrun) {
        return;
    }
    let needed = f.lanes.iter().map(|l| l.work_end).max().unwrap_or_default() / Decimal::from(24);
    w.push(Warning::ScheduleTooTight {
        days: s.days.normalize(),
        needed_days: needed.ceil().max(Decimal::ONE),
    });
}
