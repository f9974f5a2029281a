//! Billing truth: one named test per rule the cost engine once got wrong and
//! per rule it could not express, each with its plan, the bill computed by
//! hand in a comment, and the expected figure. Plans are written inline as the
//! plan files students write (docs/plans.md); prices come from the bundled
//! profiles unless the plan pins them.

use crate::common;

use gpuplan_core::plan::Plan;
use gpuplan_core::quote::{quote, Category, LineKind, Quote, Warning};
use rust_decimal::Decimal;

fn plan(toml: &str) -> Plan {
    Plan::from_toml("test plan", toml).unwrap_or_else(|e| panic!("{e}"))
}

fn priced(toml: &str) -> Quote {
    let p = plan(toml);
    let platforms = common::platforms();
    let profile = platforms.get(&p.platform).expect("platform");
    quote(&p, profile, common::catalog(), common::zoo()).unwrap_or_else(|e| panic!("{e}"))
}

fn refused(toml: &str) -> gpuplan_core::InputError {
    let p = plan(toml);
    let platforms = common::platforms();
    let profile = platforms.get(&p.platform).expect("platform");
    match quote(&p, profile, common::catalog(), common::zoo()) {
        Ok(q) => panic!("expected an error, got a bill of {}", q.cash_total),
        Err(e) => e,
    }
}

fn d(s: &str) -> Decimal {
    s.parse().expect("decimal literal")
}

fn line(q: &Quote, kind: LineKind) -> Decimal {
    q.lines
        .iter()
        .filter(|l| l.kind == kind)
        .map(|l| l.amount)
        .sum()
}

/// A parameter of the first line of `kind` (`instances`, `uploads`).
fn param(q: &Quote, kind: LineKind, key: &str) -> Option<String> {
    q.lines
        .iter()
        .find(|l| l.kind == kind)
        .and_then(|l| l.params.0.iter().find(|(k, _)| *k == key))
        .map(|(_, v)| v.clone())
}

fn cat(q: &Quote, c: Category) -> Decimal {
    q.by_category.get(&c).copied().unwrap_or_default()
}

// ---- Packages are calendar periods -------------------------------------

#[test]
fn packages_cover_calendar_periods_not_buckets_of_hours() {
    // 50 runs of 10 h spread over 58 days on AutoDL's RTX 4090 month package
    // (1,052): runs start every 58 x 24 / 50 = 27.84 h. The first package
    // covers hours [0, 720): runs 0-25. Run 26 starts at 723.84 h, past it:
    // a second package. 500 GPU-hours, but two months: 2 x 1052 = 2104.00.
    let q = priced(
        r#"name = "500 GPU-hours over 58 days"
        platform = "autodl"
        gpu = "rtx4090"
        payment = { package = "month" }
        setup_hours = 0
        [[run]]
        name = "run"
        count = 50
        hours = 10
        [schedule]
        days = 58"#,
    );
    assert_eq!(q.cash_total, d("2104.00"), "two month packages, not one");
    assert_eq!(
        q.packages.as_ref().map(|p| p.count),
        Some(2),
        "the quote says how many"
    );
    // The same schedule paid as you go: 500 h x 2.19 = 1095.00, and no
    // "a package would be cheaper" (two months cost 2104).
    let payg = priced(
        r#"name = "the same, pay as you go"
        platform = "autodl"
        gpu = "rtx4090"
        setup_hours = 0
        [[run]]
        name = "run"
        count = 50
        hours = 10
        [schedule]
        days = 58"#,
    );
    assert_eq!(payg.cash_total, d("1095.00"), "500 h at 2.19");
    assert!(
        !payg
            .warnings
            .iter()
            .any(|w| matches!(w, Warning::PackageCheaper { .. })),
        "the packages the real span needs are dearer, so no package advice"
    );
}

#[test]
fn a_package_is_advised_only_when_the_packages_of_the_span_are_cheaper() {
    // 30 runs of 20 h back to back: 600 h inside one month. Pay as you go
    // 600 x 2.19 = 1314.00; one month package 1052.00 is cheaper.
    let q = priced(
        r#"name = "a month of solid work"
        platform = "autodl"
        gpu = "rtx4090"
        setup_hours = 0
        [[run]]
        name = "run"
        count = 30
        hours = 20"#,
    );
    assert!(
        q.warnings.iter().any(|w| matches!(w, Warning::PackageCheaper { count: 1, cost, instead_of, .. } if *cost == d("1052.00") && *instead_of == d("1314.00"))),
        "one month package for 1052.00 instead of 1314.00: {:?}",
        q.warnings
    );
}

#[test]
fn a_day_package_with_runs_on_seven_days_needs_seven_days() {
    // 7 runs of 2 h, one a day: each day's run needs that day's package.
    // 7 x 20.00 = 140.00.
    let q = priced(
        r#"name = "a run a day"
        platform = "autodl"
        gpu = "rtx3090"
        payment = { package = "day" }
        setup_hours = 0
        [[run]]
        name = "run"
        count = 7
        hours = 2
        [schedule]
        days = 7
        [prices]
        package_price = 20"#,
    );
    assert_eq!(q.cash_total, d("140.00"), "seven day packages");
}

#[test]
fn a_plans_package_price_is_used_even_when_the_profile_has_that_package() {
    // AutoDL lists the RTX 4090 month at 1052; the plan saw 900.
    let q = priced(
        r#"name = "my package price"
        platform = "autodl"
        gpu = "rtx4090"
        payment = { package = "month" }
        setup_hours = 0
        forgotten_shutdown_hours = 10
        [job]
        hours = 100
        [prices]
        package_price = 900"#,
    );
    assert_eq!(q.cash_total, d("900.00"), "the plan's price wins");
    assert_eq!(
        line(&q, LineKind::Forgotten),
        Decimal::ZERO,
        "idle time inside a paid month is not billed again"
    );
}

// ---- What a stopped instance costs -------------------------------------

#[test]
fn a_stopped_autodl_instance_bills_its_disk_once_and_the_free_disk_is_free() {
    // 6 h at 1.39 = 8.34; stopped 10 h in the middle; 30 GB kept, inside the
    // free 50 GB data disk: the stop costs nothing.
    let q = priced(
        r#"name = "stopped overnight"
        platform = "autodl"
        gpu = "rtx3090"
        setup_hours = 0
        [job]
        hours = 6
        [stops]
        count = 1
        hours_each = 10
        [storage]
        gb = 30"#,
    );
    assert_eq!(q.cash_total, d("8.34"), "only the GPU bills");
    assert_eq!(
        cat(&q, Category::Stopped),
        Decimal::ZERO,
        "no second fee for being stopped"
    );
}

#[test]
fn storage_stops_billing_when_the_instance_is_released_and_a_stop_of_the_deadline_wipes() {
    // Stopped exactly 15 days (360 h) between two 1 h runs: AutoDL
    // releases an instance stopped 15 days in a row.
    let wiped = priced(
        r#"name = "fifteen days"
        platform = "autodl"
        gpu = "rtx3090"
        setup_hours = 0
        [[run]]
        name = "r"
        count = 2
        hours = 1
        [stops]
        count = 1
        hours_each = 360
        [storage]
        gb = 70"#,
    );
    assert!(
        wiped
            .warnings
            .iter()
            .any(|w| matches!(w, Warning::DataWiped { .. })),
        "a stop of exactly the deadline loses the data"
    );
    let kept = priced(
        r#"name = "fourteen days"
        platform = "autodl"
        gpu = "rtx3090"
        setup_hours = 0
        [job]
        hours = 2
        [storage]
        gb = 70
        days = 14"#,
    );
    assert!(
        kept.warnings.is_empty(),
        "two weeks stopped is fine: {:?}",
        kept.warnings
    );
    // 20 GB above free x 14 days x 0.0066 = 1.848 -> 1.85.
    assert_eq!(
        cat(&kept, Category::Storage),
        d("1.85"),
        "the disk for the 14 days"
    );
}

