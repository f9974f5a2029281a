//! The seeds' worked bills, reproduced by the cost engine from the plan files
//! in `examples/` (which pin the seeds' prices, so bundled price updates do not
//! move them).

mod common;

use gpuplan_core::plan::Plan;
use gpuplan_core::quote::{quote, Category, Quote, Warning};
use rust_decimal::Decimal;

fn example(name: &str) -> Quote {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples")
        .join(name);
    let text = std::fs::read_to_string(&path).expect("example plan exists");
    let plan = Plan::from_toml(name, &text).unwrap_or_else(|e| panic!("{e}"));
    let platforms = common::platforms();
    let profile = platforms.get(&plan.platform).expect("platform");
    quote(&plan, profile, &common::catalog(), &common::zoo())
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn d(s: &str) -> Decimal {
    s.parse().expect("decimal literal")
}

#[test]
fn seed003_resnet50_on_four_platforms() {
    // (file, low, high, seed figure)
    let cases = [
        (
            "seed003-autodl-resnet50.toml",
            "15.5",
            "16.5",
            "AutoDL ~16: 6 h x 2.5 plus ~1 of storage while stopped",
        ),
        (
            "seed003-gpushare-resnet50.toml",
            "16.3",
            "17.3",
            "恒源云 ~17: 6 h x 2.6 per minute plus a 20 GB disk at 5/month",
        ),
        (
            "seed003-matpool-resnet50.toml",
            "16.0",
            "17.0",
            "矩池云 ~16.5: 6 h x 2.4 plus storage",
        ),
        (
            "seed003-lanrui-a100.toml",
            "36.0",
            "42.0",
            "揽睿星舟 A100 80G ~40: 6 h x 6-7",
        ),
    ];
    for (file, lo, hi, why) in cases {
        let q = example(file);
        assert!(
            q.cash_total >= d(lo) && q.cash_total <= d(hi),
            "{why}: got {}",
            q.cash_total
        );
    }
    let autodl = example("seed003-autodl-resnet50.toml");
    assert_eq!(
        autodl.by_category.get(&Category::GpuCompute),
        Some(&d("15.0000")),
        "6 h at 2.5 per second-billed hour is exactly 15"
    );
    assert_eq!(
        autodl.by_category.get(&Category::StoppedIdle),
        Some(&d("1.0000")),
        "10 h stopped at 0.1/h is 1"
    );
    let gpushare = example("seed003-gpushare-resnet50.toml");
    assert!(
        gpushare
            .by_category
            .get(&Category::MinimumChargeWaste)
            .is_some_and(|w| *w > Decimal::ZERO),
        "per-minute billing rounds the odd minutes up"
    );
    assert_eq!(
        gpushare.by_category.get(&Category::Storage),
        Some(&d("1.0000")),
        "20 GB at 5/month for 6 days is 1"
    );
}

#[test]
fn seed003_minimum_charge_bills_a_full_hour_per_start() {
    let q = example("seed003-minimum-charge.toml");
    assert_eq!(
        q.cash_total,
        d("7.50"),
        "three starts billed an hour each at 2.5"
    );
    let waste = q
        .by_category
        .get(&Category::MinimumChargeWaste)
        .copied()
        .unwrap_or_default();
    assert!(
        waste > d("4.9") && waste < d("5.1"),
        "two of the three billed hours are waste: {waste}"
    );
    assert!(
        q.warnings
            .iter()
            .any(|w| matches!(w, Warning::MinimumChargeWaste { percent } if *percent > d("60"))),
        "the quote warns that minimum charges waste two thirds"
    );
}

#[test]
fn seed003_half_a_year_of_stopped_storage() {
    let q = example("seed003-half-year-storage.toml");
    let storage = q
        .by_category
        .get(&Category::Storage)
        .copied()
        .unwrap_or_default();
    assert!(
        storage >= d("20") && storage < d("30"),
        "twenty-odd CNY of storage: {storage}"
    );
    assert!(
        q.warnings.iter().any(|w| matches!(
            w,
            Warning::DataWiped {
                deadline_days: 15,
                ..
            }
        )),
        "AutoDL releases instances stopped 15 days: the data would be wiped"
    );
}

#[test]
fn seed000_forgotten_shutdown_costs_more_than_training() {
    let q = example("seed000-forgotten-shutdown.toml");
    let idle = q
        .by_category
        .get(&Category::StoppedIdle)
        .copied()
        .unwrap_or_default();
    let training = q
        .by_category
        .get(&Category::GpuCompute)
        .copied()
        .unwrap_or_default();
    assert_eq!(idle, d("25.0000"), "10 idle hours at 2.5");
    assert!(
        idle > training,
        "the forgotten hours cost more than the 3 h of training"
    );
    assert!(
        q.warnings
            .iter()
            .any(|w| matches!(w, Warning::ForgottenShutdownCostly { .. })),
        "and the quote says so"
    );
}

#[test]
fn seed000_weekly_budget_stays_under_100() {
    let q = example("seed000-weekly-budget.toml");
    assert!(
        q.cash_total < d("100"),
        "8 runs x 2 h, 5 GB disk: under 100 CNY, got {}",
        q.cash_total
    );
    assert!(
        q.cash_total > d("40"),
        "but more than the bare 16 GPU hours at a discounted 3/h: {}",
        q.cash_total
    );
    assert!(
        !q.warnings
            .iter()
            .any(|w| matches!(w, Warning::BudgetExceeded { .. })),
        "the budget of 100 holds"
    );
    assert_eq!(
        q.by_category.get(&Category::Storage),
        None,
        "5 GB fits in the free 50 GB"
    );
    assert_eq!(
        q.timeline
            .first()
            .and_then(|t| t.date)
            .map(|d| d.to_string())
            .as_deref(),
        Some("2026-12-07"),
        "the timeline is dated from the plan's start"
    );
    let last = q.timeline.last().map(|t| t.cumulative).unwrap_or_default();
    assert_eq!(last, q.cash_total, "the timeline ends at the cash total");
    assert!(
        q.timeline
            .windows(2)
            .all(|w| w[0].cumulative <= w[1].cumulative),
        "cumulative spend never falls"
    );
}

#[test]
fn seed000_spot_with_checkpoints_is_cheaper_and_prices_reruns() {
    let spot = example("seed000-spot-checkpoints.toml");
    let reruns = spot
        .by_category
        .get(&Category::PreemptionReruns)
        .copied()
        .unwrap_or_default();
    assert!(reruns > Decimal::ZERO, "preemptions cost reruns");
    // 6 h at 2 preemptions/day = 0.5 preemptions, each losing half of a 1 h
    // checkpoint interval plus a 5-minute restart.
    let expected = d("0.5") * (d("0.5") + d("5") / d("60")) * d("0.64");
    assert!(
        (reruns - expected).abs() < d("0.001"),
        "rerun cost follows the checkpoint interval: {reruns} vs {expected}"
    );
    assert!(
        spot.cash_total < d("6") * d("1.6") / d("2"),
        "spot with reruns stays well under half of on-demand here: {}",
        spot.cash_total
    );
    // Without checkpoints each preemption loses half a run, and the quote warns.
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/seed000-spot-checkpoints.toml");
    let text = std::fs::read_to_string(path)
        .expect("example")
        .replace("checkpoint_every_epochs = 5\n", "");
    let plan = Plan::from_toml("no-ckpt.toml", &text).expect("valid");
    let platforms = common::platforms();
    let q = quote(
        &plan,
        platforms.get("vast").expect("vast"),
        &common::catalog(),
        &common::zoo(),
    )
    .expect("quote");
    assert!(
        q.warnings.contains(&Warning::SpotWithoutCheckpoints),
        "spot without checkpoints is flagged"
    );
    assert!(
        q.by_category[&Category::PreemptionReruns] > reruns,
        "and loses more work"
    );
}

#[test]
fn estimated_jobs_take_their_hours_from_the_estimator() {
    let q = example("resnet18-cifar-estimated.toml");
    let zoo = common::zoo();
    let catalog = common::catalog();
    let entry = zoo.get("resnet18").expect("zoo");
    let job = gpuplan_core::JobSpec {
        resolution: Some(32.0),
        classes: Some(10.0),
        batch: Some(128.0),
        dataset_samples: Some(50000.0),
        epochs: Some(50.0),
        ..Default::default()
    }
    .resolve(entry)
    .expect("job");
    let est = gpuplan_core::estimate(entry, &job, &catalog, catalog.get("rtx3090").ok());
    let run_s = est
        .gpus
        .iter()
        .find(|g| g.id == "rtx3090")
        .and_then(|g| g.run_seconds)
        .expect("run time");
    let hours: f64 = q.run_hours.to_string().parse().expect("number");
    assert!(
        (hours - run_s / 3600.0).abs() < 1e-3,
        "the plan's run hours are the estimator's: {hours} vs {}",
        run_s / 3600.0
    );
}

#[test]
fn a_package_is_flagged_when_cheaper() {
    // A month of near-continuous 4090 use on AutoDL: the monthly package wins.
    let text = "name = \"month\"\nplatform = \"autodl\"\ngpu = \"rtx4090\"\n[[run]]\nname = \"long runs\"\ncount = 30\nhours = 20\n";
    let plan = Plan::from_toml("month.toml", text).expect("valid");
    let platforms = common::platforms();
    let q = quote(
        &plan,
        platforms.get("autodl").expect("autodl"),
        &common::catalog(),
        &common::zoo(),
    )
    .expect("quote");
    assert!(
        q.warnings
            .iter()
            .any(|w| matches!(w, Warning::PackageCheaper { .. })),
        "600 GPU hours a month: the 1,052 CNY package beats 2.19/h"
    );
    let light =
        Plan::from_toml("light.toml", &text.replace("count = 30", "count = 2")).expect("valid");
    let q = quote(
        &light,
        platforms.get("autodl").expect("autodl"),
        &common::catalog(),
        &common::zoo(),
    )
    .expect("quote");
    assert!(
        !q.warnings
            .iter()
            .any(|w| matches!(w, Warning::PackageCheaper { .. })),
        "40 hours: pay as you go is cheaper"
    );
}
