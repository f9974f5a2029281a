//! Billing truth, round three (issue 21): the bill follows the schedule hour
//! by hour. One named test per case, each with its plan written as a
//! student would, the bill computed by hand in a comment, and the expected
//! figures. Prices are pinned in the plans so the hand computation is
//! short; the rules are the bundled profiles'.

use crate::common;

use gpuplan_core::plan::Plan;
use gpuplan_core::quote::{quote, Category, LineKind, Quote, Warning};
use rust_decimal::Decimal;

fn priced(toml: &str) -> Quote {
    let p = Plan::from_toml("test plan", toml).unwrap_or_else(|e| panic!("{e}"));
    let platforms = common::platforms();
    let profile = platforms.get(&p.platform).expect("platform");
    quote(&p, profile, common::catalog(), common::zoo()).unwrap_or_else(|e| panic!("{e}"))
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

fn param<'a>(q: &'a Quote, kind: LineKind, name: &str) -> Option<&'a str> {
    q.lines
        .iter()
        .find(|l| l.kind == kind)
        .and_then(|l| l.params.get(name))
}

fn cat(q: &Quote, c: Category) -> Decimal {
    q.by_category.get(&c).copied().unwrap_or_default()
}

// ---- Peak prices on every running hour, where it really is -------------

#[test]
fn a_run_after_debugging_pays_the_peak_of_the_hours_it_really_runs() {
    // Vast.ai, peak Saturday and Sunday 18:00-24:00 at 2x. Saturday
    // 2026-12-05 from 14:00: debugging 2 h (14-16), then the run 4 h
    // (16-20): 18-20 is peak, 2 h x 1.00 x (2 - 1) = 2.00. Debug 2.00, run
    // 4.00, peak 2.00: 8.00. (Laid out without the debugging, the run would
    // be 14-18 and pay no peak at all.)
    let q = priced(
        r#"name = "debug then run"
        platform = "vast"
        gpu = "rtx3090"
        setup_hours = 0
        start_date = "2026-12-05"
        start_hour = 14
        [job]
        hours = 4
        [debug]
        gpu = "rtx3090"
        hours = 2
        [prices]
        gpu_per_hour = 1
        debug_gpu_per_hour = 1"#,
    );
    assert_eq!(
        line(&q, LineKind::PeakSurcharge),
        d("2.00"),
        "the run's two evening hours"
    );
    assert_eq!(q.cash_total, d("8.00"), "2 + 4 + 2");
}

#[test]
fn an_instance_forgotten_through_sunday_evening_pays_its_peak_hours() {
    // Sunday 2026-12-06 from 12:00: a 2 h run (12-14), then forgotten 8 h
    // (14-22): 18-22 is peak, 4 h x 1.00 = 4.00 more. Run 2.00, forgotten
    // 8.00, peak 4.00: 14.00.
    let q = priced(
        r#"name = "forgotten on Sunday"
        platform = "vast"
        gpu = "rtx3090"
        setup_hours = 0
        start_date = "2026-12-06"
        start_hour = 12
        forgotten_shutdown_hours = 8
        [job]
        hours = 2
        [prices]
        gpu_per_hour = 1"#,
    );
    assert_eq!(
        line(&q, LineKind::PeakSurcharge),
        d("4.00"),
        "four forgotten evening hours"
    );
    assert_eq!(
        line(&q, LineKind::Forgotten),
        d("8.00"),
        "eight forgotten hours"
    );
    assert_eq!(q.cash_total, d("14.00"), "2 + 8 + 4");
    assert_eq!(
        cat(&q, Category::IdleRunning),
        d("8.00"),
        "running idle is running, not 'stopped'"
    );
}