#[test]
fn sessions_spread_over_a_month_do_not_raise_a_false_data_wiped_warning() {
    // 10 runs of 2 h spread over 30 days: a 70 h gap between sessions, far
    // under AutoDL's 15 days. The disk exists from the first start to the
    // last run's end (run 9 starts at 9 x 72 = 648 h, ends at 650 h):
    // 20 GB x 650/24 days x 0.0066 = 3.575 -> 3.58.
    let q = priced(
        r#"name = "a session every three days"
        platform = "autodl"
        gpu = "rtx3090"
        setup_hours = 0
        [[run]]
        name = "session"
        count = 10
        hours = 2
        [schedule]
        days = 30
        [storage]
        gb = 70"#,
    );
    assert!(
        !q.warnings
            .iter()
            .any(|w| matches!(w, Warning::DataWiped { .. })),
        "no wipe: {:?}",
        q.warnings
    );
    assert_eq!(
        cat(&q, Category::Storage),
        d("3.58"),
        "the disk over the month's span"
    );
}

// ---- Spot ---------------------------------------------------------------

#[test]
fn spot_without_checkpoints_grows_exponentially_with_the_run() {
    // A 24 h run at 3 preemptions a day (λ = 0.125/h) and 5-minute restarts,
    // never checkpointed: (1/λ + r)(e^{λT} − 1) = 8.083333 x 19.085537
    // = 154.2748 h, 6.4 times the run. Billed at 1.00/h: 24.00 + 130.27.
    let q = priced(
        r#"name = "a day on spot, no checkpoints"
        platform = "vast"
        gpu = "rtx3090"
        payment = "spot"
        setup_hours = 0
        [job]
        hours = 24
        [spot]
        preemptions_per_day = 3
        restart_minutes = 5
        [prices]
        spot_per_hour = 1"#,
    );
    assert_eq!(
        line(&q, LineKind::Reruns),
        d("130.27"),
        "the expected value, not half a run per preemption"
    );
    assert_eq!(q.cash_total, d("154.27"), "6.4 times the on-demand hours");
    // Checkpoints every 6 h: four segments of (8.083333)(e^{0.75} − 1)
    // = 9.029083 h: 36.116334 h, 12.12 redone.
    let ck = priced(
        r#"name = "a day on spot, checkpoints every 6 h"
        platform = "vast"
        gpu = "rtx3090"
        payment = "spot"
        setup_hours = 0
        forgotten_shutdown_hours = 10
        [job]
        hours = 24
        [spot]
        checkpoint_every_hours = 6
        preemptions_per_day = 3
        restart_minutes = 5
        [prices]
        spot_per_hour = 1"#,
    );
    assert_eq!(
        line(&ck, LineKind::Reruns),
        d("12.12"),
        "checkpoints cut the loss"
    );
    assert_eq!(
        line(&ck, LineKind::Forgotten),
        d("10.00"),
        "a forgotten spot instance bills at the spot price"
    );
    let spot = ck.spot.as_ref().expect("a spot outlook");
    assert!(
        spot.p90_cash_total > ck.cash_total,
        "the bad case is shown beside the expectation"
    );
}

// ---- Time to result ------------------------------------------------------

#[test]
fn a_weekly_quota_pushes_results_into_the_next_week() {
    // Two 20 h runs on Kaggle's 30 h/week: 30 h this week, 10 h after the
    // reset: results after 168 + 10 h at the earliest.
    let q = priced(
        r#"name = "two long runs on Kaggle"
        platform = "kaggle"
        gpu = "t4"
        setup_hours = 0
        [[run]]
        name = "run"
        count = 2
        hours = 20"#,
    );
    assert!(
        q.time_to_result_hours >= d("178"),
        "week two: {}",
        q.time_to_result_hours
    );
    assert!(
        q.warnings
            .iter()
            .any(|w| matches!(w, Warning::QuotaExhausted { weeks: 2, .. })),
        "the quota warning says two weeks"
    );
    assert!(
        q.warnings
            .iter()
            .any(|w| matches!(w, Warning::RunExceedsCap { parts: 2, .. })),
        "and each 20 h run needs two 12 h sessions"
    );
}

#[test]
fn a_run_over_the_walltime_queues_again_for_each_job() {
    // A 60 h run on a 48 h walltime: two jobs, each waiting 4 h in the queue
    // and 1 minute to start: 60 + 2 x (4 + 1/60) = 68.03 h.
    let q = priced(
        r#"name = "a long campus run"
        platform = "campus-slurm"
        gpu = "rtx4090"
        setup_hours = 0
        [job]
        hours = 60"#,
    );
    assert_eq!(q.time_to_result_hours, d("68.03"), "two queue waits");
    // Three 1 h jobs: each Slurm job queues: 3 x (4 h + 1 min) + 3 h = 15.05 h.
    let three = priced(
        r#"name = "three campus jobs"
        platform = "campus-slurm"
        gpu = "rtx4090"
        setup_hours = 1
        [[run]]
        name = "job"
        count = 3
        hours = 1"#,
    );
    assert_eq!(
        three.time_to_result_hours,
        d("16.05"),
        "15.05 h of jobs and queues after 1 h of setup"
    );
    assert_eq!(
        line(&three, LineKind::Setup),
        Decimal::ZERO,
        "setup on the login node is not billed at the card price"
    );
}

// ---- Money as a bill shows it ------------------------------------------------

#[test]
fn every_line_is_rounded_half_up_to_the_fen() {
    // 8.17 h x 2.5 = 20.425 -> 20.43 (half up, as a bill shows it).
    let q = priced(
        r#"name = "half a fen"
        platform = "autodl"
        gpu = "rtx3090"
        setup_hours = 0
        [job]
        hours = 8.17
        [prices]
        gpu_per_hour = 2.5"#,
    );
    assert_eq!(q.cash_total.to_string(), "20.43", "half up, two places");
    let json = serde_json::to_value(&q).expect("json");
    assert_eq!(
        json["cash_total"], "20.43",
        "the JSON shows the same two places"
    );
    assert_eq!(json["lines"][0]["amount"], "20.43", "and so does the line");
}

#[test]
fn sixty_one_minutes_bill_sixty_one_minutes() {
    // Per-minute billing at 0.10/min: 1.0167 h is 3660 s, 61 minutes: 6.10.
    for (how, runs) in [("hours", "hours = 1.0167"), ("minutes", "minutes = 61")] {
        let q = priced(&format!(
            r#"name = "61 minutes"
            platform = "gpushare"
            gpu = "rtx3090"
            setup_hours = 0
            [[run]]
            name = "run"
            {runs}
            [prices]
            gpu_per_hour = 6"#
        ));
        assert_eq!(
            q.cash_total,
            d("6.10"),
            "written in {how}: 61 minutes, not 62"
        );
    }
}

// ---- Rules the engine could not express -------------------------------------

#[test]
fn parallel_instances_finish_sooner_and_set_up_each_instance() {
    // 8 runs of 2 h on two instances: 16 GPU-hours either way (16 x 1.39 =
    // 22.24); setup 0.25 h per instance in the no-GPU mode at 0.10:
    // 2 x 0.025 = 0.05. Each instance: 10 min queue + 2 min startup, three
    // more starts of 2 min, 0.25 h setup, 8 h of runs: 8.55 h.
    let q = priced(
        r#"name = "two instances"
        platform = "autodl"
        gpu = "rtx3090"
        parallel = 2
        [[run]]
        name = "sweep"
        count = 8
        hours = 2"#,
    );
    assert_eq!(q.cash_total, d("22.29"), "the same GPU-hours, setup twice");
    assert_eq!(q.time_to_result_hours, d("8.55"), "half the time");
}

#[test]
fn persistent_storage_outlives_released_instances() {
    // Five 2 h runs over 10 days, released between runs; 50 GB on 恒源云's
    // /hy-nas (0.0168/GB-day, nothing free) for 20 days: 50 x 20 x 0.0168 =
    // 16.80. GPU 10 h x 2.6 x 0.95... at the plan's 2.6: 26.00. Nothing bills
    // in the gaps.
    let q = priced(
        r#"name = "data on the netdisk"
        platform = "gpushare"
        gpu = "rtx3090"
        setup_hours = 0
        [[run]]
        name = "run"
        count = 5
        hours = 2
        [schedule]
        days = 10
        between_runs = "release"
        [storage]
        gb = 50
        days = 20
        on = "persistent"
        [prices]
        gpu_per_hour = 2.6"#,
    );
    assert_eq!(
        line(&q, LineKind::PersistentStorage),
        d("16.80"),
        "the netdisk for 20 days"
    );
    assert_eq!(
        q.cash_total,
        d("42.80"),
        "26.00 of GPU and 16.80 of storage"
    );
    assert!(
        !q.warnings
            .iter()
            .any(|w| matches!(w, Warning::ReleasedBetweenRuns { .. })),
        "the data is safe on the netdisk"
    );
}

