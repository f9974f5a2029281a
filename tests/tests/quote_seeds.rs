//! The seeds' worked bills, reproduced by the cost engine from the plan files
//! in `examples/` (which pin the seeds' prices, so bundled price updates do not
//! move them). Each figure is computed by hand in the comment beside it; the
//! assumptions each example makes are written in the example itself.

use crate::common;

use gpuplan_core::plan::Plan;
use gpuplan_core::quote::{quote, Category, LineKind, Quote, Warning};
use rust_decimal::Decimal;

fn example(name: &str) -> Quote {
    let path = crate::common::root().join("examples").join(name);
    let text = std::fs::read_to_string(&path).expect("example plan exists");
    let plan = Plan::from_toml(name, &text).unwrap_or_else(|e| panic!("{e}"));
    let platforms = common::platforms();
    let profile = platforms.get(&plan.platform).expect("platform");
    quote(&plan, profile, common::catalog(), common::zoo())
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn d(s: &str) -> Decimal {
    s.parse().expect("decimal literal")
}

fn cat(q: &Quote, c: Category) -> Decimal {
    q.by_category.get(&c).copied().unwrap_or_default()
}

#[test]
fn every_example_plan_quotes() {
    let dir = crate::common::root().join("examples");
    let mut n = 0;
    for e in std::fs::read_dir(&dir)
        .expect("examples")
        .filter_map(Result::ok)
    {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.ends_with(".toml") {
            let q = example(&name);
            let sum: Decimal = q
                .lines
                .iter()
                .filter(|l| l.category != Category::OwnTime)
                .map(|l| l.amount)
                .sum();
            assert_eq!(
                sum, q.cash_total,
                "{name}: the printed lines add up to the total"
            );
            n += 1;
        }
    }
    assert!(n >= 15, "the examples are all there ({n})");
}

#[test]
fn seed003_resnet50_on_four_platforms() {
    // (file, exact total, the hand computation)
    let cases = [
        (
            "seed003-autodl-resnet50.toml",
            "16.60",
            "6 h x 2.5 = 15.00; 20 GB above free x 16/24 day x 0.12 = 1.60 (the seed: ~16)",
        ),
        (
            "seed003-gpushare-resnet50.toml",
            "15.63",
            "15.63 runs billed per second; 20 GB inside the free 100 GB of /hy-tmp (the seed: ~17, per minute with a bought disk)",
        ),
        (
            "seed003-matpool-resnet50.toml",
            "16.50",
            "6 h x 2.4 = 14.40; netdisk 30 GB x 7 days x 0.01 = 2.10 (the seed: ~16.5)",
        ),
        (
            "seed003-lanrui-a100.toml",
            "39.00",
            "6 h x 6.5 = 39.00; no data disk rented, the plan keeping nothing on one (the seed: ~40)",
        ),
    ];
    for (file, total, why) in cases {
        assert_eq!(example(file).cash_total, d(total), "{file}: {why}");
    }
    let autodl = example("seed003-autodl-resnet50.toml");
    assert_eq!(
        cat(&autodl, Category::Stopped),
        Decimal::ZERO,
        "a stopped AutoDL instance bills its disk as storage, no second fee"
    );
    assert_eq!(
        cat(&autodl, Category::Storage),
        d("1.60"),
        "the disk over its 16 hours"
    );
    let gpushare = example("seed003-gpushare-resnet50.toml");
    let printed: Vec<String> = gpushare
        .lines
        .iter()
        .map(|l| l.amount.to_string())
        .collect();
    assert_eq!(
        printed,
        vec!["15.63"],
        "per-second billing leaves no started minute, and the free /hy-tmp no disk line"
    );
}

#[test]
fn seed003_minimum_charge_bills_a_full_hour_per_start() {
    let q = example("seed003-minimum-charge.toml");
    // Three starts of 20 minutes, each billed a full hour at 2.5: the
    // seed's "three full hours", 7.50 (2.50 used, 5.00 waste). The plan
    // keeps nothing on a data disk, which 揽睿星舟 makes optional: none is
    // rented (a 200 GB one added 0.10).
    assert_eq!(
        q.cash_total,
        d("7.50"),
        "three full hours, as the seed bills them"
    );
    assert_eq!(
        cat(&q, Category::MinimumChargeWaste),
        d("5.00"),
        "two of the three billed hours are waste"
    );
    assert!(
        q.warnings
            .iter()
            .any(|w| matches!(w, Warning::MinimumChargeWaste { percent } if *percent > d("60"))),
        "the quote warns that minimum charges waste two thirds"
    );
}

#[test]
fn seed003_half_a_year_on_a_stopped_autodl_instance() {
    let q = example("seed003-half-year-storage.toml");
    // 2 h of work, then stopped; AutoDL releases the instance after 15 days
    // stopped, with its disk: 362 h of disk, 20 GB x 362/24 x 0.0066 = 1.99.
    assert_eq!(
        cat(&q, Category::Storage),
        d("1.99"),
        "the disk bills until the release, not after"
    );
    assert_eq!(q.cash_total, d("6.99"), "5.00 of GPU and 1.99 of storage");
    assert!(
        q.warnings.iter().any(|w| matches!(
            w,
            Warning::DataWiped {
                deadline_days: 15,
                ..
            }
        )),
        "the quote warns that the data is gone"
    );
}

#[test]
fn seed000_forgotten_shutdown_costs_more_than_training() {
    let q = example("seed000-forgotten-shutdown.toml");
    // 3 h of training and 10 h idle at 2.5.
    assert_eq!(q.cash_total, d("32.50"), "7.50 + 25.00");
    assert!(
        q.warnings.iter().any(|w| matches!(w, Warning::ForgottenShutdownCostly { idle, training } if *idle == d("25.00") && *training == d("7.50"))),
        "the idle hours cost more than the training and the quote says so"
    );
}

#[test]
fn seed000_weekly_budget_stays_under_100() {
    let q = example("seed000-weekly-budget.toml");
    // 8 x 2 h at 3.0 x 0.95 = 45.60; 0.5 h setup and 0.11 h upload in the
    // no-GPU mode at 0.10/h: 0.05 + 0.01. 45.66.
    assert_eq!(q.cash_total, d("45.66"), "the seed's well under 100");
    assert!(
        q.warnings.is_empty(),
        "no traps in this plan: {:?}",
        q.warnings
    );
    assert_eq!(
        q.timeline.last().map(|t| t.cumulative),
        Some(q.cash_total),
        "the timeline ends at the total"
    );
    assert!(
        q.timeline
            .windows(2)
            .all(|w| w[0].cumulative <= w[1].cumulative),
        "spend never falls"
    );
}

#[test]
fn seed000_spot_with_checkpoints_prices_reruns_as_expected_value() {
    let q = example("seed000-spot-checkpoints.toml");
    // 6 h in segments of 1 h (5 of 30 epochs), 2 preemptions a day, 5-minute
    // restarts: each hour takes (12 + 1/12)(e^(1/12) - 1) = 1.050091 h on
    // average; 6 of them 6.300545 h, so 0.300545 h are redone at 0.64/h.
    let reruns = q
        .lines
        .iter()
        .find(|l| l.kind == LineKind::Reruns)
        .expect("a rerun line");
    assert_eq!(reruns.amount, d("0.19"), "0.300545 h x 0.64 = 0.1923");
    assert_eq!(q.cash_total, d("4.03"), "3.84 of runs and 0.19 of reruns");
    let spot = q.spot.as_ref().expect("a spot outlook");
    assert!(
        spot.p90_cash_total > q.cash_total,
        "the bad case costs more than the expectation"
    );
}

#[test]
fn estimated_jobs_take_their_hours_from_the_estimator() {
    let q = example("resnet18-cifar-estimated.toml");
    assert!(q.run_hours > Decimal::ZERO, "the estimator timed the job");
}
