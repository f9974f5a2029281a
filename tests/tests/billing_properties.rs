//! Properties every bill must have, over random plans on every bundled
//! platform and card: more GPU hours never cost less, a finer billing unit
//! never costs more, checkpoints never make spot dearer, a longer stop never
//! costs less, the printed lines add up to the total, a package plan
//! never costs less than the packages its GPU time needs; and on the
//! calendar, a plan a week later costs the same, placing running hours in
//! peak windows never makes them cheaper, and runs after debugging pay the
//! peak hours they really run in.

use crate::common;

use std::sync::OnceLock;

use gpuplan_core::plan::{
    Between, DataSpec, Disk, Payment, Plan, RunGroup, Schedule, SpotSpec, Stops, StorageSpec,
};
use gpuplan_core::platform::{Granularity, PlatformSet};
use gpuplan_core::quote::{quote, Category, LineKind, Quote, Warning};
use gpuplan_core::{GpuCatalog, ModelZoo};
use proptest::prelude::*;
use rust_decimal::Decimal;

struct World {
    platforms: &'static PlatformSet,
    catalog: &'static GpuCatalog,
    zoo: &'static ModelZoo,
    offers: Vec<(String, String)>,
}

fn world() -> &'static World {
    static W: OnceLock<World> = OnceLock::new();
    W.get_or_init(|| {
        let platforms = common::platforms();
        let offers = platforms
            .platforms
            .iter()
            .flat_map(|p| p.offers.iter().map(move |o| (p.id.clone(), o.gpu.clone())))
            .collect();
        World {
            platforms,
            catalog: common::catalog(),
            zoo: common::zoo(),
            offers,
        }
    })
}

/// The plan's bill; a plan refused because a stop inside a run reaches the
/// platform's release deadline (its checkpoints deleted, so the run cannot
/// resume) is not a case of the property. Any other refusal fails the test.
fn price(plan: &Plan) -> Result<Quote, TestCaseError> {
    let w = world();
    let profile = w.platforms.get(&plan.platform).expect("platform");
    match quote(plan, profile, w.catalog, w.zoo) {
        Ok(q) => Ok(q),
        Err(e) if e.field == "stops.hours_each" => Err(TestCaseError::reject(
            "a run split by a stop the deadline ends cannot resume",
        )),
        Err(e) => panic!("{e}: {plan:?}"),
    }
}

/// Hundredths as a decimal.
fn c(n: u32) -> Decimal {
    Decimal::new(i64::from(n), 2)
}

/// A random plan's knobs.
#[derive(Debug, Clone)]
struct Knobs {
    offer: usize,
    runs: u32,
    hours: u32,
    parallel: u32,
    stops: Option<(u32, u32)>,
    schedule: Option<(u32, u8)>,
    storage: Option<(u32, Option<u32>)>,
    data: Option<u32>,
    forgotten: u32,
    student: bool,
    credit: Option<u32>,
}

fn knobs() -> impl Strategy<Value = Knobs> {
    (
        0usize..1000,
        1u32..12,
        1u32..3000,
        1u32..4,
        proptest::option::of((0u32..4, 0u32..50_000)),
        proptest::option::of((1u32..60, 0u8..3)),
        (proptest::option::of((0u32..40_000, proptest::option::of(0u32..4000)))),
        proptest::option::of(0u32..5000),
        0u32..2000,
        any::<bool>(),
        proptest::option::of(0u32..5000),
    )
        .prop_map(
            |(
                offer,
                runs,
                hours,
                parallel,
                stops,
                schedule,
                storage,
                data,
                forgotten,
                student,
                credit,
            )| Knobs {
                offer,
                runs,
                hours,
                // Each instance takes at least one run (more are refused).
                parallel: parallel.min(runs),
                // [stops] and [schedule] exclude each other.
                stops: if schedule.is_some() { None } else { stops },
                schedule,
                storage,
                data,
                forgotten,
                student,
                credit,
            },
        )
}