#[test]
fn free_credit_and_a_prepaid_balance() {
    // 10 h x 1.39 = 13.90, minus 10.00 of credit: 3.90; a 2.00 balance is
    // 1.90 short, and that warning comes first.
    let q = priced(
        r#"name = "credit and balance"
        platform = "autodl"
        gpu = "rtx3090"
        setup_hours = 0
        budget = 1
        credit = 10
        balance = 2
        [job]
        hours = 10"#,
    );
    assert_eq!(
        line(&q, LineKind::Coupon),
        d("-10.00"),
        "the plan's own credit is a coupon line, not the platform's student credit"
    );
    assert_eq!(q.cash_total, d("3.90"), "paid after credit");
    assert!(
        matches!(q.warnings.first(), Some(Warning::BalanceRunsOut { short, .. }) if *short == d("1.90")),
        "money the student lacks comes first: {:?}",
        q.warnings
    );
}

#[test]
fn time_of_day_prices_and_egress_on_a_marketplace() {
    // Saturday 2026-12-05 from 16:00, a 4 h run at 1.00/h: 18:00-20:00 is
    // peak at 2x: 4.00 + 2.00. 10 GB downloaded at 0.10/GB (pinned in the
    // plan): 1.00.
    let q = priced(
        r#"name = "Saturday evening"
        platform = "vast"
        gpu = "rtx3090"
        setup_hours = 0
        start_date = "2026-12-05"
        start_hour = 16
        [job]
        hours = 4
        [data]
        size_gb = 0
        download_gb = 10
        [prices]
        gpu_per_hour = 1
        egress_per_gb = 0.1"#,
    );
    assert_eq!(
        line(&q, LineKind::PeakSurcharge),
        d("2.00"),
        "two peak hours at double"
    );
    assert_eq!(line(&q, LineKind::Egress), d("1.00"), "the download");
    assert_eq!(q.cash_total, d("7.00"), "4 + 2 + 1");
    let no_date = priced(
        r#"name = "no date"
        platform = "vast"
        gpu = "rtx3090"
        setup_hours = 0
        [job]
        hours = 4"#,
    );
    assert!(
        no_date
            .warnings
            .iter()
            .any(|w| matches!(w, Warning::TimeOfDayPrices { .. })),
        "without a date the quote says prices vary"
    );
}

#[test]
fn spot_where_the_platform_sells_it_and_not_where_it_does_not() {
    // 优云智算 sells spot at 70% of the exclusive price: 0.83/h against 1.19
    // on the RTX 3090 (the platform's docs). AutoDL sells none (按量/包日/
    // 包周/包月 only): a spot plan there is refused naming the payment.
    let q = priced(
        r#"name = "spot"
        platform = "youyun"
        gpu = "rtx3090"
        payment = "spot"
        setup_hours = 0
        [job]
        hours = 1
        [spot]
        preemptions_per_day = 0"#,
    );
    assert_eq!(q.price_per_hour, d("0.83"), "the spot price");
    let p = Plan::from_toml(
        "autodl spot",
        "name = \"x\"\nplatform = \"autodl\"\ngpu = \"rtx3090\"\npayment = \"spot\"\n[job]\nhours = 1\n",
    )
    .expect("parses");
    let platforms = common::platforms();
    let err = quote(
        &p,
        platforms.get("autodl").expect("autodl"),
        common::catalog(),
        common::zoo(),
    )
    .expect_err("AutoDL has no spot product");
    assert_eq!(err.field, "payment", "the error names the payment: {err}");
}

#[test]
fn contradicting_and_absurd_plans_are_refused_naming_the_field() {
    // (plan body after the header, field named, why)
    let header = "name = \"x\"\nplatform = \"autodl\"\ngpu = \"rtx3090\"\nsetup_hours = 0\n";
    let cases = [
        (
            "[job]\nhours = 6\nepochs = 1e-9\n",
            "job.epochs",
            "a near-zero epoch count",
        ),
        ("[job]\nhours = 24\n", "", "a normal plan quotes"),
    ];
    for (body, field, why) in cases {
        let text = format!("{header}{body}");
        if field.is_empty() {
            priced(&text);
        } else {
            assert_eq!(refused(&text).field, field, "{why}");
        }
    }
    let stops_and_schedule = Plan::from_toml(
        "x",
        &format!(
            "{header}[job]\nhours = 1\n[stops]\ncount = 1\nhours_each = 1\n[schedule]\ndays = 2\n"
        ),
    );
    assert!(
        stops_and_schedule.is_err_and(|e| e.field == "stops.count"),
        "[stops] and [schedule] together are refused"
    );
    // (whole plan file, field refused, why)
    let long_name = "r".repeat(201);
    let files = [
        (
            format!("{header}start_hour = 8\n[job]\nhours = 1\n"),
            "start_hour",
            "an hour of no day would be ignored",
        ),
        (
            format!("{header}[[run]]\nname = \"{long_name}\"\ncount = 1\nhours = 1\n"),
            "run.name",
            "a run's name as long as a plan's may be",
        ),
        (
            format!("{header}parallel = 3\n[job]\nhours = 1\n"),
            "parallel",
            "three instances for one run: two set up and billed for nothing",
        ),
        (
            format!("{header}parallel = 3\n[[run]]\nname = \"a\"\ncount = 2\nhours = 1\n"),
            "parallel",
            "three instances for two runs",
        ),
        (
            format!("{header}[job]\nhours = 1\n[prices]\ngpu_per_hour = 2.00005\n"),
            "prices.gpu_per_hour",
            "a price billed at places its printed rate does not show",
        ),
        (
            format!("{header}[job]\nhours = 1\n[prices]\npackage_price = 9.999\n"),
            "prices.package_price",
            "a package's price in fen",
        ),
    ];
    for (text, field, why) in &files {
        let got = Plan::from_toml("x", text);
        assert!(
            got.as_ref().is_err_and(|e| e.field == *field),
            "{why}: {:?}",
            got.err()
        );
    }
    assert!(
        Plan::from_toml(
            "x",
            &format!("{header}start_date = \"2026-12-05\"\nstart_hour = 8\n[job]\nhours = 1\n")
        )
        .is_ok(),
        "an hour with its day is fine"
    );
    assert!(
        Plan::from_toml(
            "x",
            &format!("{header}parallel = 2\n[[run]]\nname = \"a\"\ncount = 2\nhours = 1\n")
        )
        .is_ok(),
        "as many instances as runs is fine"
    );
}

// ---- A half fen rounds up, whatever the hours' decimals -------------------

#[test]
fn a_newcomer_coupon_pays_only_for_what_its_terms_allow() {
    // 共绩算力's 50 CNY coupon pays for cloud hosts only; its spot is a
    // batch product. 10 h of RTX 4090: on demand 10 x 1.98 = 19.80, paid
    // by the coupon; on spot (checkpoints every 2 h, no preemptions)
    // 10 x 1.19 = 11.90, paid in cash.
    let base = r#"name = "first time on 共绩"
        platform = "gongji"
        gpu = "rtx4090"
        setup_hours = 0
        newcomer = true
        "#;
    let tail = "[job]\nhours = 10\n[data]\nsize_gb = 0\n";
    let on_demand = priced(&format!("{base}{tail}"));
    assert_eq!(
        line(&on_demand, LineKind::NewcomerCredit),
        d("-19.80"),
        "the coupon pays for a cloud host, up to the bill"
    );
    let spot = priced(&format!(
        "{base}payment = \"spot\"\n{tail}[spot]\ncheckpoint_every_hours = 2\npreemptions_per_day = 0\n"
    ));
    assert_eq!(
        line(&spot, LineKind::NewcomerCredit),
        d("0"),
        "the coupon does not pay for spot"
    );
    assert_eq!(spot.cash_total, d("11.90"), "spot is paid in cash");
    assert!(
        spot.warnings
            .iter()
            .any(|w| matches!(w, Warning::NewcomerNotForSpot { coupon } if *coupon == d("50"))),
        "the quote says why the coupon is missing: {:?}",
        spot.warnings
    );
    assert!(
        !on_demand
            .warnings
            .iter()
            .any(|w| matches!(w, Warning::NewcomerNotForSpot { .. })),
        "and says nothing when the coupon applies"
    );
    // 优云智算's newcomer coupon has no such term: spot uses it.
    let youyun = priced(
        r#"name = "first time on 优云"
        platform = "youyun"
        gpu = "rtx3090"
        setup_hours = 0
        newcomer = true
        payment = "spot"
        [job]
        hours = 10
        [data]
        size_gb = 0
        [spot]
        checkpoint_every_hours = 2
        preemptions_per_day = 0"#,
    );
    assert!(
        line(&youyun, LineKind::NewcomerCredit) < Decimal::ZERO,
        "a coupon without the term pays for spot"
    );
}