#[test]
fn an_instance_kept_running_between_runs_pays_peak_and_is_told_to_stop() {
    // Saturday 2026-12-05 from 12:00, two 2 h runs a day apart's half: the
    // schedule spaces them 12 h (1 day / 2 runs). Run 12-14, kept running
    // 14-24 (10 h, of which 18-24 = 6 h peak), run Sunday 00-02. Runs 4.00,
    // idle 10.00, peak 6.00: 20.00. Stopped instead (no fee on Vast.ai,
    // per-second billing, the disk bills either way): the runs alone, 4.00,
    // and the quote says so with both totals.
    let q = priced(
        r#"name = "kept running"
        platform = "vast"
        gpu = "rtx3090"
        setup_hours = 0
        start_date = "2026-12-05"
        start_hour = 12
        [[run]]
        name = "run"
        count = 2
        hours = 2
        [schedule]
        days = 1
        between_runs = "keep-running"
        [prices]
        gpu_per_hour = 1"#,
    );
    assert_eq!(
        line(&q, LineKind::IdleBetween),
        d("10.00"),
        "ten idle hours"
    );
    assert_eq!(
        line(&q, LineKind::PeakSurcharge),
        d("6.00"),
        "six of them in the evening"
    );
    assert_eq!(q.cash_total, d("20.00"), "4 + 10 + 6");
    assert!(
        q.warnings.iter().any(
            |w| matches!(w, Warning::StopBetweenRuns { total, stopped_total, .. }
            if *total == d("20.00") && *stopped_total == d("4.00"))
        ),
        "advice with both figures: {:?}",
        q.warnings
    );
}

#[test]
fn stopping_between_runs_is_advised_only_when_the_whole_bill_is_lower() {
    // 揽睿星舟 bills by the started hour with a 60-minute minimum. Three
    // 1.2 h runs, one every 1.5 h (days = 0.1875 over 3 runs), kept running:
    // one start of 4.2 h, billed 5 h. Stopped between runs: three starts of
    // 1.2 h, each billed 2 h, 6 h. Keeping it running is cheaper, so no
    // advice to stop, however idle the 0.6 h between runs look.
    let plan = |between: &str| {
        priced(&format!(
            r#"name = "short runs on hourly billing"
            platform = "lanrui"
            gpu = "a100-80g-sxm"
            setup_hours = 0
            [[run]]
            name = "run"
            count = 3
            hours = 1.2
            [schedule]
            days = 0.1875
            between_runs = "{between}"
            [prices]
            gpu_per_hour = 6.5"#
        ))
    };
    let q = plan("keep-running");
    let stopped = plan("stop");
    assert!(
        stopped.cash_total > q.cash_total,
        "three billed starts cost more than one: {} vs {}",
        stopped.cash_total,
        q.cash_total
    );
    assert!(
        !q.warnings
            .iter()
            .any(|w| matches!(w, Warning::StopBetweenRuns { .. })),
        "no advice to stop where stopping costs more: {:?}",
        q.warnings
    );
}

// ---- Release means release -----------------------------------------------

#[test]
fn each_instance_after_a_release_needs_its_data_again() {
    // Vast.ai (no no-GPU mode: uploads at the GPU's 1.00/h; traffic in
    // 0.0192/GB, the profile's), three 2 h sessions a day apart, released
    // between. 20 GB at 20 Mbit/s: 20 x 8192 / 20 = 8192 s, unpacking 20 GB
    // at 150 MB/s = 133.333 s: 8325.333 s = 2.312593 h, onto three
    // instances: 6.937778 h -> 6.94. Traffic in 3 x 20 GB x 0.0192 = 1.152
    // -> 1.15. Runs 3 x 2 h = 6.00. Total 14.09. Bringing the data back to
    // the two fresh instances: 2 x (2.312593 + 20 x 0.0192) = 5.393 ->
    // 5.39, and the quote says what a release deletes.
    let q = priced(
        r#"name = "release between sessions"
        platform = "vast"
        gpu = "rtx3090"
        setup_hours = 0
        [[run]]
        name = "session"
        count = 3
        hours = 2
        [schedule]
        days = 3
        between_runs = "release"
        [data]
        size_gb = 20
        upload_mbps = 20
        [prices]
        gpu_per_hour = 1"#,
    );
    assert_eq!(
        line(&q, LineKind::Upload),
        d("6.94"),
        "three uploads, not one"
    );
    assert_eq!(
        line(&q, LineKind::Traffic),
        d("1.15"),
        "three times the data in"
    );
    assert_eq!(
        param(&q, LineKind::Upload, "uploads"),
        Some("3"),
        "the line says three"
    );
    assert_eq!(q.cash_total, d("14.09"), "6.94 + 1.15 + 6.00");
    assert!(
        q.warnings.iter().any(
            |w| matches!(w, Warning::ReleasedBetweenRuns { releases: 2, bring_back }
            if *bring_back == d("5.39"))
        ),
        "what the releases delete and cost to bring back: {:?}",
        q.warnings
    );
}