fn build(k: &Knobs) -> Plan {
    let w = world();
    let (platform, gpu) = w.offers[k.offer % w.offers.len()].clone();
    Plan {
        name: "random".into(),
        platform,
        gpu,
        student: k.student,
        parallel: k.parallel,
        credit: k.credit.map(c),
        forgotten_shutdown_hours: c(k.forgotten),
        runs: vec![RunGroup {
            hours: Some(c(k.hours)),
            ..RunGroup::of_job("run", k.runs)
        }],
        stops: k.stops.map(|(count, h)| Stops {
            count,
            hours_each: c(h),
        }),
        schedule: k.schedule.map(|(days, b)| Schedule {
            days: Decimal::from(days),
            between_runs: [Between::Stop, Between::Release, Between::KeepRunning][usize::from(b)],
        }),
        storage: k.storage.map(|(gb, days)| StorageSpec {
            gb: c(gb),
            days: days.map(c),
            on: Disk::Instance,
        }),
        data: k.data.map(|gb| DataSpec {
            size_gb: c(gb),
            upload_mbps: Decimal::from(20),
            download_gb: None,
        }),
        ..Plan::default()
    }
}

/// `more` costs at least `less`, up to the rounding of the printed lines:
/// each line is rounded to the fen on its own, so when time moves from one
/// line to another at the same rate (a shorter trailing stop on a platform
/// that bills stops at the GPU price), the printed total can dip by at most
/// half a fen per line while the exact cost does not fall.
fn at_least(more: &Quote, less: &Quote) -> bool {
    let slack = Decimal::new(5, 3) * Decimal::from((more.lines.len() + less.lines.len()) as u64);
    more.cash_total + slack >= less.cash_total
}

fn cash_lines(q: &Quote) -> Decimal {
    q.lines
        .iter()
        .filter(|l| l.category != Category::OwnTime)
        .map(|l| l.amount)
        .sum()
}