#[test]
fn a_bill_in_another_currency_says_so_with_its_total_in_it() {
    // Vast charges in USD; its profile's CNY figures are USD x 7.2. 4 h at
    // a pinned 1.44 CNY/h (0.20 USD): 5.76 CNY, 0.80 USD.
    let q = priced(
        r#"name = "Vast in dollars"
        platform = "vast"
        gpu = "rtx3090"
        setup_hours = 0
        [job]
        hours = 4
        [data]
        size_gb = 0
        [prices]
        gpu_per_hour = 1.44"#,
    );
    assert_eq!(q.cash_total, d("5.76"), "the bill stays in CNY");
    assert!(
        q.warnings.iter().any(|w| matches!(
            w,
            Warning::ChargedInForeignCurrency { currency, rate, total }
                if currency == "USD" && *rate == d("7.2") && *total == d("0.80")
        )),
        "it names the currency, the rate and the total in it: {:?}",
        q.warnings
    );
    let autodl = priced(
        r#"name = "AutoDL"
        platform = "autodl"
        gpu = "rtx3090"
        setup_hours = 0
        [job]
        hours = 4"#,
    );
    assert!(
        !autodl
            .warnings
            .iter()
            .any(|w| matches!(w, Warning::ChargedInForeignCurrency { .. })),
        "a platform charging in CNY says nothing of it"
    );
}

#[test]
fn one_charge_printed_as_two_lines_rounds_once() {
    // Each plan is one charge of exactly 0.25 printed as two lines of
    // 0.125: rounding each half up would bill 0.26.
    // (plan, the second line's kind, the bill by hand, why)
    let cases = [
        (
            r#"name = "half a minute on 矩池云"
            platform = "matpool"
            gpu = "rtx3090"
            setup_hours = 0
            [[run]]
            name = "r"
            count = 1
            minutes = 0.5
            [prices]
            gpu_per_hour = 15"#,
            LineKind::Rounding,
            "0.25",
            "30 s billed as one started minute at 15/h: 15 / 60",
        ),
        (
            r#"name = "half an hour on 揽睿星舟"
            platform = "lanrui"
            gpu = "rtx3090"
            setup_hours = 0
            [[run]]
            name = "r"
            count = 1
            minutes = 30
            [prices]
            gpu_per_hour = 0.25
            [storage]
            gb = 200"#,
            LineKind::Waste,
            "0.25",
            "30 min under the one-hour minimum at 0.25/h",
        ),
        (
            r#"name = "Saturday 18:00 on Vast"
            platform = "vast"
            gpu = "rtx3090"
            setup_hours = 0
            start_date = "2026-12-05"
            start_hour = 18
            [[run]]
            name = "r"
            count = 1
            minutes = 30
            [prices]
            gpu_per_hour = 0.25
            [data]
            size_gb = 0"#,
            LineKind::PeakSurcharge,
            "0.25",
            "30 peak minutes at twice 0.25/h",
        ),
    ];
    // A run partly in peak: Saturday 17:00 for 70 min at 1.6/h, the last
    // 10 min at twice: 1.6 + 600 x 3.2 / 3600 = 2.1333, one charge of
    // 2.13: runs 1.87 (70 min at 1.6 = 1.8667) and a surcharge of 0.26.
    let q = priced(
        r#"name = "into the evening"
        platform = "vast"
        gpu = "rtx3090"
        setup_hours = 0
        start_date = "2026-12-05"
        start_hour = 17
        [[run]]
        name = "r"
        count = 1
        minutes = 70
        [prices]
        gpu_per_hour = 1.6
        [data]
        size_gb = 0"#,
    );
    assert_eq!(line(&q, LineKind::Runs), d("1.87"), "the run's own line");
    assert_eq!(
        line(&q, LineKind::PeakSurcharge),
        d("0.26"),
        "the surcharge completes the one charge of 2.13"
    );
    // A billing unit's rest and a peak surcharge on the same run: Friday
    // 20:00 for 1,320.5 min at 15/h billed per minute on Vast; the last
    // 30 s fall in Saturday's peak. Runs 330.125 -> 330.13, the minute's
    // rest 0.125 -> 0.12 (330.25 billed), the surcharge the rest of
    // 330.25 + 0.125 = 330.375 -> 330.38: 0.13, not 0.12 (the rest line's
    // printed 0.12 taken for its exact 0.125).
    let q = priced(
        r#"name = "into Saturday"
        platform = "vast"
        gpu = "rtx4090"
        setup_hours = 0
        start_date = "2026-12-04"
        start_hour = 20
        [[run]]
        name = "r"
        count = 1
        minutes = 1320.5
        [data]
        size_gb = 0
        [prices]
        gpu_per_hour = 15
        granularity = "minute""#,
    );
    assert_eq!(
        line(&q, LineKind::PeakSurcharge),
        d("0.13"),
        "three lines, one charge"
    );
    assert_eq!(q.cash_total, d("330.38"), "330.375 rounded once");
    for (toml, second, hand, why) in cases {
        let q = priced(toml);
        let both = line(&q, LineKind::Runs) + line(&q, second);
        assert_eq!(both, d(hand), "{why}: runs + {second:?}");
        assert_eq!(
            line(&q, LineKind::Runs),
            d("0.13"),
            "{why}: the first line alone rounds half up"
        );
    }
}

#[test]
fn a_half_fen_rounds_up_when_the_hours_are_not_whole() {
    // 20 min at 0.015 per hour: 1200 x 0.015 / 3600 = 0.005 exactly, half
    // a fen: 0.01. Hours held to six places (0.333333 h) made it 0.0049999.
    let q = priced(
        r#"name = "a third of an hour"
        platform = "autodl"
        gpu = "rtx3090"
        setup_hours = 0
        [[run]]
        name = "x"
        count = 1
        minutes = 20
        [prices]
        gpu_per_hour = "0.015""#,
    );
    assert_eq!(line(&q, LineKind::Runs), d("0.01"), "half a fen rounds up");
    assert_eq!(
        line(&q, LineKind::Rounding),
        d("0"),
        "per-second billing of whole seconds wastes nothing, not a residue shown as 0.00"
    );
    // 95 min x 7 at 1.98: 39,900 s x 1.98 / 3600 = 21.945, so 21.95.
    let q = priced(
        r#"name = "seven runs of 95 minutes"
        platform = "gongji"
        gpu = "rtx4090"
        setup_hours = 0
        [[run]]
        name = "x"
        count = 7
        minutes = 95
        [prices]
        gpu_per_hour = "1.98""#,
    );
    assert_eq!(line(&q, LineKind::Runs), d("21.95"), "21.945 rounds up");
}

#[test]
fn data_on_persistent_storage_is_uploaded_once_however_often_instances_are_released() {
    // Three runs released between them, the data on persistent storage:
    // each fresh instance is set up again (3 setups) but the data is still
    // there, so one upload and one traffic charge, not three.
    let q = priced(
        r#"name = "persistent data"
        platform = "youyun"
        gpu = "rtx3090"
        setup_hours = 0.25
        [[run]]
        name = "exp"
        count = 3
        hours = 3
        [schedule]
        days = 30
        between_runs = "release"
        [storage]
        gb = 120
        on = "persistent"
        days = 90
        [data]
        size_gb = 20
        upload_mbps = 50"#,
    );
    assert_eq!(
        param(&q, LineKind::Setup, "instances").as_deref(),
        Some("3"),
        "each fresh instance is set up"
    );
    assert_eq!(
        param(&q, LineKind::Upload, "uploads").as_deref(),
        Some("1"),
        "the data outlives the releases on persistent storage"
    );
    let on_instance = priced(
        r#"name = "instance data"
        platform = "youyun"
        gpu = "rtx3090"
        setup_hours = 0.25
        [[run]]
        name = "exp"
        count = 3
        hours = 3
        [schedule]
        days = 30
        between_runs = "release"
        [storage]
        gb = 120
        [data]
        size_gb = 20
        upload_mbps = 50"#,
    );
    assert!(
        line(&on_instance, LineKind::Upload) > line(&q, LineKind::Upload),
        "on the instance's disk each fresh instance needs the data again"
    );
}