#[test]
fn each_fresh_instance_is_set_up_again() {
    // Vast.ai at 1.00/h (setup on the GPU instance: no no-GPU mode), three
    // 2 h sessions a day apart, released between, 30 minutes of setup on
    // each instance and no dataset. Three instances are set up: 3 x 0.5 h
    // x 1.00 = 1.50 (the first instance only: 0.50). Runs 3 x 2 h = 6.00.
    // Total 7.50; the time to result holds the three setups, 1.5 h.
    let q = priced(
        r#"name = "release, set up again"
        platform = "vast"
        gpu = "rtx3090"
        setup_hours = 0.5
        [[run]]
        name = "session"
        count = 3
        hours = 2
        [schedule]
        days = 3
        between_runs = "release"
        [prices]
        gpu_per_hour = 1"#,
    );
    assert_eq!(
        param(&q, LineKind::Setup, "instances"),
        Some("3"),
        "the first instance and the two fresh ones"
    );
    assert_eq!(line(&q, LineKind::Setup), d("1.50"), "three setups");
    assert_eq!(q.cash_total, d("7.50"), "1.50 + 6.00");
    assert_eq!(
        q.time.setup,
        d("1.5"),
        "each fresh instance's setup is waited for"
    );
}

#[test]
fn a_release_between_runs_holds_when_the_next_slot_comes_at_once() {
    // Vast.ai at 1.00/h, four 5 h runs on one day (slots every 6 h),
    // released between. 20 GB at 20 Mbit/s plus unpacking is 2.312593 h
    // (above), so after the first release the next run's data arrives
    // 7.31 h after its slot and every later slot has passed when a run
    // ends. The rule still holds: each run starts on a fresh instance and
    // brings its data, four uploads: 4 x 2.312593 = 9.250370 -> 9.25;
    // traffic 4 x 20 x 0.0192 = 1.536 -> 1.54; runs 4 x 5 = 20.00. Total
    // 30.79. (Before, a slot reached as the last run ended skipped the
    // release and its upload, so one more run on the same day could cost
    // less: CI's billing property found it.)
    let q = priced(
        r#"name = "release, dense"
        platform = "vast"
        gpu = "rtx3090"
        setup_hours = 0
        [[run]]
        name = "session"
        count = 4
        hours = 5
        [schedule]
        days = 1
        between_runs = "release"
        [data]
        size_gb = 20
        upload_mbps = 20
        [prices]
        gpu_per_hour = 1"#,
    );
    assert_eq!(
        param(&q, LineKind::Upload, "uploads"),
        Some("4"),
        "one upload per fresh instance, slot passed or not"
    );
    assert_eq!(line(&q, LineKind::Upload), d("9.25"), "four uploads");
    assert_eq!(
        line(&q, LineKind::Traffic),
        d("1.54"),
        "four times the data in"
    );
    assert_eq!(q.cash_total, d("30.79"), "9.25 + 1.54 + 20.00");
}