proptest! {
    #![proptest_config(common::proptest_config(200))]

    #[test]
    fn the_printed_lines_add_up_and_more_hours_never_cost_less(k in knobs(), more in 1u32..2000) {
        let base = build(&k);
        let q = price(&base)?;
        prop_assert_eq!(cash_lines(&q), q.cash_total, "the lines add up to the cash total");
        prop_assert!(q.lines.iter().all(|l| l.amount.scale() == 2), "every amount has two places");
        prop_assert_eq!(q.timeline.last().map(|d| d.cumulative), Some(q.cash_total), "the timeline ends at the total");
        let longer = Plan {
            runs: vec![RunGroup { hours: Some(c(k.hours + more)), ..RunGroup::of_job("run", k.runs) }],
            ..base.clone()
        };
        prop_assert!(at_least(&price(&longer)?, &q), "longer runs never cost less");
        let extra_run = Plan {
            runs: vec![RunGroup { hours: Some(c(k.hours)), ..RunGroup::of_job("run", k.runs + 1) }],
            ..base
        };
        // One more run on a schedule of the same days shortens every gap:
        // a stop that reached the platform's release deadline may no longer
        // reach it, and the fresh instances (set up and given the data
        // again) it cost are saved; where the deadline keeps the data disk
        // (优云智算), the data no longer needs a data disk past the recycle,
        // and the system disk's free part counts again. That is cheaper in
        // fact, so the rule holds where no deadline recycles an instance.
        let more_runs = price(&extra_run)?;
        let wiped = |q: &Quote| q.warnings.iter().any(|w| matches!(w, Warning::DataWiped { .. } | Warning::InstanceReleased { .. }));
        if !wiped(&q) && !wiped(&more_runs) {
            prop_assert!(at_least(&more_runs, &q), "another run never costs less");
        }
    }

    #[test]
    fn a_finer_billing_unit_never_costs_more(k in knobs(), minimum in 0u32..90) {
        let at = |g: Granularity| {
            let mut p = build(&k);
            p.prices.granularity = Some(g);
            p.prices.minimum_charge_minutes = Some(minimum);
            price(&p).map(|q| q.cash_total)
        };
        let (s, m, h) = (at(Granularity::Second)?, at(Granularity::Minute)?, at(Granularity::Hour)?);
        let slack = Decimal::new(5, 2);
        prop_assert!(s <= m + slack && m <= h + slack, "second {s} <= minute {m} <= hour {h} (up to the lines' rounding)");
    }

    #[test]
    fn a_longer_stop_never_costs_less(k in knobs(), longer in 1u32..100_000) {
        let mut k = k;
        k.schedule = None;
        let (count, h) = k.stops.unwrap_or((1, 100));
        let count = count.max(1);
        k.stops = Some((count, h));
        let short = price(&build(&k))?;
        k.stops = Some((count, h + longer));
        let long = price(&build(&k))?;
        // Past the platform's release deadline the disk is gone and stops
        // billing: a longer stop there can cost less (and loses the data,
        // which `data-wiped` says). Where the deadline keeps the data disk
        // (优云智算), data kept past it is on a data disk with no free part,
        // so a plan whose stops (or the storage kept after its last run)
        // reach the deadline pays for the disk in full, and a longer stop
        // that moves the end past it can cost less. The rule holds where no
        // deadline is met.
        let wiped = |q: &Quote| q.warnings.iter().any(|w| matches!(w, Warning::DataWiped { .. } | Warning::InstanceReleased { .. }));
        prop_assume!(!wiped(&short) && !wiped(&long));
        let (short, long) = (short.cash_total, long.cash_total);
        let slack = Decimal::new(5, 2);
        prop_assert!(long + slack >= short, "stopped longer: {long} >= {short} (up to the lines' rounding)");
    }

    #[test]
    fn checkpoints_never_make_spot_dearer(
        hours in 10u32..5000,
        rate in 0u32..400,
        every in 1u32..2000,
        smaller in 1u32..100,
    ) {
        let w = world();
        let spot_offers: Vec<&(String, String)> = w.offers.iter().filter(|(p, g)| {
            w.platforms.get(p).ok().and_then(|pp| pp.offers.iter().find(|o| &o.gpu == g)).is_some_and(|o| o.spot_per_hour.is_some())
        }).collect();
        for (platform, gpu) in spot_offers {
            let plan = |ck: Option<Decimal>| Plan {
                name: "spot".into(),
                platform: platform.clone(),
                gpu: gpu.clone(),
                payment: Payment::Spot,
                setup_hours: Decimal::ZERO,
                runs: vec![RunGroup { hours: Some(c(hours)), ..RunGroup::of_job("run", 1) }],
                spot: Some(SpotSpec {
                    checkpoint_every_hours: ck,
                    preemptions_per_day: c(rate),
                    ..SpotSpec::default()
                }),
                ..Plan::default()
            };
            let none = price(&plan(None))?.cash_total;
            let some = price(&plan(Some(c(every))))?.cash_total;
            let finer = price(&plan(Some(c(every.saturating_sub(smaller).max(1)))))?.cash_total;
            let slack = Decimal::new(5, 2);
            prop_assert!(some <= none + slack, "{platform}/{gpu}: checkpoints {some} <= none {none}");
            prop_assert!(finer <= some + slack, "{platform}/{gpu}: more often {finer} <= {some}");
        }
    }

    #[test]
    fn a_package_plan_pays_at_least_the_packages_its_gpu_time_needs(k in knobs()) {
        let w = world();
        let mut plan = build(&k);
        let with_package = w.offers.iter().find_map(|(p, g)| {
            w.platforms.get(p).ok()
                .and_then(|pp| pp.offers.iter().find(|o| &o.gpu == g))
                .and_then(|o| o.packages.first().map(|pk| (p.clone(), g.clone(), pk.period, pk.price)))
        });
        let Some((platform, gpu, period, unit)) = with_package else { return Ok(()) };
        plan.platform = platform;
        plan.gpu = gpu;
        plan.payment = Payment::Package(period);
        plan.student = false;
        let q = price(&plan)?;
        let packages = q.lines.iter().filter(|l| l.kind == LineKind::Package).map(|l| l.amount).sum::<Decimal>();
        let count = q.packages.as_ref().map(|p| p.count).unwrap_or_default();
        prop_assert_eq!(packages, unit * Decimal::from(count), "the package line is count x price");
        // A package covers at most its period of one instance's GPU time.
        let needed = (q.run_hours / period.hours()).ceil();
        prop_assert!(Decimal::from(count) >= needed, "{} packages for {} GPU-hours", count, q.run_hours);
    }
}