#[test]
fn a_plan_giving_hours_and_a_model_to_time_is_refused() {
    // hours = 1 beside a 90-epoch ImageNet job used to price 1 h silently.
    let e = Plan::from_toml(
        "test plan",
        r#"name = "both"
        platform = "autodl"
        gpu = "rtx3090"
        [job]
        hours = 1
        model = "resnet50"
        dataset_samples = 1281167
        epochs = 90"#,
    )
    .expect_err("both ways of timing a run");
    assert!(
        e.to_string().contains("dataset_samples"),
        "the error names the field to drop: {e}"
    );
    // The app keeps dataset_samples beside typed hours once the model is
    // cleared: nothing is timed twice, so it prices.
    let q = priced(
        r#"name = "hours typed in the app"
        platform = "autodl"
        gpu = "rtx3090"
        [job]
        hours = 10
        dataset_samples = 50000
        epochs = 50"#,
    );
    assert!(q.cash_total > Decimal::ZERO, "hours without a model price");
}

#[test]
fn youyun_deadline_recycles_the_instance_but_keeps_and_bills_the_data_disk() {
    // 优云智算: "连续关机 7 天后实例、系统盘和 EIP 被回收，数据盘卸载后保留（照常计费）".
    // Two 4 h runs with a 168 h stop between: the deadline recycles the
    // instance, so the second run is set up again (2 setups), but the data
    // disk is kept: one upload, and its storage bills through the stop.
    let q = priced(
        r#"name = "a week stopped on youyun"
        platform = "youyun"
        gpu = "rtx3090"
        setup_hours = 0.5
        [[run]]
        name = "exp"
        count = 2
        hours = 4
        [stops]
        count = 1
        hours_each = 168
        [storage]
        gb = 160
        [data]
        size_gb = 10
        upload_mbps = 80"#,
    );
    assert_eq!(
        param(&q, LineKind::Setup, "instances").as_deref(),
        Some("2"),
        "the fresh instance is set up again"
    );
    assert_eq!(
        param(&q, LineKind::Upload, "uploads").as_deref(),
        Some("1"),
        "the kept data disk needs no upload"
    );
    assert!(
        q.warnings
            .iter()
            .any(|w| matches!(w, Warning::InstanceReleased { .. })),
        "the deadline's recycling is said"
    );
    assert!(
        !q.warnings
            .iter()
            .any(|w| matches!(w, Warning::DataWiped { .. })),
        "no 'data deleted' on a platform that keeps the data disk"
    );
    // The data outlives the deadline, so it is on a data disk, which has no
    // free part (the free 100 GB are the recycled system disk's): all
    // 160 GB for the whole 177.3 h span at 0.012 per GB-day, 14.18; the
    // disk bills through the deadline, not to it.
    assert_eq!(
        line(&q, LineKind::DataDisk),
        d("14.18"),
        "storage through the stop, no free part"
    );
    assert_eq!(
        line(&q, LineKind::Storage),
        d("0"),
        "the line is the data disk's, not an instance disk 'above the free 0 GB'"
    );
    // Stopped less than the deadline, the data stays on the system disk
    // and its free 100 GB count.
    let short = priced(
        r#"name = "a few days stopped on youyun"
        platform = "youyun"
        gpu = "rtx3090"
        setup_hours = 0
        [[run]]
        name = "exp"
        count = 2
        hours = 4
        [stops]
        count = 1
        hours_each = 40
        [storage]
        gb = 160"#,
    );
    assert_eq!(
        param(&short, LineKind::Storage, "free").as_deref(),
        Some("100"),
        "the system disk's free part counts before the deadline"
    );
    assert_eq!(
        line(&short, LineKind::DataDisk),
        d("0"),
        "no data disk before the deadline"
    );
}

#[test]
fn a_spot_instance_that_cannot_be_stopped_is_not_priced_as_stopped() {
    // 优云智算's spot instances "不能关机、只能删除": a plan stopping one
    // between runs is refused, naming the field, instead of billing a
    // stopped disk that does not exist.
    let e = refused(
        r#"name = "spot, stopped"
        platform = "youyun"
        gpu = "rtx3090"
        payment = "spot"
        [[run]]
        name = "x"
        count = 3
        hours = 4
        [schedule]
        days = 6
        between_runs = "stop""#,
    );
    assert_eq!(
        e.field, "schedule.between_runs",
        "the field to change is named"
    );
    let released = priced(
        r#"name = "spot, released"
        platform = "youyun"
        gpu = "rtx3090"
        payment = "spot"
        [[run]]
        name = "x"
        count = 3
        hours = 4
        [schedule]
        days = 6
        between_runs = "release""#,
    );
    assert!(
        released.cash_total > Decimal::ZERO,
        "releasing between runs prices"
    );
}

#[test]
fn runs_on_an_instance_kept_running_boot_once() {
    // AutoDL: queue 10 min, startup 2 min. Three runs a day apart with the
    // instance kept running between them: one queue, one boot (0.20 h of
    // waiting), not a boot before each run (0.27 h).
    let q = priced(
        r#"name = "kept running"
        platform = "autodl"
        gpu = "rtx5090"
        [[run]]
        name = "x"
        count = 3
        hours = 2
        [schedule]
        days = 1
        between_runs = "keep-running""#,
    );
    assert_eq!(q.time.waiting, d("0.20"), "one queue and one boot");
}

#[test]
fn a_job_that_cannot_run_on_the_card_says_so_before_anything_else() {
    // (platform, card, job table, the warning expected first, why)
    let cases = [
        (
            "autodl",
            "rtx4090",
            "model = \"llama-2-7b\"\nmode = \"lora\"\nseq_len = 1024\nbatch = 4\ndataset_samples = 2000\nepochs = 1",
            Some("job-does-not-fit"),
            "a 16-bit 7B base with LoRA needs ~38 GiB: the 4090's 24 GiB runs out at the first step",
        ),
        (
            "autodl",
            "rtx4090",
            "model = \"llama-2-7b\"\nmode = \"qlora\"\nseq_len = 1024\nbatch = 4\ndataset_samples = 2000\nepochs = 1",
            None,
            "QLoRA of the same base fits the 4090: no warning",
        ),
        (
            "gpushare",
            "rtx2080ti",
            "model = \"resnet50\"\nprecision = \"bf16-amp\"\nbatch = 32\ndataset_samples = 20000\nepochs = 1",
            Some("precision-unsupported"),
            "Turing has no bf16",
        ),
        (
            "autodl",
            "rtx4090",
            "hours = 3",
            None,
            "a job given in hours is not estimated: nothing to check",
        ),
    ];
    for (platform, gpu, job, first, why) in cases {
        let q = priced(&format!(
            "name = \"fit\"\nplatform = \"{platform}\"\ngpu = \"{gpu}\"\n[job]\n{job}"
        ));
        let kinds: Vec<&str> = q.warnings.iter().map(|w| w.kind()).collect();
        let stops = kinds
            .iter()
            .copied()
            .filter(|k| ["job-does-not-fit", "precision-unsupported"].contains(k))
            .collect::<Vec<_>>();
        match first {
            Some(kind) => assert_eq!(kinds.first().copied(), Some(kind), "{why}: {kinds:?}"),
            None => assert!(stops.is_empty(), "{why}: {kinds:?}"),
        }
    }
    // The figures the warning states are the estimate's.
    let q = priced(
        "name = \"x\"\nplatform = \"autodl\"\ngpu = \"rtx4090\"\n[job]\nmodel = \"llama-2-7b\"\nmode = \"lora\"\nseq_len = 1024\nbatch = 4\ndataset_samples = 2000\nepochs = 1",
    );
    assert!(
        matches!(q.warnings.first(), Some(Warning::JobDoesNotFit { peak_gib, card_gib }) if *peak_gib > d("30") && *card_gib < d("24.5")),
        "peak above the card's memory: {:?}",
        q.warnings.first()
    );
}