#[test]
fn releasing_where_persistent_storage_exists_compares_the_two() {
    // 恒源云 has /hy-nas (persistent, 0.0168/GB-day): three sessions a day
    // apart, released between, 50 GB of data over a slow 5 Mbps link. The
    // quote names both costs (at 20 Mbps the uploads cost 1.16 against
    // 2.15 kept: not offered).
    let q = priced(
        r#"name = "release on gpushare"
        platform = "gpushare"
        gpu = "rtx3090"
        setup_hours = 0
        [[run]]
        name = "session"
        count = 3
        hours = 2
        [schedule]
        days = 3
        between_runs = "release"
        [data]
        size_gb = 50
        upload_mbps = 5
        [prices]
        gpu_per_hour = 1"#,
    );
    assert!(
        q.warnings
            .iter()
            .any(|w| matches!(w, Warning::PersistentInstead { .. })),
        "persistent storage is offered as the alternative, with both figures: {:?}",
        q.warnings
    );
}

#[test]
fn persistent_storage_is_offered_only_where_it_costs_less() {
    // 共绩算力 (gongji): four 2 h runs over 30 days, released between, 40 GB
    // at 200 Mbps. Bringing the data back costs a few jiao each time;
    // keeping 40 GB on persistent storage for 30 days costs more: the quote
    // says nothing of it (it said "would keep the data for 6.07 CNY,
    // against 0.79 CNY", advice that costs the student more).
    let plan = |days: u32, mbps: u32| {
        format!(
            r#"name = "persistent advice"
            platform = "gongji"
            gpu = "rtx4090"
            [[run]]
            count = 4
            hours = 2
            [schedule]
            days = {days}
            between_runs = "release"
            [data]
            size_gb = 40
            upload_mbps = {mbps}
            [prices]
            gpu_per_hour = 0.5"#
        )
    };
    let offered = |days, mbps| {
        let q = priced(&plan(days, mbps));
        q.warnings.iter().find_map(|w| match w {
            Warning::PersistentInstead { cost, instead_of } => Some((*cost, *instead_of)),
            _ => None,
        })
    };
    assert_eq!(
        offered(30, 200),
        None,
        "dearer than the uploads: not offered"
    );
    let (cost, instead_of) = offered(4, 2).expect("slow uploads, a short plan: offered");
    assert!(
        cost < instead_of,
        "offered as the cheaper way: {cost} < {instead_of}"
    );
}

// ---- Deadlines everywhere ---------------------------------------------------

#[test]
fn the_release_deadline_ends_disk_billing_inside_a_stop_too() {
    // AutoDL: released after 15 days stopped. A 1 h run, a 20-day stop, a
    // 1 h run; 150 GB kept on the instance disk, 50 GB free: 100 GB at
    // 0.0066/GB-day. The disk lives from 0 until 15 days into the stop
    // (1 + 360 h), is gone, and comes back with the fresh instance for the
    // second run (1 h): 362 h = 15.083333 days x 100 x 0.0066 = 9.955 ->
    // 9.96 (not 20.08 days: 13.26). Runs 2 x 1.00. Total 11.96.
    let q = priced(
        r#"name = "a long stop on AutoDL"
        platform = "autodl"
        gpu = "rtx3090"
        student = false
        setup_hours = 0
        [[run]]
        name = "run"
        count = 2
        hours = 1
        [stops]
        count = 1
        hours_each = 480
        [storage]
        gb = 150
        [prices]
        gpu_per_hour = 1"#,
    );
    assert_eq!(
        line(&q, LineKind::Storage),
        d("9.96"),
        "the disk until the deadline, then again"
    );
    assert_eq!(q.cash_total, d("11.96"), "2.00 + 9.96");
    assert_eq!(
        param(&q, LineKind::Storage, "instances"),
        Some("2"),
        "two disks, one per instance: the line does not say one"
    );
    assert_eq!(
        param(&q, LineKind::Storage, "days"),
        Some("15.04"),
        "the longest one disk lived: 1 h + 360 h = 15.04 days (the second lived 1 h)"
    );
    assert!(
        q.warnings.iter().any(|w| matches!(
            w,
            Warning::DataWiped {
                fresh_instances: 1,
                ..
            }
        )),
        "the deadline releases it, and the next run starts fresh: {:?}",
        q.warnings
    );
}

// ---- Quotas per window ----------------------------------------------------