/// A random plan on Vast.ai's RTX 3090 (weekend evenings at 2x), placed on
/// a date and an hour; no setup or data, so the runs are where the
/// schedule puts them from the first hour.
fn on_the_calendar(k: &Knobs, day: u32, hour: u32) -> Plan {
    let mut plan = build(k);
    plan.platform = "vast".into();
    plan.gpu = "rtx3090".into();
    plan.setup_hours = Decimal::ZERO;
    plan.data = None;
    plan.start_date = chrono::NaiveDate::from_ymd_opt(2026, 11, 30)
        .and_then(|d| d.checked_add_days(chrono::Days::new(u64::from(day))));
    plan.start_hour = Some(hour);
    plan
}

proptest! {
    #![proptest_config(common::proptest_config(200))]

    #[test]
    fn a_week_later_costs_the_same(k in knobs(), day in 0u32..7, hour in 0u32..24) {
        let plan = on_the_calendar(&k, day, hour);
        let later = Plan {
            start_date: plan.start_date.and_then(|d| d.checked_add_days(chrono::Days::new(7))),
            ..plan.clone()
        };
        prop_assert_eq!(price(&later)?.cash_total, price(&plan)?.cash_total, "peak windows repeat every week");
    }

    #[test]
    fn placing_running_hours_on_the_calendar_never_makes_them_cheaper(k in knobs(), day in 0u32..7, hour in 0u32..24) {
        let placed = on_the_calendar(&k, day, hour);
        let unplaced = Plan { start_date: None, start_hour: None, ..placed.clone() };
        prop_assert!(
            at_least(&price(&placed)?, &price(&unplaced)?),
            "the peak surcharge only ever adds: {} >= {}",
            price(&placed)?.cash_total,
            price(&unplaced)?.cash_total
        );
    }

    #[test]
    fn debugging_first_puts_the_runs_where_they_really_start(
        k in knobs(),
        day in 0u32..7,
        hour in 0u32..24,
        debug in 1u32..30,
    ) {
        // Free debugging of `debug` hours before the runs bills the runs
        // exactly as the same plan started `debug` hours later: the runs'
        // peak hours are those of the hours they really run in. (One
        // instance: debugging happens on the first.)
        let k = Knobs { parallel: 1, ..k };
        let mut with_debug = on_the_calendar(&k, day, hour);
        with_debug.debug = Some(gpuplan_core::plan::DebugPhase {
            gpu: "rtx3090".into(),
            hours: Decimal::from(debug),
        });
        with_debug.prices.debug_gpu_per_hour = Some(Decimal::ZERO);
        let start = with_debug
            .start_date
            .and_then(|d| d.and_hms_opt(hour, 0, 0))
            .map(|t| t + chrono::Duration::hours(i64::from(debug)));
        let later = Plan {
            debug: None,
            start_date: start.map(|t| t.date()),
            start_hour: start.map(|t| chrono::Timelike::hour(&t)),
            ..with_debug.clone()
        };
        let (a, b) = (price(&with_debug)?, price(&later)?);
        let peak = |q: &Quote| q.lines.iter().filter(|l| l.kind == LineKind::PeakSurcharge).map(|l| l.amount).sum::<Decimal>();
        prop_assert_eq!(peak(&a), peak(&b), "the runs' peak hours are where they run");
    }
}