#[test]
fn a_spot_instance_is_set_up_at_the_spot_price() {
    // Vast.ai RTX 3090: 1.60/h on demand, 0.80/h spot (the profile's figures),
    // no no-GPU mode, so setup runs on the GPU instance: 0.25 h x 0.80 = 0.20
    // (at the on-demand price it would be 0.40).
    let q = priced(
        r#"name = "spot setup"
        platform = "vast"
        gpu = "rtx3090"
        payment = "spot"
        [job]
        hours = 6
        [spot]
        checkpoint_every_hours = 1
        preemptions_per_day = 0"#,
    );
    assert_eq!(q.price_per_hour, d("0.8"), "the spot price");
    assert_eq!(
        line(&q, LineKind::Setup),
        d("0.20"),
        "setup runs on the spot instance at its price"
    );
}

#[test]
fn a_disk_sold_in_sizes_bills_the_size_that_holds_it() {
    // 揽睿星舟 sells its data disk as 200 GB at 0.1/h or 500 GB at 0.2/h
    // (its manual). A 24 h run keeping (GB kept, billed, why):
    let cases = [
        ("0", "0", "no data disk rented: it is optional, so nothing"),
        ("100", "2.40", "under 200 GB: the 200 GB size, 0.1 x 24"),
        ("200", "2.40", "exactly the small size"),
        (
            "300",
            "4.80",
            "over 200 GB needs the 500 GB size, 0.2 x 24 (not 300 GB per GB)",
        ),
        ("500", "4.80", "exactly the large size"),
    ];
    for (gb, billed, why) in cases {
        let q = priced(&format!(
            "name = \"disk\"\nplatform = \"lanrui\"\ngpu = \"rtx3090\"\nsetup_hours = 0\n[job]\nhours = 24\n[storage]\ngb = {gb}"
        ));
        assert_eq!(line(&q, LineKind::Storage), d(billed), "{why}");
    }
    let err = refused(
        "name = \"disk\"\nplatform = \"lanrui\"\ngpu = \"rtx3090\"\nsetup_hours = 0\n[job]\nhours = 24\n[storage]\ngb = 600",
    );
    assert_eq!(
        err.field, "storage.gb",
        "larger than the largest size: {err}"
    );
    // A plan's own price per GB applies to the size billed.
    let q = priced(
        "name = \"disk\"\nplatform = \"lanrui\"\ngpu = \"rtx3090\"\nsetup_hours = 0\n[job]\nhours = 24\n[storage]\ngb = 300\n[prices]\nstorage_per_gb_day = 0.01",
    );
    assert_eq!(
        line(&q, LineKind::Storage),
        d("5.00"),
        "500 GB x 1 d x 0.01"
    );
}

#[test]
fn data_on_persistent_storage_rents_no_optional_data_disk() {
    // 揽睿星舟: a 4 h job keeping 30 GB on the netdisk for 10 days. Its
    // data disk is optional and holds nothing here: none is rented (a
    // 200 GB one billed 0.40 for the work's 4 h). GPU 4 x 2.5 = 10.00;
    // netdisk (30 - 10 free) x 10 d x 0.005 = 1.00; total 11.00.
    let q = priced(
        r#"name = "lanrui netdisk"
        platform = "lanrui"
        gpu = "rtx3090"
        setup_hours = 0
        [job]
        hours = 4
        [data]
        size_gb = 0
        [storage]
        gb = 30
        days = 10
        on = "persistent""#,
    );
    assert_eq!(
        line(&q, LineKind::Storage),
        d("0"),
        "no data disk: the data is on the netdisk"
    );
    assert_eq!(
        line(&q, LineKind::PersistentStorage),
        d("1.00"),
        "the netdisk's ten days"
    );
    assert_eq!(q.cash_total, d("11.00"), "the hand bill");
}

#[test]
fn a_wiped_scratch_directory_gets_its_data_again() {
    // 恒源云 wipes /hy-tmp 24 h after a stop, the instance kept (released
    // only after 10 days). A 10 GB dataset at 100 Mbit/s, a 4 h job with
    // one stop of (hours, where the data is kept, uploads, why):
    let cases = [
        (
            "20",
            "instance",
            "1",
            "a stop under a day leaves /hy-tmp alone",
        ),
        (
            "30",
            "instance",
            "2",
            "past 24 h the data is uploaded again to the same instance",
        ),
        ("30", "persistent", "1", "data on /hy-nas outlives the wipe"),
    ];
    for (hours, on, uploads, why) in cases {
        let q = priced(&format!(
            "name = \"wipe\"\nplatform = \"gpushare\"\ngpu = \"rtx4090\"\n[job]\nhours = 4\n[stops]\ncount = 1\nhours_each = {hours}\n[data]\nsize_gb = 10\nupload_mbps = 100\n[storage]\ngb = 50\non = \"{on}\""
        ));
        assert_eq!(
            param(&q, LineKind::Upload, "uploads").as_deref(),
            Some(uploads),
            "{why}"
        );
        assert_eq!(
            param(&q, LineKind::Setup, "instances").as_deref(),
            Some("1"),
            "{why}: the instance itself is set up once"
        );
    }
}

#[test]
fn a_matpool_stop_keeps_the_environment_about_a_day() {
    // 矩池云's stop saves the environment temporarily and releases the
    // machine; the temporary save expires after about 24 h (profile,
    // estimate). Two 2 h runs with one stop between of (hours, set-ups, why):
    let cases = [
        ("12", "1", "within the day the saved environment comes back"),
        (
            "48",
            "2",
            "after it a fresh machine is set up and given its data",
        ),
    ];
    for (hours, set_ups, why) in cases {
        let q = priced(&format!(
            "name = \"stop\"\nplatform = \"matpool\"\ngpu = \"rtx3090\"\n[[run]]\nname = \"r\"\ncount = 2\nhours = 2\n[stops]\ncount = 1\nhours_each = {hours}\n[data]\nsize_gb = 10\nupload_mbps = 100"
        ));
        assert_eq!(
            param(&q, LineKind::Setup, "instances").as_deref(),
            Some(set_ups),
            "{why}"
        );
        assert_eq!(
            param(&q, LineKind::Upload, "uploads").as_deref(),
            Some(set_ups),
            "{why}: the data comes with each machine"
        );
    }
}

#[test]
fn a_run_given_in_epochs_costs_the_same_whatever_the_jobs_epochs() {
    // A `[[run]]` of 10 epochs times 10 epochs of the job's steps,
    // evaluation and checkpoints plus one warm-up, however many epochs the
    // job itself names: the warm-up is paid once per run, not scaled.
    let time = |job_epochs: u32| {
        let q = priced(&format!(
            "name = \"sweep\"\nplatform = \"autodl\"\ngpu = \"rtx3090\"\nsetup_hours = 0\n[job]\nmodel = \"resnet50\"\nbatch = 64\ndataset_samples = 20000\nepochs = {job_epochs}\n[[run]]\nname = \"lr\"\ncount = 2\nepochs = 10"
        ));
        param(&q, LineKind::Runs, "time_s").expect("a run line")
    };
    let (one, ten, thirty) = (time(1), time(10), time(30));
    assert_eq!(one, ten, "job epochs 1 vs 10: the same run");
    assert_eq!(ten, thirty, "job epochs 10 vs 30: the same run");
}

#[test]
fn a_disk_on_a_package_bills_the_packages_disk_price_for_every_period_bought() {
    // 优云智算's disk: 0.0005/GB/h by the hour (0.012 a day), 0.011/GB/day
    // on a day package, 0.3/GB/month on a month package (its docs). 300 GB
    // kept, 100 GB free: 200 GB billed. (payment, hours, bill, why)
    let cases = [
        (
            "\"on-demand\"",
            "20",
            "2.00",
            "by the hour: 200 x 20/24 d x 0.012 = 2.00",
        ),
        (
            "{ package = \"day\" }",
            "20",
            "2.20",
            "a day package prepays its day, disk too: 200 x 1 d x 0.011",
        ),
        (
            "{ package = \"day\" }",
            "30",
            "4.40",
            "30 h is two day packages: 200 x 2 d x 0.011",
        ),
        (
            "{ package = \"month\" }",
            "100",
            "60.00",
            "a month package: 200 x 30 d x 0.3/30 = 60.00",
        ),
    ];
    for (payment, hours, bill, why) in cases {
        let q = priced(&format!(
            "name = \"disk\"\nplatform = \"youyun\"\ngpu = \"rtx3090\"\nsetup_hours = 0\npayment = {payment}\n[job]\nhours = {hours}\n[storage]\ngb = 300"
        ));
        assert_eq!(line(&q, LineKind::Storage), d(bill), "{why}");
    }
    // The plan's own disk price is its own: charged for the days used.
    let q = priced(
        "name = \"disk\"\nplatform = \"youyun\"\ngpu = \"rtx3090\"\nsetup_hours = 0\npayment = { package = \"day\" }\n[job]\nhours = 12\n[storage]\ngb = 300\n[prices]\nstorage_per_gb_day = 0.02",
    );
    assert_eq!(
        line(&q, LineKind::Storage),
        d("2.00"),
        "200 GB x 0.5 d x 0.02, the plan's price by the day"
    );
}