#[test]
fn a_weekly_quota_is_checked_week_by_week() {
    // Kaggle, 30 GPU hours a week. Eight 5 h runs over 14 days: one every
    // 42 h, four in each week (20 h): never over the quota.
    let spread = priced(
        r#"name = "forty hours over two weeks"
        platform = "kaggle"
        gpu = "t4"
        setup_hours = 0
        [[run]]
        name = "run"
        count = 8
        hours = 5
        [schedule]
        days = 14"#,
    );
    assert!(
        !spread
            .warnings
            .iter()
            .any(|w| matches!(w, Warning::QuotaExhausted { .. })),
        "20 h in each week is within 30: {:?}",
        spread.warnings
    );
    // The same forty hours in one week: 40 > 30, week 1 runs out.
    let packed = priced(
        r#"name = "forty hours in a week"
        platform = "kaggle"
        gpu = "t4"
        setup_hours = 0
        [[run]]
        name = "run"
        count = 8
        hours = 5
        [schedule]
        days = 7"#,
    );
    assert!(
        packed.warnings.iter().any(
            |w| matches!(w, Warning::QuotaExhausted { week: 1, hours, weeks: 2, .. }
            if *hours == d("40.00"))
        ),
        "week 1 needs 40 h: the rest waits for week 2: {:?}",
        packed.warnings
    );
}

// ---- Words a student reads right --------------------------------------

#[test]
fn stops_say_how_long_each_was_and_storage_counts_gb_days() {
    // A stopped fee of 0.05/h (pinned in the plan): twelve 16 h stops are a
    // line that says each was 57,600 s (16 h), 691,200 s (192 h) in all,
    // 192 x 0.05 = 9.60.
    let stops = priced(
        r#"name = "twelve stops"
        platform = "autodl"
        gpu = "rtx3090"
        setup_hours = 0
        [[run]]
        name = "run"
        count = 13
        hours = 1
        [stops]
        count = 12
        hours_each = 16
        [prices]
        stopped_fee_per_hour = 0.05"#,
    );
    assert_eq!(line(&stops, LineKind::Stopped), d("9.60"), "192 h x 0.05");
    let stop = |p: &str| param(&stops, LineKind::Stopped, p);
    assert_eq!(stop("count"), Some("12"), "twelve stops");
    assert_eq!(
        stop("each_s"),
        Some("57600"),
        "each 16 h, not the 192 h of all of them"
    );
    assert_eq!(stop("total_s"), Some("691200"), "192 h in all");
    // Two parallel instances each keep a 100 GB disk (50 free) on AutoDL:
    // GB-days over both, and the days of each, never the days added up.
    let q = priced(
        r#"name = "two instances"
        platform = "autodl"
        gpu = "rtx3090"
        setup_hours = 0
        parallel = 2
        [[run]]
        name = "run"
        count = 2
        hours = 1
        [storage]
        gb = 100
        days = 6"#,
    );
    let storage = |p: &str| param(&q, LineKind::Storage, p);
    assert_eq!(storage("instances"), Some("2"), "two instances' disks");
    assert_eq!(storage("days"), Some("6.00"), "six days each, not twelve");
    assert_eq!(
        storage("gb_days"),
        Some("600"),
        "50 GB x 6 days x 2 instances"
    );
}