#[test]
fn the_waste_warning_needs_waste_the_bill_prints() {
    // A 6-minute run billed per started hour wastes 54 of 60 minutes (90%).
    // At 1 CNY/h the waste line is 0.90 and worth a warning; at 0.004 CNY/h
    // the whole charge is 0.0004 -> 0.00, the bill prints no waste, and a
    // warning about it would point at nothing.
    let at = |price: &str| {
        priced(&format!(
            "name = \"w\"\nplatform = \"autodl\"\ngpu = \"rtx4090\"\nsetup_hours = 0\n\
             [prices]\ngpu_per_hour = {price}\ngranularity = \"hour\"\n\
             [[run]]\nname = \"r\"\ncount = 1\nhours = 0.1\n"
        ))
    };
    let warns = |q: &Quote| {
        q.warnings
            .iter()
            .any(|w| matches!(w, Warning::MinimumChargeWaste { .. }))
    };
    let dear = at("1");
    assert_eq!(
        cat(&dear, Category::MinimumChargeWaste),
        d("0.90"),
        "54 min at 1/h"
    );
    assert!(
        warns(&dear),
        "90% of the time billed for nothing, 0.90 CNY: warned"
    );
    let cheap = at("0.004");
    assert_eq!(
        cat(&cheap, Category::MinimumChargeWaste),
        d("0"),
        "rounds to 0.00"
    );
    assert!(!warns(&cheap), "no printed waste, no waste warning");
}

#[test]
fn a_packaged_instance_outlives_a_deadline_meant_for_pay_as_you_go() {
    // 优云智算 recycles a *pay-as-you-go* instance stopped 7 days. Two 20 h
    // runs 20 days apart sit stopped 9.2 days. Paid as you go the second
    // run starts on a fresh instance, set up again: 2 × 0.5 h of no-GPU
    // setup. On a month package the instance stays (prepaid, "关机也不退"):
    // one setup, 0.5 h × 0.15 = 0.075 -> 0.08, and no recycle warning.
    let plan_with = |payment: &str| {
        priced(&format!(
            "name = \"p\"\nplatform = \"youyun\"\ngpu = \"rtx4090\"\n{payment}\
             setup_hours = 0.5\n[[run]]\nname = \"r\"\ncount = 2\nhours = 20\n\
             [schedule]\ndays = 20\nbetween_runs = \"stop\"\n"
        ))
    };
    let recycled = |q: &Quote| {
        q.warnings
            .iter()
            .any(|w| matches!(w, Warning::InstanceReleased { .. }))
    };
    let paygo = plan_with("");
    assert_eq!(
        param(&paygo, LineKind::Setup, "instances").as_deref(),
        Some("2"),
        "recycled: set up again"
    );
    assert!(recycled(&paygo), "pay as you go is recycled and told so");
    let month = plan_with("payment = { package = \"month\" }\n");
    assert_eq!(
        param(&month, LineKind::Setup, "instances").as_deref(),
        Some("1"),
        "the package keeps it"
    );
    assert_eq!(
        line(&month, LineKind::Setup),
        d("0.08"),
        "one setup of 0.5 h at 0.15/h"
    );
    assert!(!recycled(&month), "no recycle on a package");
}

#[test]
fn kaggles_t4_session_has_two_gpus_and_the_quota_counts_its_hours() {
    // Kaggle's "T4 x2" session: two T4s, free, and the weekly quota counts
    // how long the session runs, not the GPUs in it. Two 20 h runs (40 h)
    // against a 30 h week take two weeks with one GPU or two.
    let on = |gpus: u32| {
        priced(&format!(
            "name = \"k\"\nplatform = \"kaggle\"\ngpu = \"t4\"\nsetup_hours = 0\n\
             [job]\nhours = 20\ngpus = {gpus}\n[[run]]\nname = \"r\"\ncount = 2\nhours = 20\n"
        ))
    };
    let (one, two) = (on(1), on(2));
    assert_eq!(two.cash_total, d("0"), "the T4 x2 session is free");
    assert_eq!(
        two.time_to_result_hours, one.time_to_result_hours,
        "the quota counts session hours, so a second GPU waits no longer"
    );
    let three =
        refused("name = \"k\"\nplatform = \"kaggle\"\ngpu = \"t4\"\n[job]\nhours = 1\ngpus = 3\n");
    assert_eq!(three.field, "job.gpus", "a session has at most two T4s");
}

#[test]
fn a_stop_inside_a_run_that_the_deadline_ends_is_refused_not_resumed() {
    // One 3 h run split by a stop of 16 days: AutoDL releases the instance
    // at 15 days and deletes its disk, checkpoints included, so the run
    // cannot resume as the plan says. Refused naming the stop, with the
    // ways out; each way out is priced.
    let split = |stop_hours: u32, extra: &str| {
        format!(
            "name = \"split\"\nplatform = \"autodl\"\ngpu = \"rtx3090\"\n[job]\nhours = 3\n\
             [stops]\ncount = 1\nhours_each = {stop_hours}\n[storage]\ngb = 60\n{extra}"
        )
    };
    let e = refused(&split(400, ""));
    assert_eq!(
        e.field, "stops.hours_each",
        "the stop that deletes the checkpoints"
    );
    assert!(
        e.message.contains("15-day"),
        "names the deadline: {}",
        e.message
    );
    // (plan, why it can be priced)
    let ways_out = [
        (
            split(300, ""),
            "a stop shorter than the deadline keeps the disk",
        ),
        (
            split(400, "on = \"persistent\"\n"),
            "checkpoints on persistent storage outlive the release",
        ),
        (
            "name = \"two\"\nplatform = \"autodl\"\ngpu = \"rtx3090\"\n[[run]]\nname = \"r\"\n\
             count = 2\nhours = 1.5\n[stops]\ncount = 1\nhours_each = 400\n"
                .to_owned(),
            "a stop between two runs starts the next one afresh",
        ),
    ];
    for (toml, why) in ways_out {
        let q = priced(&toml);
        assert!(q.cash_total > Decimal::ZERO, "{why}");
    }
}

#[test]
fn a_limit_passed_by_a_second_reads_as_passed_and_no_data_means_no_upload_advice() {
    // A 48 h run and one second on a 48 h walltime: "48.01 h", not a
    // "48.00 h run" that "exceeds the 48 h cap".
    let q = priced(
        "name = \"w\"\nplatform = \"campus-slurm\"\ngpu = \"a100-40g-pcie\"\n[[run]]\nname = \"r\"\ncount = 1\nhours = 48.0003\n",
    );
    let run_hours = q.warnings.iter().find_map(|w| match w {
        Warning::RunExceedsCap { run_hours, .. } => Some(*run_hours),
        _ => None,
    });
    assert_eq!(
        run_hours,
        Some(d("48.01")),
        "rounded up past the cap it passes"
    );
    // Releasing between runs with no dataset: nothing to upload again, so
    // neither the 0.00 CNY sentence nor a 0.00-against-0.00 comparison.
    let bare = "name = \"r\"\nplatform = \"autodl\"\ngpu = \"rtx3090\"\n[[run]]\nname = \"r\"\ncount = 3\nhours = 1\n[schedule]\ndays = 3\nbetween_runs = \"release\"\n";
    let said = |q: &Quote| {
        q.warnings.iter().any(|w| {
            matches!(
                w,
                Warning::ReleasedBetweenRuns { .. } | Warning::PersistentInstead { .. }
            )
        })
    };
    assert!(!said(&priced(bare)), "no dataset: no upload advice");
    let with_data = format!("{bare}[data]\nsize_gb = 20\nupload_mbps = 50\n");
    assert!(
        said(&priced(&with_data)),
        "20 GB uploaded again after each release: said"
    );
}

#[test]
fn more_gpus_than_an_instance_has_is_told_before_how_they_would_split_over_nodes() {
    // (gpus, what the refusal says, why)
    let cases = [
        (
            9,
            "at most 8",
            "9 where an instance has 8: the offer's limit, not '8 or 10'",
        ),
        (10, "at most 8", "10: the same limit, the same words"),
    ];
    for (gpus, says, why) in cases {
        let e = refused(&format!(
            "name = \"g\"\nplatform = \"vast\"\ngpu = \"rtx3090\"\n[job]\nhours = 1\ngpus = {gpus}\n"
        ));
        assert_eq!(e.field, "job.gpus", "{why}");
        assert!(e.allowed.contains(says), "{why}: {}", e.allowed);
    }
}

#[test]
fn a_package_keeps_the_instance_only_while_it_lasts() {
    // 优云智算 spares a packaged instance its 7-day recycle while the
    // package lasts; after that the instance is pay-as-you-go and the
    // deadline runs. Two 20 h runs 20 days apart, stopped between:
    // (payment, set-ups, why)
    let cases = [
        (
            "",
            "2",
            "pay as you go: recycled 7 days into the 18-day stop",
        ),
        (
            "payment = { package = \"day\" }\n",
            "2",
            "a day package runs out a day in: recycled 7 days after that",
        ),
        (
            "payment = { package = \"month\" }\n",
            "1",
            "a month package covers the whole stop",
        ),
    ];
    for (payment, set_ups, why) in cases {
        let q = priced(&format!(
            "name = \"p\"\nplatform = \"youyun\"\ngpu = \"rtx4090\"\n{payment}\
             setup_hours = 0.5\n[[run]]\nname = \"r\"\ncount = 2\nhours = 20\n\
             [schedule]\ndays = 20\nbetween_runs = \"stop\"\n"
        ));
        assert_eq!(
            param(&q, LineKind::Setup, "instances").as_deref(),
            Some(set_ups),
            "{why}"
        );
    }
    // One 6 h run on a day package, 50 GB kept 30 days: the instance is
    // recycled a week after the package runs out, so the data sits on a
    // data disk (no free part); the package day bills at its disk price
    // (0.011), the 29 days after at pay as you go (0.012):
    // 50 x (0.011 + 29 x 0.012) = 17.95.
    let kept = priced(
        "name = \"k\"\nplatform = \"youyun\"\ngpu = \"rtx4090\"\npayment = { package = \"day\" }\n\
         [job]\nhours = 6\n[storage]\ngb = 50\ndays = 30\n",
    );
    assert_eq!(
        line(&kept, LineKind::DataDisk),
        d("17.95"),
        "the package's day, then pay as you go"
    );
}

#[test]
fn a_start_billed_by_the_hour_prints_lines_that_add_up_to_its_charge() {
    // (plan, lines that make up the start, the start's charge, why)
    let cases = [
        (
            // 揽睿星舟 sets up on the GPU: 15 min + a 1.1 h run is a 1.35 h
            // start, billed as 2 h at 2.5 = 5.00: 0.63 + 2.75 + 1.62.
            "name = \"l\"\nplatform = \"lanrui\"\ngpu = \"rtx3090\"\n[job]\nhours = 1.1\n",
            vec![LineKind::Setup, LineKind::Runs, LineKind::Waste],
            "5.00",
            "setup on the GPU is part of the start",
        ),
        (
            // A 1 h run left running 0.3 h, billed per started hour at 2.45:
            // 2 h = 4.90, printed 2.45 + 0.74 + 1.71.
            "name = \"f\"\nplatform = \"autodl\"\ngpu = \"rtx3090\"\nsetup_hours = 0\n\
             forgotten_shutdown_hours = 0.3\n[prices]\ngpu_per_hour = 2.45\ngranularity = \"hour\"\n\
             [job]\nhours = 1\n",
            vec![LineKind::Runs, LineKind::Forgotten, LineKind::Rounding],
            "4.90",
            "time left running is part of the start",
        ),
    ];
    for (toml, kinds, charge, why) in cases {
        let q = priced(toml);
        let printed: Decimal = kinds.iter().map(|k| line(&q, *k)).sum();
        assert_eq!(
            printed,
            d(charge),
            "{why}: the lines add up to the start's charge"
        );
    }
}

#[test]
fn a_disk_prepaid_with_packages_bills_pay_as_you_go_between_them() {
    // 优云智算 prices the disk with a month package (0.01 per GB-day) and
    // bills a disk no package covers at 0.012. Two 10 h runs, spaced over
    // the schedule's days, a month package bought for each: the disk kept
    // between the packages is billed, and each package's month is paid
    // whole. Hand bills (GB x (package days x 0.01 + other days x 0.012)):
    let cases = [
        (62, "122.40", "200 GB (the free 100 kept: no recycle inside a package's month and 7 days) x (60 x 0.01 + 1 x 0.012)"),
        (80, "216.00", "recycled after day 37: 300 GB x (60 x 0.01 + 10 x 0.012)"),
        (120, "288.00", "300 GB x (60 x 0.01 + 30 x 0.012)"),
        (180, "396.00", "300 GB x (60 x 0.01 + 60 x 0.012): the 60 days between packages were left unbilled (289.50)"),
    ];
    for (days, want, why) in cases {
        let q = priced(&format!(
            r#"name = "two runs, a package each"
            platform = "youyun"
            gpu = "rtx3090"
            setup_hours = 0
            payment = {{ package = "month" }}
            [job]
            hours = 10
            [[run]]
            name = "train"
            count = 2
            [schedule]
            days = {days}
            between_runs = "stop"
            [storage]
            gb = 300"#
        ));
        let disk = line(&q, LineKind::Storage) + line(&q, LineKind::DataDisk);
        assert_eq!(disk, d(want), "{days} days: {why}");
    }
}

#[test]
fn a_disk_billed_only_while_running_says_each_instances_days_not_their_sum() {
    // 恒源云 bills the disk only while the instance runs; its 10-day release
    // deadline gives each of three runs 12 days apart its own instance. Each
    // disk bills about 6.4 h (setup, upload, 5 h run): 0.27 d, not the
    // 0.80 d of the three together ("days are never added across instances").
    let q = priced(
        r#"name = "three instances"
        platform = "gpushare"
        gpu = "rtx3090"
        setup_hours = 0.5
        [job]
        hours = 5
        [[run]]
        name = "train"
        count = 3
        [schedule]
        days = 36
        between_runs = "stop"
        [storage]
        gb = 120
        [data]
        size_gb = 15
        upload_mbps = 40"#,
    );
    assert_eq!(
        param(&q, LineKind::Storage, "instances").as_deref(),
        Some("3"),
        "test setup: each run on a fresh instance"
    );
    assert_eq!(
        param(&q, LineKind::Storage, "days").as_deref(),
        Some("0.27"),
        "one instance's running days"
    );
}

#[test]
fn stops_on_a_disk_that_bills_stopped_say_when_the_plan_sizes_no_disk() {
    // Vast bills a stopped instance's disk ("still charged storage costs
    // for stopped instances"), with no free part: a plan that names no disk
    // prices its stops at nothing, and is told so.
    let plan = |between: &str, storage: &str| {
        format!(
            r#"name = "a week between runs"
            platform = "vast"
            gpu = "rtx4090"
            setup_hours = 0
            [job]
            hours = 3
            [[run]]
            name = "train"
            count = 2
            [schedule]
            days = 14
            between_runs = "{between}"
            {storage}"#
        )
    };
    let told = |q: &Quote| q.warnings.contains(&Warning::DiskUnsized);
    // (between runs, storage table, told, why)
    let cases = [
        ("stop", "", true, "no disk named: the stops would look free"),
        (
            "stop",
            "[storage]\ngb = 40",
            false,
            "a disk named is priced (its own line)",
        ),
        (
            "stop",
            "[storage]\ngb = 0",
            false,
            "no disk said outright is the plan's word",
        ),
        (
            "release",
            "",
            false,
            "released between runs: no stopped disk to price",
        ),
    ];
    for (between, storage, want, why) in cases {
        let q = priced(&plan(between, storage));
        assert_eq!(told(&q), want, "{why}");
    }
}