#[test]
fn short_durations_are_seconds_and_rates_are_the_digits_billed() {
    // A 30 s run at 1.3205/h on a per-minute platform with no minimum: the
    // line says 30 s, the rounding line (no minimum) says so.
    let q = priced(
        r#"name = "thirty seconds"
        platform = "vast"
        gpu = "rtx3090"
        setup_hours = 0
        [job]
        hours = 0.008333333
        [prices]
        gpu_per_hour = 1.3205
        granularity = "minute""#,
    );
    assert_eq!(
        param(&q, LineKind::Runs, "time_s"),
        Some("30"),
        "30 seconds, not 0.01 h"
    );
    assert_eq!(
        q.price_per_hour,
        d("1.3205"),
        "the rate to the digit billed"
    );
    assert!(
        q.lines.iter().all(|l| l.kind != LineKind::Waste),
        "no 'minimum charge' where there is none"
    );
    assert!(
        q.lines.iter().any(|l| l.kind == LineKind::Rounding),
        "the per-minute rounding is its own line: {:?}",
        q.lines
    );
    let json = serde_json::to_value(&q).expect("json");
    for field in ["waiting", "setup", "running", "reruns", "gaps", "total"] {
        let v = json["time"][field].as_str().unwrap_or_default();
        assert!(
            v.split('.').nth(1).is_none_or(|f| f.len() <= 2),
            "time.{field} to two places as the text: {v}"
        );
    }
    let ts = &q.time_seconds;
    assert_eq!(
        ts.running,
        d("30"),
        "the run in whole seconds, the bill line's 30 s (0.01 h read back is 36 s)"
    );
    assert_eq!(
        ts.total,
        ts.waiting + ts.setup + ts.running + ts.reruns + ts.gaps,
        "the total in seconds is the sum of its parts"
    );
}

#[test]
fn a_coupon_is_not_called_student_credit() {
    let q = priced(
        r#"name = "coupon"
        platform = "autodl"
        gpu = "rtx3090"
        student = false
        setup_hours = 0
        credit = 5
        [job]
        hours = 10
        [prices]
        gpu_per_hour = 1"#,
    );
    assert_eq!(
        line(&q, LineKind::Coupon),
        d("-5.00"),
        "the plan's own credit, named as such"
    );
    assert_eq!(line(&q, LineKind::Credit), d("0.00"), "no student credit");
}

// ---- Advice that follows from the bill ----------------------------------

#[test]
fn a_month_package_for_twenty_hours_says_pay_as_you_go_is_cheaper() {
    // AutoDL RTX 4090 month package 1,052; twenty hours pay as you go at
    // 2.19: 43.80.
    let q = priced(
        r#"name = "twenty hours on a month package"
        platform = "autodl"
        gpu = "rtx4090"
        student = false
        payment = { package = "month" }
        setup_hours = 0
        [job]
        hours = 20"#,
    );
    assert!(
        q.warnings.iter().any(
            |w| matches!(w, Warning::PackageDearer { cost, instead_of, .. }
            if *cost == d("1052.00") && *instead_of == d("43.80"))
        ),
        "both figures: {:?}",
        q.warnings
    );
}

#[test]
fn a_second_day_package_for_six_hours_is_compared_with_paying_as_you_go() {
    // A 30 h run on day packages at 40.00 (the plan's price): two days,
    // 80.00; the second covers 6 h, which at 2.00/h would cost 12.00.
    let q = priced(
        r#"name = "thirty hours on day packages"
        platform = "autodl"
        gpu = "rtx4090"
        student = false
        payment = { package = "day" }
        setup_hours = 0
        [job]
        hours = 30
        [prices]
        gpu_per_hour = 2
        package_price = 40"#,
    );
    assert_eq!(line(&q, LineKind::Package), d("80.00"), "two day packages");
    assert!(
        q.warnings.iter().any(
            |w| matches!(w, Warning::ExtraPackage { hours, cost, instead_of, .. }
            if *hours == d("6.00") && *cost == d("40.00") && *instead_of == d("12.00"))
        ),
        "the second package against paying as you go for its 6 h: {:?}",
        q.warnings
    );
}

#[test]
fn a_schedule_too_short_for_its_runs_is_said_with_what_fits() {
    // Three 10 h runs "within one day": they cannot be spaced 8 h apart;
    // they run back to back (30 h) and the quote names 2 days.
    let q = priced(
        r#"name = "three long runs in a day"
        platform = "autodl"
        gpu = "rtx3090"
        setup_hours = 0
        [[run]]
        name = "run"
        count = 3
        hours = 10
        [schedule]
        days = 1"#,
    );
    assert!(
        q.warnings.iter().any(
            |w| matches!(w, Warning::ScheduleTooTight { needed_days, .. }
            if *needed_days == d("2"))
        ),
        "{:?}",
        q.warnings
    );
}

#[test]
fn a_start_date_without_an_hour_is_said_to_start_at_nine() {
    let q = priced(
        r#"name = "a date only"
        platform = "vast"
        gpu = "rtx3090"
        setup_hours = 0
        start_date = "2026-12-05"
        [job]
        hours = 2"#,
    );
    assert!(
        q.warnings
            .iter()
            .any(|w| matches!(w, Warning::StartHourAssumed { hour: 9 })),
        "{:?}",
        q.warnings
    );
}

#[test]
fn runs_spread_over_a_schedule_bill_no_rest_of_a_unit_they_never_started() {
    // Vast.ai bills by the second. Eleven runs of 18.34 h spread over 34
    // days (a slot every 74.18... h) after 21 h of free debugging: every
    // start is 66,024 whole seconds, so nothing is left of a billing unit.
    // The slots' endless decimals once left noise in the 28th digit of a
    // start, billed as a 'rest of the unit' line of 0.00 h and 0.01 CNY.
    let q = priced(
        r#"name = "eleven runs over a month"
        platform = "vast"
        gpu = "rtx3090"
        setup_hours = 0
        forgotten_shutdown_hours = 11.67
        start_date = "2026-11-30"
        start_hour = 0
        [[run]]
        name = "run"
        count = 11
        hours = 18.34
        [schedule]
        days = 34
        between_runs = "stop"
        [debug]
        gpu = "rtx3090"
        hours = 21
        [prices]
        debug_gpu_per_hour = 0"#,
    );
    assert!(
        q.lines.iter().all(|l| l.kind != LineKind::Rounding),
        "whole-second starts leave no rest of a unit: {:?}",
        q.lines
    );
    let printed: Decimal = q
        .lines
        .iter()
        .filter(|l| l.category != Category::OwnTime)
        .map(|l| l.amount)
        .sum();
    assert_eq!(
        printed, q.cash_total,
        "the total is the sum of the printed lines"
    );
}

#[test]
fn a_peak_surcharge_is_the_charge_of_its_peak_hours_whatever_setup_printed() {
    // Vast.ai, Saturday 2026-12-05 from 17:00 at 3.01/h: setup 0.5 h on
    // the GPU (17:00-17:30) = 1.505 -> 1.51; the run 3 h (17:30-20:30) =
    // 9.03; 2.5 h of it in the 18-24 peak at 2x: 2.5 x 3.01 = 7.525 ->
    // 7.53, each line rounded half up as one computes it by hand: 18.07.
    // (Rounding setup into the surcharge printed 7.52, a line no hand
    // computation gives.)
    let q = priced(
        r#"name = "evening run"
        platform = "vast"
        gpu = "rtx4090"
        setup_hours = 0.5
        start_date = "2026-12-05"
        start_hour = 17
        [job]
        hours = 3
        [prices]
        gpu_per_hour = 3.01"#,
    );
    assert_eq!(
        line(&q, LineKind::PeakSurcharge),
        d("7.53"),
        "2.5 h x 3.01, half up: {:?}",
        q.lines
    );
    assert_eq!(q.cash_total, d("18.07"), "1.51 + 9.03 + 7.53");
}

#[test]
fn each_package_is_bought_at_its_price_to_the_fen() {
    // 优云智算 day packages at 36.73 with the student price (x 0.95):
    // 34.8935 each, paid as 34.89. Thirty hours need two day packages:
    // 2 x 34.89 = 69.78, not 69.787 rounded to 69.79.
    let q = priced(
        r#"name = "two days"
        platform = "youyun"
        gpu = "rtx4090"
        student = true
        setup_hours = 0
        payment = { package = "day" }
        [job]
        hours = 30
        [prices]
        package_price = 36.73"#,
    );
    assert_eq!(
        line(&q, LineKind::Package),
        d("69.78"),
        "two purchases of 34.89: {:?}",
        q.lines
    );
}
