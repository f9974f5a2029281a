//! Tests of the use cases over temporary databases: one database shared by
//! two planners (the CLI beside the app), plans stored as plan TOML, plans
//! that no longer validate, the first app release's plans, and the earlier
//! CLI's files imported once.

use std::path::Path;

use chrono::NaiveDateTime;
use gpuplan_core::job::JobSpec;
use gpuplan_core::plan::{default_setup, Payment, Plan};
use gpuplan_store::Store;
use rust_decimal::Decimal;

use crate::{defaults, AppError, Bundled, Home, Planner};

fn clock() -> NaiveDateTime {
    chrono::NaiveDate::from_ymd_opt(2026, 11, 30)
        .and_then(|d| d.and_hms_opt(10, 0, 0))
        .unwrap_or_default()
}

/// The bundled data, parsed once per test process.
fn bundled() -> Bundled {
    static BUNDLED: std::sync::LazyLock<Bundled> =
        std::sync::LazyLock::new(|| Bundled::load().expect("bundled data loads"));
    BUNDLED.clone()
}

fn planner(dir: &Path) -> Planner {
    Planner::new(bundled(), Home::Folder(dir.to_path_buf()), clock)
}

fn hours_plan(platform: &str, gpu: &str, hours: i64) -> Plan {
    let mut p = defaults::plan(gpuplan_core::job::JobSpec {
        hours: Some(Decimal::from(hours)),
        ..Default::default()
    });
    p.platform = platform.into();
    p.gpu = gpu.into();
    p.name = "ten hours".into();
    p
}

#[test]
fn a_note_too_long_is_refused_never_cut_short_under_saved() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut p = planner(dir.path());
    let long = "n".repeat(crate::userdata::MAX_NOTE_CHARS + 1);
    let err = p
        .set_override("autodl", "rtx3090", "1.00", &long)
        .expect_err("a note over the limit");
    assert!(
        matches!(&err, crate::AppError::Input { field, .. } if field == "note"),
        "the note is named: {err:?}"
    );
    assert!(p.overrides().expect("list").is_empty(), "nothing was saved");
    let most = "笔".repeat(crate::userdata::MAX_NOTE_CHARS);
    let row = p
        .set_override("autodl", "rtx3090", "1.00", &most)
        .expect("a note at the limit, in characters not bytes");
    assert_eq!(
        p.overrides().expect("list")[0].note,
        row.note,
        "stored whole, as answered"
    );
    assert_eq!(row.note, most, "not cut");
    // The same for a bill's "what went wrong".
    let bill = |problems: String| crate::views::LedgerInput {
        date: "2026-11-30".into(),
        platform: "autodl".into(),
        gpu: "rtx3090".into(),
        hours: "2".into(),
        cost: "3.20".into(),
        problems,
        plan_id: None,
    };
    let err = p
        .add_ledger(&bill("x".repeat(crate::userdata::MAX_PROBLEMS_CHARS + 1)))
        .expect_err("problems over the limit");
    assert!(
        matches!(&err, crate::AppError::Input { field, .. } if field == "problems"),
        "the field is named: {err:?}"
    );
    let whole = "y".repeat(crate::userdata::MAX_PROBLEMS_CHARS);
    p.add_ledger(&bill(whole.clone())).expect("at the limit");
    let page = p.ledger().expect("the ledger");
    assert!(
        page.entries.iter().any(|r| r.problems == whole),
        "kept whole"
    );
}

#[test]
fn two_planners_on_one_database_see_each_others_prices() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut app = planner(dir.path());
    let mut cli = planner(dir.path());
    let plan = hours_plan("autodl", "rtx3090", 10);
    let before = app.quote(&plan).expect("quote").cash_total;
    // The "CLI" writes while the "app" stays open with its user data cached.
    cli.set_override("autodl", "rtx3090", "9.99", "seen today")
        .expect("override");
    let after = app.quote(&plan).expect("quote").cash_total;
    assert!(
        after > before,
        "the open planner re-reads the price the other one wrote ({before} -> {after})"
    );
    assert_eq!(
        after,
        cli.quote(&plan).expect("quote").cash_total,
        "both price the plan the same"
    );
    app.set_override("autodl", "rtx3090", "1.00", "")
        .expect("override");
    let rows = cli.overrides().expect("list");
    assert_eq!(
        rows.iter()
            .map(|r| r.price_per_hour.to_string())
            .collect::<Vec<_>>(),
        vec!["1.00"],
        "the reverse direction too"
    );
}

#[test]
fn saved_plans_are_plan_toml_that_reads_back_the_same() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut p = planner(dir.path());
    let plan = hours_plan("gpushare", "rtx3090", 6);
    let id = p
        .save_plan(None, &plan, Some(&defaults::situation()))
        .expect("save");
    let rows = p.plans().expect("list");
    assert_eq!(rows.len(), 1, "one saved plan");
    let row = &rows[0];
    assert_eq!(row.id, id, "its id");
    assert_eq!(row.plan.as_ref(), Some(&plan), "the plan reads back equal");
    assert!(row.situation.is_some(), "with its situation");
    let from_file = Plan::from_toml("exported.toml", &row.toml).expect("the text is a plan file");
    assert_eq!(
        p.quote(&from_file).expect("quote").cash_total,
        p.quote(&plan).expect("quote").cash_total,
        "the exported file quotes as the saved plan"
    );
}

#[test]
fn a_plan_that_no_longer_validates_is_listed_with_its_error() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut p = planner(dir.path());
    p.save_plan(None, &hours_plan("autodl", "rtx3090", 2), None)
        .expect("save");
    {
        // Another writer (or an older build) left a plan this build rejects.
        let mut store = Store::open(&dir.path().join(crate::home::DATABASE_FILE)).expect("open");
        store
            .save_plan(
                "broken",
                "name = \"broken\"\nplatform = \"autodl\"\ngpu = \"rtx3090\"\n[job]\nhours = -5\n",
                None,
                "t",
            )
            .expect("insert");
    }
    let rows = p.plans().expect("list");
    assert_eq!(rows.len(), 2, "both plans are listed, none hidden");
    let broken = rows
        .iter()
        .find(|r| r.name == "broken")
        .expect("the broken one");
    assert!(broken.plan.is_none(), "it has no plan");
    assert!(
        broken.error.as_deref().is_some_and(|e| e.contains("hours")),
        "its error names the field: {:?}",
        broken.error
    );
}

#[test]
fn plans_saved_by_the_first_app_release_are_converted_once() {
    let dir = tempfile::tempdir().expect("tmp");
    let path = dir.path().join(crate::home::DATABASE_FILE);
    let old = r#"{"name":"old","platform":"autodl","gpu":"rtx3090","budget":150.0,"start_date":null,"student":true,"payment":"on-demand","runs":2,"hours":3.0,"job":{"model":"resnet18","batch":128.0,"resolution":32.0,"seq_len":null,"classes":10.0,"precision":"fp32","optimizer":"sgd","mode":"train","lora_rank":null,"grad_checkpointing":false,"dataset_samples":50000.0,"epochs":50.0},"storage_gb":20.0,"storage_days":7.0,"stops":0,"stop_hours":0.0,"data_gb":1.0,"forgotten_shutdown_hours":0.0,"checkpoint_every_epochs":5,"situation":null}"#;
    {
        let mut store = Store::open(&path).expect("open");
        store.save_plan("old", old, None, "t").expect("insert");
    }
    {
        // Mark the row as the first release wrote it.
        let conn = rusqlite_free_update(&path);
        assert!(conn, "the row is marked as app JSON");
    }
    let mut p = planner(dir.path());
    let rows = p.plans().expect("list");
    let plan = rows[0].plan.clone().expect("the old plan converts");
    assert_eq!(
        (plan.runs[0].count, plan.job.hours, plan.setup_hours),
        (2, Some(Decimal::from(3)), default_setup()),
        "runs, hours and the setup default as the first release priced them"
    );
    let again = p.plans().expect("list again");
    assert_eq!(again[0].toml, rows[0].toml, "the conversion is stored");
}

/// Sets the only plan's format back to the first release's, through the
/// store's own conversion API in reverse (no SQL outside the store).
fn rusqlite_free_update(path: &Path) -> bool {
    let Ok(mut store) = Store::open(path) else {
        return false;
    };
    let Ok(rows) = store.list_plans() else {
        return false;
    };
    rows.first()
        .map(|r| store.mark_plan_format(r.id, "app-json-v1").is_ok())
        .unwrap_or(false)
}

#[test]
fn the_earlier_clis_files_are_imported_once_and_kept() {
    let dir = tempfile::tempdir().expect("tmp");
    let legacy = dir.path().join("legacy");
    std::fs::create_dir_all(legacy.join("packs")).expect("dirs");
    std::fs::write(
        legacy.join("overrides.toml"),
        "[[price]]\nplatform = \"autodl\"\ngpu = \"rtx4090\"\nprice_per_hour = 2.05\nnote = \"old cli\"\n",
    )
    .expect("write");
    std::fs::write(legacy.join("packs/broken.toml"), "not a pack").expect("write");
    std::fs::write(
        legacy.join("packs/second-broken-course-pack.toml"),
        "[pack]\nname = 1\n",
    )
    .expect("write");
    let mut p = planner(&dir.path().join("home"));
    p.open().expect("open");
    let note = p.import_legacy(&legacy).expect("import");
    let failed = note
        .as_ref()
        .and_then(|n| n.params.get("failed"))
        .cloned()
        .unwrap_or_default();
    for name in ["broken.toml", "second-broken-course-pack.toml"] {
        assert!(
            failed.contains(name),
            "every file not imported is named whole (40 characters cut the second off): {failed}"
        );
    }
    assert!(
        note.as_ref().is_some_and(|n| n.key == "notice.legacyPartly"
            && n.params.get("count").map(String::as_str) == Some("1")
            && n.params.contains_key("failed")),
        "the user is told what came over and what did not: {note:?}"
    );
    assert_eq!(p.overrides().expect("list").len(), 1, "the price came over");
    assert!(
        legacy.join("overrides.toml").exists(),
        "the original file is kept"
    );
    assert_eq!(
        p.import_legacy(&legacy).expect("again"),
        None,
        "a second start imports nothing"
    );
}

#[test]
fn conflicting_inputs_are_errors_naming_the_fields() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut p = planner(dir.path());
    let cases: [(gpuplan_core::job::JobSpec, &str, &str); 3] = [
        (
            gpuplan_core::job::JobSpec {
                model: Some("resnet50".into()),
                ..Default::default()
            },
            "model",
            "a zoo model and a config.json",
        ),
        (
            gpuplan_core::job::JobSpec {
                model: Some("resnet50".into()),
                hours: Some(Decimal::ONE),
                ..Default::default()
            },
            "hours",
            "hours given to the estimator",
        ),
        (Default::default(), "model", "no model at all"),
    ];
    for (i, (job, field, why)) in cases.into_iter().enumerate() {
        let config = (i == 0).then_some(crate::planning::CustomConfig {
            name: "llama.json",
            text: "{}",
        });
        match p.estimate(&job, None, config, None) {
            Err(AppError::Input { field: f, .. }) => assert_eq!(f, field, "{why}"),
            other => panic!("{why}: expected an input error, got {other:?}"),
        }
    }
}

#[test]
fn the_app_gets_every_default_from_one_place() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut p = planner(dir.path());
    let info = p.info().expect("info");
    assert_eq!(
        info.defaults.plan.setup_hours,
        default_setup(),
        "the plan's setup default is the core's"
    );
    assert_eq!(
        info.presets.first().map(|x| x.key.as_str()),
        Some("resnet18-cifar"),
        "the bundled presets pack comes first"
    );
    assert_eq!(
        info.defaults.situation.job, info.presets[0].job,
        "a new situation starts from the first preset"
    );
}

#[test]
fn the_app_quotes_held_out_step_time_by_card_class() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut p = planner(dir.path());
    let info = p.info().expect("info");
    let held = &info.accuracy;
    assert!(
        held.classes.len() >= 6,
        "every class the bar names has held-out runs: {:?}",
        held.classes.iter().map(|c| c.class).collect::<Vec<_>>()
    );
    let all = held.all.expect("held-out runs exist");
    assert!(
        all.runs >= 100 && held.publishers >= 4,
        "the about text rests on many runs from several publishers ({} runs, {} publishers)",
        all.runs,
        held.publishers
    );
    let job = JobSpec {
        model: Some("resnet18-cifar".into()),
        ..JobSpec::default()
    };
    // (card, class it is quoted for, why)
    let cases = [
        (
            "rtx3090",
            "enum.card-class.ampere-consumer",
            "a GeForce Ampere card",
        ),
        (
            "a100-80g-sxm",
            "enum.card-class.ampere-datacenter",
            "a data-center Ampere card",
        ),
        ("h200", "enum.card-class.hopper", "the calibration card"),
    ];
    for (gpu, class, why) in cases {
        let view = p.estimate_view(&job, Some(gpu), None).expect("estimates");
        let note = view.accuracy.expect("every class here has held-out runs");
        assert_eq!(note.key, "accuracy.line", "{why}");
        assert_eq!(
            note.params.get("class").map(String::as_str),
            Some(class),
            "{why}"
        );
        let quoted = held
            .classes
            .iter()
            .find(|c| format!("enum.card-class.{}", c.class.as_str()) == class)
            .expect("the class is in the about table");
        assert_eq!(
            note.params.get("runs"),
            Some(&quoted.figures.runs.to_string()),
            "{why}: the line and the about table quote the same runs"
        );
    }
    let line = p
        .estimate_view(&job, Some("rtx3090"), None)
        .expect("estimates")
        .accuracy
        .expect("a line");
    let text = p.labels().message(crate::Lang::Zh, &line);
    assert!(
        !text.contains("enum.") && !text.contains("{{"),
        "the zh line is worded through: {text}"
    );
}

#[test]
fn the_estimate_and_the_quote_show_where_the_run_goes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut p = planner(dir.path());
    let job = JobSpec {
        model: Some("resnet18-cifar".into()),
        batch: Some(128.0),
        dataset_samples: Some(50_000.0),
        epochs: Some(50.0),
        ..JobSpec::default()
    };
    let view = p
        .estimate_view(&job, Some("rtx3090"), Some("autodl"))
        .expect("estimates");
    let keys: Vec<&str> = view.run_parts.iter().map(|r| r.key.as_str()).collect();
    assert_eq!(
        keys,
        gpuplan_core::pipeline::RunParts::KEYS,
        "every part, in the chart's order"
    );
    let total = view.report.run.expect("a run").total_s;
    let sum: f64 = view.run_parts.iter().map(|r| r.seconds).sum();
    assert!(
        (sum - total).abs() < 1e-6 * total,
        "the rows are the whole run"
    );
    let chart = view.run_chart.expect("a run chart");
    assert!(
        chart.zh.contains("GPU 计算") && chart.en.contains("GPU compute"),
        "the chart is in both languages"
    );

    let mut plan = hours_plan("autodl", "rtx3090", 1);
    plan.job = job.clone();
    let q = p.quote_view(&plan).expect("quotes");
    assert_eq!(
        q.run_parts.len(),
        6,
        "the quote of an estimated job shows the split too"
    );
    let hours = hours_plan("autodl", "rtx3090", 1);
    assert!(
        p.quote_view(&hours).expect("quotes").run_parts.is_empty(),
        "a plan with hours has no split to show"
    );
}

#[test]
fn a_course_pack_restricts_the_platforms_students_choose_among() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut p = planner(dir.path());
    let mut situation = defaults::situation();
    situation.job = JobSpec {
        hours: Some(Decimal::from(2)),
        ..JobSpec::default()
    };
    let before: std::collections::BTreeSet<String> = p
        .recommend(&situation)
        .expect("recommends")
        .options
        .iter()
        .map(|o| o.platform.clone())
        .collect();
    assert!(
        before.len() > 2,
        "without a course, every platform competes: {before:?}"
    );
    let platforms = vec!["autodl".to_owned(), "gpushare".to_owned()];
    let text = p
        .export_pack(&crate::planning::PackExport {
            name: "CV 101",
            instructor: "TA",
            platforms: &platforms,
            presets: Vec::new(),
            budget_cap: None,
            measured_runs: Vec::new(),
        })
        .expect("exports");
    p.import_pack("cv101.toml", &text).expect("imports");
    let after = p.recommend(&situation).expect("recommends");
    assert!(
        !after.options.is_empty(),
        "the course's platforms still give options"
    );
    for o in &after.options {
        assert!(
            platforms.contains(&o.platform),
            "only the course's platforms are offered, not {}",
            o.platform
        );
    }
    let left_out: Vec<&str> = after
        .ruled_out
        .iter()
        .filter(|r| r.reason.key == "ruled.not-in-course")
        .map(|r| r.platform.as_str())
        .collect();
    for other in before.iter().filter(|b| !platforms.contains(b)) {
        assert!(
            left_out.contains(&other.as_str()),
            "{other} is not silently dropped: it is ruled out as outside the course's pack"
        );
    }
    assert!(
        after
            .ruled_out
            .iter()
            .filter(|r| r.reason.key == "ruled.not-in-course")
            .all(|r| r.reason.params.get("course").map(String::as_str) == Some("CV 101")),
        "and the reason names the course"
    );
    let view = p
        .quote_view(&hours_plan("autodl", "rtx3090", 2))
        .expect("quotes");
    assert_eq!(
        view.prices.pack.as_deref(),
        Some("CV 101"),
        "a bill on a platform the pack replaced says whose figures it used"
    );
    let bundled = p
        .quote_view(&hours_plan("vast", "rtx3090", 2))
        .expect("quotes");
    assert_eq!(
        bundled.prices.pack, None,
        "one the pack left alone says nothing"
    );
    let listed: Vec<String> = p
        .info()
        .expect("info")
        .platforms
        .into_iter()
        .map(|x| x.id)
        .collect();
    assert_eq!(
        listed, platforms,
        "the plan screen lists the course's platforms"
    );
    p.remove_pack("CV 101").expect("removes");
    let back: std::collections::BTreeSet<String> = p
        .recommend(&situation)
        .expect("recommends")
        .options
        .iter()
        .map(|o| o.platform.clone())
        .collect();
    assert_eq!(
        back, before,
        "removing the course brings every platform back"
    );
}

#[test]
fn a_run_report_is_matched_to_the_saved_plan_it_names() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut p = planner(dir.path());
    let mut plan = hours_plan("autodl", "rtx3090", 2);
    // Four runs of 2 h: the report is one of them.
    plan.runs = vec![gpuplan_core::plan::RunGroup {
        name: gpuplan_core::plan::DEFAULT_GROUP.into(),
        count: 4,
        hours: None,
        minutes: None,
        epochs: None,
    }];
    let id = p.save_plan(None, &plan, None).expect("saved");
    let quoted = p.quote(&plan).expect("quotes");
    let report = format!(
        r#"{{"schema": "gpuplan-run-report/1", "plan": "{}", "job": "train", "platform": "autodl",
  "gpu_name": "NVIDIA GeForce RTX 3090", "driver": "550.54", "gpu_count": 1, "peak_memory_mib": 9000,
  "started_at": "2026-11-30T10:00:00+0800", "ended_at": "2026-11-30T12:00:00+0800",
  "wall_seconds": 7200, "first_progress_seconds": 40, "progress_lines": 50,
  "last_progress": "Epoch 50", "cpu_percent": 61, "exit_status": 0}}"#,
        plan.name
    );
    let run = p
        .import_report("r.json", &report, Some("2.90"))
        .expect("imports");
    assert_eq!(
        run.plan_id,
        Some(id),
        "matched to the saved plan by its name"
    );
    assert_eq!(run.hours, Decimal::from(2), "two hours billed");
    let page = p.ledger().expect("ledger");
    let row = page
        .entries
        .iter()
        .find(|e| e.id == run.ledger_id)
        .expect("in the ledger");
    let one_run = quoted
        .lines
        .iter()
        .find(|l| l.kind == gpuplan_core::quote::LineKind::Runs)
        .map(|l| gpuplan_core::quote::cny(l.amount / Decimal::from(4)));
    assert_eq!(
        row.planned_cost, one_run,
        "plan versus actual: one run of the plan sits beside the bill of one run, not the plan's total {}",
        quoted.cash_total
    );
    assert_ne!(
        row.planned_cost,
        Some(quoted.cash_total),
        "not the total of four runs"
    );
    assert!(
        row.note.iter().any(|m| m.key == "ledger.note.last"
            && m.params.get("last").map(String::as_str) == Some("Epoch 50")),
        "the run's progress is noted, in the catalog's words: {:?}",
        row.note
    );
    assert_eq!(
        row.date, "2026-11-30",
        "dated by the billing window's start"
    );
}

#[test]
fn plan_versus_actual_says_what_explains_the_gap() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut p = planner(dir.path());
    let plan = hours_plan("autodl", "rtx3090", 2);
    p.save_plan(None, &plan, None).expect("saved");
    // Each case its own run: it starts at its own minute.
    let report = |minute: u32, gpu: &str, seconds: u64, cpu: u32, status: u32| {
        let start = format!("2026-11-30T10:{minute:02}:00+0800");
        format!(
            r#"{{"schema": "gpuplan-run-report/1", "plan": "{}", "job": "train", "platform": "autodl",
  "gpu_name": "{gpu}", "driver": "550", "gpu_count": 1, "peak_memory_mib": null,
  "started_at": "{start}", "ended_at": "{end}",
  "wall_seconds": {seconds}, "first_progress_seconds": null, "progress_lines": 0,
  "last_progress": "", "cpu_percent": {cpu}, "exit_status": {status}}}"#,
            plan.name,
            end = ended(&start, seconds)
        )
    };
    // (report, gaps expected, why)
    let cases = [
        (
            report(0, "NVIDIA GeForce RTX 3090", 7200, 40, 0),
            vec![],
            "on plan: no gap to explain",
        ),
        (
            report(1, "NVIDIA GeForce RTX 3090", 5 * 3600, 95, 0),
            vec!["input-bound"],
            "2.5x the time with the CPUs full: the input pipeline",
        ),
        (
            report(2, "NVIDIA GeForce RTX 3090", 5 * 3600, 30, 0),
            vec!["slower-than-estimated"],
            "2.5x the time with idle CPUs: a slower card or host",
        ),
        (
            report(3, "NVIDIA GeForce RTX 4090", 3600, 30, 0),
            vec!["different-card"],
            "another card, half the time: the card is the cause, not the estimate (no 'keep less margin')",
        ),
        (
            report(4, "NVIDIA GeForce RTX 3090", 600, 30, 137),
            vec!["failed-run"],
            "a killed run is not called fast",
        ),
    ];
    for (text, gaps, why) in cases {
        let run = p
            .import_report("r.json", &text, Some("1.00"))
            .expect("imports");
        let v = run.versus.expect("the plan was named, so it is compared");
        assert_eq!(
            v.gaps.iter().map(|g| g.key()).collect::<Vec<_>>(),
            gaps,
            "{why}"
        );
        assert!(
            (v.planned_hours - 2.0).abs() < 1e-9,
            "{why}: the plan's two-hour run"
        );
    }
}

/// A plan whose job the estimator times: ResNet-18 on CIFAR-10 on an RTX
/// 3090 at AutoDL.
fn model_plan() -> Plan {
    let mut p = defaults::plan(JobSpec {
        model: Some("resnet18-cifar".into()),
        batch: Some(128.0),
        dataset_samples: Some(50_000.0),
        epochs: Some(10.0),
        ..Default::default()
    });
    p.platform = "autodl".into();
    p.gpu = "rtx3090".into();
    p.name = "zhangsan-hw3".into();
    p
}

/// The model plan's job estimated on its card (RTX 3090) and platform's
/// host (AutoDL), as the plan screen does.
fn estimate_on_its_card(p: &mut Planner, job: &JobSpec) -> gpuplan_core::estimate::EstimateReport {
    p.estimate(job, Some("rtx3090"), None, Some("autodl"))
        .expect("estimate")
}

/// The end of a billing window `seconds` after `start` (the kit takes both
/// from one clock, so a report's window is its wall time).
fn ended(start: &str, seconds: u64) -> String {
    let t = chrono::DateTime::parse_from_str(start, "%Y-%m-%dT%H:%M:%S%z").expect("start");
    t.checked_add_signed(chrono::Duration::seconds(
        i64::try_from(seconds).expect("seconds"),
    ))
    .expect("a time")
    .format("%Y-%m-%dT%H:%M:%S%z")
    .to_string()
}

/// A report of `plan`'s run, the `n`th of the day (its start time).
fn measured_report(plan: &str, seconds: u64, peak_mib: u64, n: u32) -> String {
    let end = ended(&format!("2026-11-30T10:{n:02}:00+0800"), seconds);
    format!(
        r#"{{"schema": "gpuplan-run-report/2", "plan": "{plan}", "job": "train", "platform": "autodl",
  "run_id": "run-{n}", "part": 1, "requeued": false,
  "gpu_name": "NVIDIA GeForce RTX 3090", "driver": "550", "gpu_count": 1, "gpu_peaks_mib": [{peak_mib}],
  "torch_allocated_mib": [],
  "started_at": "2026-11-30T10:{n:02}:00+0800", "ended_at": "{end}",
  "wall_seconds": {seconds}, "first_progress_seconds": 30, "progress_lines": 10,
  "last_progress": "Epoch 10", "cpu_percent": 40, "exit_status": 0}}"#
    )
}

#[test]
fn measured_runs_calibrate_later_estimates_until_switched_off() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut p = planner(dir.path());
    let plan = model_plan();
    p.save_plan(None, &plan, None).expect("saved");
    let job = plan.job.clone();
    let before = estimate_on_its_card(&mut p, &job);
    assert!(before.calibration.is_none(), "no runs yet: nothing to say");
    let run_s = before.run.map(|r| r.total_s).expect("a whole run");
    let quoted = p.quote(&plan).expect("quote").longest_run_hours;
    // Three runs, each 40% slower than estimated and using 1.3x the memory.
    let mut ids = Vec::new();
    for n in 0..3 {
        let text = measured_report(
            &plan.name,
            (run_s * 1.4).round() as u64,
            (before.peak_gib * 1.3 * 1024.0).round() as u64,
            n,
        );
        ids.push(
            p.import_report("r.json", &text, None)
                .expect("imports")
                .ledger_id,
        );
    }
    let after = estimate_on_its_card(&mut p, &job);
    let c = after.calibration.expect("the runs are looked at");
    assert_eq!(
        c.own_runs, 3,
        "the answer says how many runs it learnt from"
    );
    let t = c.time_factor();
    assert!(
        t > 1.2 && t < 1.4,
        "three runs 40% slower move the time most of the way there: {t}"
    );
    let new_run_s = after.run.map(|r| r.total_s).expect("a whole run");
    assert!(
        (new_run_s / run_s - t).abs() < 1e-9,
        "the whole run is the estimate times the factor"
    );
    let row = after
        .gpus
        .iter()
        .find(|g| g.id == "rtx3090")
        .and_then(|g| g.run_seconds)
        .expect("the card's row");
    assert!(
        (row - new_run_s).abs() < 1e-6,
        "the card's row in the table is scaled once, as the target's run: {row} vs {new_run_s}"
    );
    assert!(
        after.peak_gib > before.peak_gib * 1.15,
        "the peak follows the measured memory: {} -> {}",
        before.peak_gib,
        after.peak_gib
    );
    assert!(
        (after.model_peak_gib - before.peak_gib).abs() < 1e-9,
        "the model's own peak stays beside it"
    );
    let q = p.quote(&plan).expect("quote");
    assert!(
        q.longest_run_hours > quoted,
        "the quote prices the calibrated time ({quoted} -> {})",
        q.longest_run_hours
    );
    assert_eq!(q.calibration.map(|c| c.own_runs), Some(3), "and says so");
    let view = p.calibration().expect("view");
    assert_eq!(
        (view.enabled, view.own_runs, view.rows.len()),
        (true, 3, 1),
        "one family, card and mode was measured"
    );

    p.set_calibration(false).expect("switch off");
    let off = estimate_on_its_card(&mut p, &job);
    assert!(off.calibration.is_none(), "switched off: no correction");
    assert!(
        (off.run.map(|r| r.total_s).unwrap_or(0.0) - run_s).abs() < 1e-9,
        "and the uncalibrated time"
    );
    p.set_calibration(true).expect("switch on");
    let mut deleted = Vec::new();
    for id in ids {
        deleted.push(p.delete_ledger(id).expect("deletes"));
    }
    let forgotten = estimate_on_its_card(&mut p, &job);
    assert!(
        forgotten.calibration.is_none(),
        "deleting the bills forgets the runs they measured"
    );
    for bill in &deleted {
        p.restore_ledger(bill).expect("undo");
    }
    let restored = estimate_on_its_card(&mut p, &job);
    assert_eq!(
        restored.calibration.map(|c| c.own_runs),
        Some(3),
        "undo puts the bills back with their reports and measured runs"
    );
    let mut forged = deleted[0].clone();
    forged.measured_run = Some("{\"job\": {}}".into());
    assert!(
        p.restore_ledger(&forged).is_err(),
        "a measured run handed back by the web view is checked again"
    );
}

#[test]
fn a_class_shares_its_runs_through_the_course_pack_anonymised() {
    let student = tempfile::tempdir().expect("tmp");
    let mut s = planner(student.path());
    let plan = model_plan();
    s.save_plan(None, &plan, None).expect("saved");
    let est = estimate_on_its_card(&mut s, &plan.job);
    let run_s = est.run.map(|r| r.total_s).expect("a whole run");
    // Slower than estimated, memory as estimated (a run off in both by
    // more than calibration may correct is another job, set aside).
    let peak_mib = (est.peak_gib * 1024.0).round() as u64;
    for n in 0..4 {
        let text = measured_report(&plan.name, (run_s * 1.5).round() as u64, peak_mib, n);
        s.import_report("/home/zhangsan/run.json", &text, None)
            .expect("imports");
    }
    let handed_in = s.export_measured_runs().expect("exports");
    for private in ["zhangsan", "/home", "\"train\"", "Epoch", "550", "hw3"] {
        assert!(
            !handed_in.contains(private),
            "the file a student hands in carries no names, paths, job names, drivers or plan names: found `{private}`"
        );
    }

    let instructor = tempfile::tempdir().expect("tmp");
    let mut t = planner(instructor.path());
    let runs = t
        .parse_measured_runs("li.json", &handed_in)
        .expect("validated");
    assert_eq!(runs.len(), 4, "all four runs");
    let pack = t
        .export_pack(&crate::planning::PackExport {
            name: "CV 101",
            instructor: "TA",
            platforms: &["autodl".to_owned()],
            presets: Vec::new(),
            budget_cap: None,
            measured_runs: runs,
        })
        .expect("a pack with the class's runs");

    let classmate = tempfile::tempdir().expect("tmp");
    let mut c = planner(classmate.path());
    c.import_pack("cv101.toml", &pack).expect("imports");
    let e = estimate_on_its_card(&mut c, &plan.job);
    let k = e.calibration.expect("the class's runs inform the estimate");
    assert_eq!((k.own_runs, k.class_runs), (0, 4), "counted as class runs");
    assert!(
        k.time_factor() > 1.1,
        "four class runs 50% slower move a classmate's estimate: {}",
        k.time_factor()
    );
    // The classmate imports a second course's pack afterwards: the first
    // class's runs still count (they are not the newest pack's to drop).
    let other = t
        .export_pack(&crate::planning::PackExport {
            name: "NLP 201",
            instructor: "TA",
            platforms: &["youyun".to_owned()],
            presets: Vec::new(),
            budget_cap: None,
            measured_runs: Vec::new(),
        })
        .expect("another course's pack");
    c.import_pack("nlp201.toml", &other).expect("imports");
    let e = estimate_on_its_card(&mut c, &plan.job);
    assert_eq!(
        e.calibration.map(|k| k.class_runs),
        Some(4),
        "a second course's pack keeps the first class's runs"
    );
    c.remove_pack("NLP 201").expect("removes");
    c.remove_pack("CV 101").expect("removes");
    let e = estimate_on_its_card(&mut c, &plan.job);
    assert!(
        e.calibration.is_none(),
        "leaving the course leaves its runs"
    );
}

#[test]
fn a_bad_file_of_measured_runs_names_the_field() {
    let dir = tempfile::tempdir().expect("tmp");
    let p = planner(dir.path());
    let cases = [
        (r#"{"schema": "x", "runs": []}"#, "schema", "another schema"),
        (
            r#"{"schema": "gpuplan-measured-runs/1", "runs": [{"job": {"model": "nope"}, "gpu": "rtx3090", "platform": "autodl", "wall_seconds": 10, "peak_memory_mib": null, "completed": true}]}"#,
            "runs[0].job.model",
            "an unknown model",
        ),
        (
            r#"{"schema": "gpuplan-measured-runs/1", "runs": [{"job": {"model": "resnet50"}, "gpu": "rtx3090", "platform": "autodl", "wall_seconds": 0, "peak_memory_mib": null, "completed": true}]}"#,
            "runs[0].wall_seconds",
            "a zero-second run",
        ),
        (
            r#"{"schema": "gpuplan-measured-runs/1", "runs": [{"job": {"model": "resnet50", "batch": -3}, "gpu": "rtx3090", "platform": "autodl", "wall_seconds": 10, "peak_memory_mib": null, "completed": true}]}"#,
            "runs[0].job.batch",
            "a negative batch",
        ),
        (
            r#"{"schema": "gpuplan-measured-runs/1", "runs": [], "host": "lab-pc"}"#,
            "host",
            "an unknown field (a host name) is refused, by its name",
        ),
    ];
    for (text, field, why) in cases {
        match p.parse_measured_runs("f.json", text) {
            Err(AppError::Input { field: f, .. }) => assert_eq!(f, field, "{why}"),
            other => panic!("{why}: {other:?}"),
        }
    }
}

#[test]
fn a_course_of_two_thousand_measured_runs_is_learnt_from() {
    // How long this takes is measured by the `class_pack` benchmark, not here.
    let dir = tempfile::tempdir().expect("tmp");
    let mut t = planner(dir.path());
    let plan = model_plan();
    // Memory as estimated: these runs are the plan's job (one off in time
    // and memory together by more than calibration may correct is set
    // aside as another job).
    let peak_mib = (estimate_on_its_card(&mut t, &plan.job).peak_gib * 1024.0).round() as u64;
    // Two thousand different runs (a run is one run: the same run twice is
    // counted once, tested below).
    let runs: Vec<_> = (0..gpuplan_core::correction::MAX_MEASURED_RUNS)
        .map(|i| gpuplan_core::correction::MeasuredRun {
            job: plan.job.clone(),
            gpu: "rtx3090".into(),
            platform: "autodl".into(),
            wall_seconds: 900 + (i % 60) as u64,
            peak_memory_mib: Some(peak_mib),
            memory: gpuplan_core::correction::MeasuredMemory::Process,
            started_at: format!(
                "2026-{:02}-{:02}T{:02}:{:02}:00+0800",
                1 + i / 200,
                1 + (i / 24) % 28,
                i % 24,
                i % 60
            ),
            ..Default::default()
        })
        .collect();
    let pack = t
        .export_pack(&crate::planning::PackExport {
            name: "big course",
            instructor: "TA",
            platforms: &["autodl".to_owned()],
            presets: Vec::new(),
            budget_cap: None,
            measured_runs: runs,
        })
        .expect("the largest pack exports");
    let mut c = planner(dir.path());
    c.import_pack("big.toml", &pack).expect("imports");
    let e = estimate_on_its_card(&mut c, &plan.job);
    assert_eq!(
        e.calibration.map(|k| k.class_runs),
        Some(2000),
        "all of them are learnt from"
    );
}

#[test]
fn a_pack_repeating_one_run_is_refused_and_an_export_collapses_it() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut t = planner(dir.path());
    let plan = model_plan();
    let run = gpuplan_core::correction::MeasuredRun {
        job: plan.job.clone(),
        gpu: "rtx3090".into(),
        platform: "autodl".into(),
        wall_seconds: 900,
        ..Default::default()
    };
    let pack = t
        .export_pack(&crate::planning::PackExport {
            name: "flood",
            instructor: "TA",
            platforms: &["autodl".to_owned()],
            presets: Vec::new(),
            budget_cap: None,
            measured_runs: vec![run; 2000],
        })
        .expect("exports");
    assert_eq!(
        pack.matches("[[measured_run]]").count(),
        1,
        "the instructor's export keeps one copy of a run handed in 2000 times"
    );
    // A pack edited by hand to repeat it is refused on import, by entry.
    let one = pack
        .split("[[measured_run]]")
        .nth(1)
        .map(|r| format!("[[measured_run]]{r}"))
        .expect("the run");
    let flood = format!("{pack}\n{one}\n{one}");
    match t.import_pack("flood.toml", &flood) {
        Err(AppError::Data { field, message, .. }) => assert!(
            field.contains("measured_run[1]") && message.contains("the same run"),
            "the repeated entry is named: {field}: {message}"
        ),
        other => panic!("a pack repeating a run must be refused: {other:?}"),
    }
}

#[test]
fn a_run_with_another_batch_is_told_apart_from_a_slower_card() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut p = planner(dir.path());
    let plan = model_plan();
    p.save_plan(None, &plan, None).expect("saved");
    let e = estimate_on_its_card(&mut p, &plan.job);
    let run_s = e.run.map(|r| r.total_s).expect("a whole run");
    let peak_mib = e.peak_gib * 1024.0;
    // (time factor, memory factor, gaps, why)
    let cases = [
        (
            2.0,
            2.0,
            vec!["different-batch"],
            "twice the memory and twice the time per step: another batch",
        ),
        (
            0.5,
            0.5,
            vec!["different-batch"],
            "half of both: a smaller batch",
        ),
        (
            2.0,
            1.0,
            vec!["slower-than-estimated"],
            "only the time is off: the card or host, not the batch",
        ),
        (1.0, 1.0, vec![], "on plan"),
    ];
    for (n, (time, memory, gaps, why)) in cases.into_iter().enumerate() {
        // Each case its own run, at its own minute.
        let start = format!("2026-11-30T10:{n:02}:00+0800");
        let text = format!(
            r#"{{"schema": "gpuplan-run-report/1", "plan": "{}", "job": "train", "platform": "autodl",
  "gpu_name": "NVIDIA GeForce RTX 3090", "driver": "550", "gpu_count": 1, "peak_memory_mib": {},
  "started_at": "{start}", "ended_at": "{}",
  "wall_seconds": {}, "first_progress_seconds": {}, "progress_lines": 10,
  "last_progress": "Epoch 10", "cpu_percent": 40, "exit_status": 0}}"#,
            plan.name,
            (peak_mib * memory).round() as u64,
            ended(&start, (run_s * time).round() as u64),
            (run_s * time).round() as u64,
            // The first epoch line comes after one epoch of ten.
            (run_s * time / 10.0).round() as u64
        );
        let run = p
            .import_report("r.json", &text, Some("1.00"))
            .expect("imports");
        let v = run.versus.expect("compared with the plan");
        assert_eq!(
            v.gaps.iter().map(|g| g.key()).collect::<Vec<_>>(),
            gaps,
            "{why}: {v:?} run_s {run_s}"
        );
    }
}

#[test]
fn the_app_browses_an_unwritable_home_and_never_says_saved() {
    let dir = tempfile::tempdir().expect("tmp");
    std::fs::write(dir.path().join("a-file"), "x").expect("file");
    // The parent is a file: no data folder can be made there.
    let home = Home::Folder(dir.path().join("a-file/home"));
    let mut app = Planner::new(bundled(), home.clone(), clock).browse_if_unwritable();
    let info = app
        .info()
        .expect("the app starts and shows the bundled data");
    let reason = info.read_only.expect("and says nothing can be saved");
    assert!(reason.contains("a-file"), "naming the path: {reason}");
    let saved = app.save_plan(None, &hours_plan("autodl", "rtx3090", 2), None);
    assert!(
        matches!(&saved, Err(AppError::Store { message, .. }) if message.contains("not saved")),
        "a save fails with the reason, it is never reported saved: {saved:?}"
    );
    let mut cli = Planner::new(bundled(), home, clock);
    assert!(
        cli.set_calibration(false).is_err(),
        "the CLI does not browse: a write that cannot be made is its error"
    );
}

#[test]
fn a_bill_says_how_old_its_prices_are_and_flags_old_ones() {
    use gpuplan_core::quote::Figure;
    // AutoDL's RTX 3090 price comes from a report dated 2026-10-04 (and the
    // disk and setup figures undated, so they do not date the bill): on the
    // test clock's 2026-11-30 the prices are 57 days old, under the 60-day
    // limit. A price the student sets today is 0 days old.
    let dir = tempfile::tempdir().expect("tmp");
    let mut p = planner(dir.path());
    let plan = hours_plan("autodl", "rtx3090", 10);
    let view = p.quote_view(&plan).expect("quote");
    let observed = view
        .prices
        .observed
        .clone()
        .expect("the bill's prices are dated");
    let date = chrono::NaiveDate::parse_from_str(&observed, "%Y-%m-%d").expect("a date");
    assert_eq!(
        view.prices.days,
        Some((clock().date() - date).num_days()),
        "its age is counted from the test clock"
    );
    assert_eq!(
        view.prices.stale,
        view.prices.days.unwrap_or(0) > defaults::PRICE_STALE_DAYS,
        "flagged exactly when older than the stated limit"
    );
    // A date far back is flagged; today's is not.
    let old = crate::views::PriceAge::of(
        Some(("2026-01-01", gpuplan_core::quote::Figure::PricePerHour)),
        clock().date(),
        crate::defaults::PRICE_STALE_DAYS,
        None,
    );
    assert!(old.stale, "11 months old is stale");
    p.set_override("autodl", "rtx3090", "1.50", "")
        .expect("override");
    let own = p.quote_view(&plan).expect("quote").prices;
    assert!(
        own.days.is_some_and(|d| d <= view.prices.days.unwrap_or(0)),
        "the student's own price carries the day it was set: {own:?}"
    );
    // Past the price the student set today, the oldest is a figure no
    // own price replaces (AutoDL's no-GPU mode, its student discount): the
    // advice is then a newer pack, not "set your own price" again.
    for student in [false, true] {
        let mut priced = plan.clone();
        priced.student = student;
        let age = p.quote_view(&priced).expect("quote").prices;
        assert_ne!(
            age.figure,
            Some(Figure::PricePerHour),
            "the price set today is not the oldest (student {student}): {age:?}"
        );
        assert!(
            age.figure.is_some() && !age.own_price_refreshes,
            "no own price replaces what is left (student {student}): {age:?}"
        );
    }
    let rows = p.overrides().expect("list");
    assert_eq!(
        rows[0].set_on.as_deref(),
        Some("2026-11-30"),
        "the override's own date"
    );
}

#[test]
fn a_snapshot_is_computed_on_without_the_planner_and_a_new_one_sees_later_saves() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut p = planner(dir.path());
    let plan = hours_plan("autodl", "rtx3090", 2);
    let before = p.quote(&plan).expect("quoted");
    // The app takes a snapshot under its lock and computes on it after the
    // lock is released: a save made meanwhile neither waits nor disturbs it.
    let snapshot = p.snapshot().expect("snapshot");
    p.set_override("autodl", "rtx3090", "9.99", "")
        .expect("a save while the snapshot is in use");
    let during = snapshot.quote(&plan).expect("quoted on the snapshot");
    let after = p
        .snapshot()
        .expect("snapshot")
        .quote(&plan)
        .expect("quoted");
    assert_eq!(
        during.cash_total, before.cash_total,
        "the snapshot is the data as it was when taken"
    );
    assert!(
        after.cash_total > before.cash_total,
        "a snapshot taken after the save prices with the new price: {} then {}",
        before.cash_total,
        after.cash_total
    );
    assert_eq!(
        p.quote(&plan).expect("quoted").cash_total,
        after.cash_total,
        "the planner's own quote is the snapshot's"
    );
}

#[test]
fn undoing_a_plan_delete_puts_it_back_under_its_id_with_its_bills_linked() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut p = planner(dir.path());
    let plan = hours_plan("autodl", "rtx3090", 2);
    let id = p.save_plan(None, &plan, None).expect("saved");
    let bill = p
        .add_ledger(&crate::views::LedgerInput {
            date: "2026-11-30".into(),
            platform: "autodl".into(),
            gpu: "rtx3090".into(),
            hours: "2".into(),
            cost: "3.20".into(),
            problems: String::new(),
            plan_id: Some(id),
        })
        .expect("a bill for the plan");
    let deleted = p.delete_plan(id).expect("deleted");
    assert_eq!(
        deleted.ledger_ids,
        vec![bill],
        "the delete names the bill it unlinked"
    );
    assert!(
        matches!(
            p.save_plan(Some(id), &plan, None),
            Err(AppError::Input { ref field, said: Some(_), .. }) if field == "id"
        ),
        "saving into the deleted plan is a keyed error naming the id, not a store failure"
    );
    let back = p.restore_plan(&deleted).expect("undone");
    assert_eq!(back, id, "the plan comes back under its own id");
    let linked = p
        .ledger()
        .expect("ledger")
        .entries
        .iter()
        .find(|e| e.id == bill)
        .and_then(|e| e.plan_id);
    assert_eq!(linked, Some(id), "its bill names it again");
    assert_eq!(p.plans().expect("plans").len(), 1, "one plan, not a copy");
}

/// A one-hour report on a two-GPU AutoDL RTX 3090 instance whose job kept
/// `peaks` GPUs busy, with its `driver` string.
fn two_gpu_report(peaks: &str, driver: &str) -> String {
    format!(
        r#"{{"schema": "gpuplan-run-report/2", "plan": "none", "job": "train", "platform": "autodl",
  "run_id": "r-2gpu", "part": 1, "requeued": false,
  "gpu_name": "NVIDIA GeForce RTX 3090", "driver": "{driver}", "gpu_count": 2, "gpu_peaks_mib": [{peaks}],
  "torch_allocated_mib": [],
  "started_at": "2026-11-30T10:00:00+0800", "ended_at": "2026-11-30T11:00:00+0800",
  "wall_seconds": 3600, "first_progress_seconds": 30, "progress_lines": 10,
  "last_progress": "Epoch 10", "cpu_percent": 40, "exit_status": 0}}"#
    )
}

#[test]
fn a_report_bills_the_instances_gpus_and_is_one_bill_whatever_its_driver_says() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut p = planner(dir.path());
    // AutoDL's RTX 3090 at its typical 1.39/h; the instance had two GPUs,
    // the job kept one busy: AutoDL bills both, 1 h x 2 x 1.39 = 2.78.
    let run = p
        .import_report("r.json", &two_gpu_report("9000", "550.54.0"), None)
        .expect("imports");
    assert_eq!(
        run.cost,
        Decimal::new(278, 2),
        "the platform bills the instance's two GPUs, not the one the job used"
    );
    // The same run, its driver string touched: the same bill, nothing added.
    let again = p
        .import_report("r2.json", &two_gpu_report("9000", "550.54.1"), None)
        .expect("imports");
    assert!(
        again.already_imported,
        "a field that describes the run (the driver) does not make it another run"
    );
    assert_eq!(
        again.ledger_id, run.ledger_id,
        "it answers with the first bill"
    );
    assert!(
        run.cost_estimated && again.cost_estimated,
        "priced from the platform's price, and the answer again says so"
    );
    assert_eq!(p.ledger().expect("ledger").entries.len(), 1, "one bill");
}

/// A one-GPU RTX 3090 report of `seconds` on `platform` for `plan`.
fn short_report(platform: &str, plan: &str, seconds: u64) -> String {
    let start = "2026-11-30T10:00:00+0800";
    format!(
        r#"{{"schema": "gpuplan-run-report/2", "plan": "{plan}", "job": "train", "platform": "{platform}",
  "run_id": "r-{platform}-{seconds}", "part": 1, "requeued": false,
  "gpu_name": "NVIDIA GeForce RTX 3090", "driver": "550", "gpu_count": 1, "gpu_peaks_mib": [9000],
  "torch_allocated_mib": [],
  "started_at": "{start}", "ended_at": "{end}",
  "wall_seconds": {seconds}, "first_progress_seconds": 30, "progress_lines": 10,
  "last_progress": "Epoch 10", "cpu_percent": 40, "exit_status": 0}}"#,
        end = ended(start, seconds)
    )
}

#[test]
fn a_reports_estimated_bill_follows_the_platforms_billing_rules() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut p = planner(dir.path());
    let mut student = hours_plan("autodl", "rtx3090", 1);
    student.name = "student plan".into();
    student.student = true;
    p.save_plan(None, &student, None).expect("saved");
    // (platform, plan, seconds, bill, why)
    let cases = [
        (
            "autodl",
            "none",
            1769,
            Decimal::new(68, 2),
            "per second: 1769 s x 1.39 / 3600 = 0.683 -> 0.68 (not the window rounded up to 0.50 h: 0.70)",
        ),
        (
            "autodl",
            "student plan",
            1770,
            Decimal::new(65, 2),
            "the plan says student: 1770 s x 1.39 x 0.95 / 3600 = 0.649 -> 0.65",
        ),
        (
            "lanrui",
            "none",
            1200,
            Decimal::new(250, 2),
            "hourly with a one-hour minimum: 20 minutes bill 1 h x 2.50",
        ),
    ];
    for (platform, plan, seconds, bill, why) in cases {
        let run = p
            .import_report("r.json", &short_report(platform, plan, seconds), None)
            .expect("imports");
        assert!(run.cost_estimated, "{why}: estimated, no --cost given");
        assert_eq!(run.cost, bill, "{why}");
    }
}

#[test]
fn plan_versus_actual_shows_a_second_version_reports_memory() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut p = planner(dir.path());
    let plan = model_plan();
    p.save_plan(None, &plan, None).expect("saved");
    let run = p
        .import_report(
            "r.json",
            &measured_report(&plan.name, 600, 2746, 1),
            Some("1.00"),
        )
        .expect("imports");
    let v = run.versus.expect("the report names the saved plan");
    assert_eq!(
        v.measured_peak_gib,
        Some(2746.0 / 1024.0),
        "nvidia-smi's per-GPU peak of a version-2 report is the measured memory (it read '-' before)"
    );
    assert!(
        v.planned_peak_gib.is_some(),
        "beside the estimate's per-GPU peak"
    );
}

#[test]
fn a_card_without_bf16_gets_fp16_when_the_precision_is_left_to_the_default() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut p = planner(dir.path());
    let job = JobSpec {
        model: Some("bert-base".into()),
        ..JobSpec::default()
    };
    let r = p
        .estimate(&job, Some("t4"), None, None)
        .expect("a T4 estimate");
    assert_eq!(
        r.job.precision,
        gpuplan_core::job::Precision::Fp16Amp,
        "the default bf16-amp becomes fp16-amp on a T4 (no bfloat16)"
    );
    let asked = JobSpec {
        precision: Some(gpuplan_core::job::Precision::Bf16Amp),
        ..job
    };
    assert!(
        p.estimate(&asked, Some("t4"), None, None).is_err(),
        "bf16 asked for on a T4 is still refused, with the reason"
    );
}

#[test]
fn numbers_are_read_as_people_type_them() {
    use crate::userdata::{as_typed, units_of};
    // (field, typed, read as, why)
    let cases = [
        ("budget", "１５０", "150", "full-width digits"),
        ("budget", "1,000", "1000", "thousands separators"),
        (
            "budget",
            "1，000．5",
            "1000.5",
            "full-width separator and point",
        ),
        ("budget", "150元", "150", "a trailing 元"),
        ("budget", "¥150", "150", "a currency sign"),
        ("hours", "6h", "6", "hours with h"),
        ("deadline_hours", "24 小时", "24", "hours in Chinese"),
        ("storage_gb", "20GB", "20", "GB"),
        (
            "storage_gb",
            "20元",
            "20元",
            "a unit of another field stays and is refused",
        ),
        (
            "budget",
            "1,00",
            "1,00",
            "commas not grouping by three stay",
        ),
        ("batch", "128", "128", "plain numbers unchanged"),
    ];
    for (field, typed, want, why) in cases {
        assert_eq!(as_typed(typed, units_of(field)), want, "{why}");
    }
}

#[test]
fn an_export_is_as_readable_as_any_new_file_and_a_replaced_one_keeps_its_mode() {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().expect("tmp");
        // What any program's new file gets here (0666 less the umask).
        let reference = dir.path().join("reference");
        std::fs::File::create(&reference).expect("create");
        let mode = |p: &Path| std::fs::metadata(p).expect("meta").permissions().mode() & 0o777;
        let fresh = dir.path().join("pack.toml");
        crate::files::write_new(&fresh, b"x", false).expect("writes");
        assert_eq!(
            mode(&fresh),
            mode(&reference),
            "a new export is not private to its owner"
        );
        std::fs::set_permissions(&fresh, std::fs::Permissions::from_mode(0o640)).expect("chmod");
        crate::files::write_new(&fresh, b"y", true).expect("replaces");
        assert_eq!(mode(&fresh), 0o640, "a replaced file keeps who may read it");
        assert_eq!(
            std::fs::read(&fresh).expect("read"),
            b"y",
            "and holds the new bytes"
        );
    }
}

#[test]
fn a_file_the_system_refuses_is_named_with_the_reason_in_the_students_language() {
    let labels = crate::Catalog::bundled().expect("catalog");
    let e = AppError::io_at(
        Path::new("rodir/x.toml"),
        &std::io::Error::from_raw_os_error(13),
    );
    // (language, words that must be there, why)
    let cases = [
        (
            crate::Lang::En,
            "rodir/x.toml: permission denied",
            "the file named, the reason worded",
        ),
        (crate::Lang::Zh, "rodir/x.toml", "the same file in Chinese"),
    ];
    for (lang, has, why) in cases {
        let text = labels.error(lang, &e);
        assert!(text.contains(has), "{why}: {text}");
        assert!(!text.contains("os error"), "{why}: no raw OS text: {text}");
    }
}

#[test]
fn a_system_error_is_worded_by_its_kind_whatever_system_said_it() {
    let labels = crate::Catalog::bundled().expect("catalog");
    // Windows' words and codes (112: the disk is full) are not Linux's.
    let e = AppError::io_at(
        Path::new("C:/course/pack.toml"),
        &std::io::Error::new(
            std::io::ErrorKind::StorageFull,
            "There is not enough space on the disk. (os error 112)",
        ),
    );
    for lang in [crate::Lang::En, crate::Lang::Zh] {
        let text = labels.error(lang, &e);
        assert!(
            !text.contains("There is not enough space"),
            "{lang:?}: the catalog's words, not the system's: {text}"
        );
        assert!(
            text.contains("pack.toml"),
            "{lang:?}: the file is named: {text}"
        );
    }
}

#[test]
fn a_read_only_database_is_named_and_not_called_a_failed_save() {
    let labels = crate::Catalog::bundled().expect("catalog");
    let e: AppError = gpuplan_store::StoreError::Unwritable {
        path: "/home/s/.local/share/gpuplan/gpuplan.db".into(),
        reason: "attempt to write a readonly database".into(),
    }
    .into();
    for lang in [crate::Lang::En, crate::Lang::Zh] {
        let text = labels.error(lang, &e);
        assert!(
            text.contains("gpuplan.db"),
            "{lang:?}: the file is named: {text}"
        );
        assert!(
            !text.contains("Saving failed")
                && !text.contains("保存失败")
                && !text.contains("readonly"),
            "{lang:?}: a read command is not told a save failed, nor SQLite's words: {text}"
        );
    }
}

#[test]
fn a_multi_gpu_estimate_quotes_the_multi_gpu_figures_not_the_cards() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut p = planner(dir.path());
    // (GPUs, the scale the line quotes, why)
    let cases = [
        (None, None, "one GPU: the card's class"),
        (
            Some(4.0),
            Some("enum.scale.one-node"),
            "four GPUs fit one node",
        ),
        (
            Some(16.0),
            Some("enum.scale.several-nodes"),
            "sixteen span two nodes of eight",
        ),
    ];
    for (gpus, scale, why) in cases {
        let job = JobSpec {
            model: Some("llama-2-7b".into()),
            mode: Some(gpuplan_core::job::Mode::Lora),
            gpus,
            ..JobSpec::default()
        };
        let view = p
            .estimate_view(&job, Some("a100-80g-sxm"), None)
            .expect("estimates");
        let note = view.accuracy.expect("every scale has held-out runs");
        assert_eq!(note.params.get("scale").map(String::as_str), scale, "{why}");
        let class = note.params.get("class").map(String::as_str);
        assert_eq!(
            class.is_some(),
            scale.is_none(),
            "{why}: the class is quoted only for one GPU"
        );
    }
}

#[test]
fn an_offer_option_carries_hours_to_that_card_as_the_options_do() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut p = planner(dir.path());
    let mut situation = defaults::situation();
    situation.job = JobSpec {
        hours: Some(Decimal::from(6)),
        ..JobSpec::default()
    };
    let snap = p.snapshot().expect("snapshot");
    let hours_on = |gpu: &str| {
        let o = snap
            .offer_option(&situation, ("autodl", gpu, Payment::OnDemand))
            .expect("answers");
        o.option
            .and_then(|o| o.plan)
            .and_then(|plan| plan.job.hours)
    };
    // (card, what its hours must be, why)
    let on_3090 = hours_on("rtx3090").expect("the 3090 is an option");
    assert_eq!(on_3090, Decimal::from(6), "hours are given for an RTX 3090");
    let on_4090 = hours_on("rtx4090").expect("the 4090 is an option");
    assert!(
        on_4090 < on_3090,
        "a faster card takes fewer hours: {on_4090} against {on_3090}"
    );
    let ranked = p.recommend(&situation).expect("recommends");
    let listed = ranked
        .options
        .iter()
        .find(|o| o.platform == "autodl" && o.gpu == "rtx4090" && o.payment == Payment::OnDemand)
        .and_then(|o| o.plan.as_ref())
        .and_then(|plan| plan.job.hours);
    assert_eq!(
        listed,
        Some(on_4090),
        "the same hours as the options screen's option"
    );
    let none = snap
        .offer_option(&situation, ("autodl", "no-such-card", Payment::OnDemand))
        .expect("answers");
    assert!(
        none.option.is_none() && none.ruled_out.is_none(),
        "a card the platform does not rent is neither an option nor ruled out"
    );
}

#[test]
fn a_plan_the_app_cannot_save_is_refused_by_its_field_not_a_file_and_line() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut p = planner(dir.path());
    let mut plan = hours_plan("autodl", "rtx3090", 1);
    plan.name = "x".repeat(300);
    match p.save_plan(None, &plan, None) {
        Err(AppError::Input { field, said, .. }) => {
            assert_eq!(field, "name", "the plan's name is named");
            assert_eq!(
                said.map(|s| s.message.key),
                Some("error.tooLong".to_owned()),
                "in the catalog's words"
            );
        }
        other => panic!("a 300-character name is refused as an input: {other:?}"),
    }
    assert!(p.plans().expect("lists").is_empty(), "nothing is saved");
}

#[test]
fn a_typed_bill_left_empty_is_required_and_its_fields_have_the_forms_limits() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut p = planner(dir.path());
    let entry = crate::views::LedgerInput {
        date: "2026-11-30".into(),
        platform: "autodl".into(),
        gpu: "rtx3090".into(),
        hours: " ".into(),
        cost: "16.5".into(),
        problems: String::new(),
        plan_id: None,
    };
    match p.add_ledger(&entry) {
        Err(AppError::Input { field, said, .. }) => {
            assert_eq!(
                field,
                crate::ledger::BILL_HOURS,
                "the bill's hours, not a plan's hours per run"
            );
            assert_eq!(
                said.map(|s| s.message.key),
                Some("error.required".to_owned()),
                "said to be required, not 'not a number'"
            );
        }
        other => panic!("empty hours are refused: {other:?}"),
    }
    let limits = Planner::bill_limits();
    assert!(
        limits
            .iter()
            .any(|l| l.field == crate::ledger::BILL_COST && !l.allows(-10.0)),
        "the form refuses a negative amount as Rust does"
    );
}

#[test]
fn a_pack_preset_from_a_plan_on_another_card_gives_that_plans_hours_back_on_its_card() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut t = planner(dir.path());
    // Six hours on an A100 80GB SXM (seed 003's lanrui plan).
    let plan = hours_plan("lanrui", "a100-80g-sxm", 6);
    let pack = t
        .export_pack(&crate::planning::PackExport {
            name: "NLP 201",
            instructor: "TA",
            platforms: &["lanrui".to_owned(), "autodl".to_owned()],
            presets: vec![plan],
            budget_cap: None,
            measured_runs: Vec::new(),
        })
        .expect("exports");
    let student = tempfile::tempdir().expect("tmp");
    let mut s = planner(student.path());
    s.import_pack("nlp201.toml", &pack).expect("imports");
    let info = s.info().expect("info");
    let preset = info
        .presets
        .iter()
        .find(|p| p.job.hours.is_some())
        .expect("the plan's preset");
    let on_3090 = preset.job.hours.expect("hours");
    assert!(
        on_3090 > Decimal::from(6),
        "the preset's hours are an RTX 3090's, slower than the A100's 6: {on_3090}"
    );
    let mut situation = defaults::situation();
    situation.job = preset.job.clone();
    let back = s
        .snapshot()
        .expect("snapshot")
        .offer_option(&situation, ("lanrui", "a100-80g-sxm", Payment::OnDemand))
        .expect("answers")
        .option
        .and_then(|o| o.plan)
        .and_then(|p| p.job.hours)
        .expect("the A100 is an option");
    assert!(
        (back - Decimal::from(6)).abs() <= Decimal::new(1, 2),
        "the A100's option gives the plan's 6 hours back (to a hundredth): {back}"
    );
}

#[test]
fn a_saved_plans_file_names_no_catalog_key_and_writes_whole_numbers_as_integers() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut p = planner(dir.path());
    let mut plan = defaults::plan(JobSpec {
        model: Some("resnet18-cifar".into()),
        batch: Some(128.0),
        epochs: Some(50.0),
        dataset_samples: Some(50_000.0),
        ..JobSpec::default()
    });
    plan.runs = vec![gpuplan_core::plan::RunGroup::of_job(
        gpuplan_core::plan::DEFAULT_GROUP,
        3,
    )];
    let text = crate::userdata::plan_toml(&plan).expect("writes");
    // (fragment, present, why)
    let cases = [
        (
            "enum.group.run",
            false,
            "the catalog key is the reader's words, not the file's",
        ),
        ("count = 3", true, "the group's runs"),
        ("batch = 128\n", true, "a whole batch as an integer"),
        ("128.0", false, "not as a float"),
        ("epochs = 50\n", true, "whole epochs as an integer"),
    ];
    for (fragment, present, why) in cases {
        assert_eq!(text.contains(fragment), present, "{why}: {text}");
    }
    let back = Plan::from_toml("plan", &text).expect("reads back");
    assert_eq!(back, plan, "the file reads back as the same plan");
    p.save_plan(None, &plan, None).expect("saves");
}

#[test]
fn several_gpus_every_card_is_timed_on_its_own_links_and_fixes_keep_the_layout() {
    use gpuplan_core::job::{Mode, Precision};
    use gpuplan_core::parallel::Engine;
    let dir = tempfile::tempdir().expect("tmp");
    let mut p = planner(dir.path());
    let job = JobSpec {
        model: Some("llama-2-7b".into()),
        mode: Some(Mode::Lora),
        seq_len: Some(1024.0),
        batch: Some(4.0),
        lora_rank: Some(16.0),
        precision: Some(Precision::Bf16),
        dataset_samples: Some(20_000.0),
        epochs: Some(1.0),
        gpus: Some(4.0),
        engine: Some(Engine::Zero3),
        offload: Some(true),
        ..JobSpec::default()
    };
    let step = |r: &gpuplan_core::estimate::EstimateReport, id: &str| {
        r.gpus.iter().find(|g| g.id == id).map(|g| g.step_seconds)
    };
    let plain = p
        .estimate(&job, None, None, Some("autodl"))
        .expect("estimates");
    let on_3090 = p
        .estimate(&job, Some("rtx3090"), None, Some("autodl"))
        .expect("estimates");
    for card in ["a800", "h200", "a100-80g-sxm"] {
        assert_eq!(
            step(&on_3090, card),
            step(&plain, card),
            "{card}'s row is timed on its own links, not the RTX 3090 offer's"
        );
    }
    // The fix promised under ZeRO-3 with offload is what applying it gives.
    let fix = on_3090
        .fixes
        .iter()
        .find(|f| f.kind == gpuplan_core::estimate::FixKind::GradCheckpointing)
        .expect("checkpointing is offered");
    let applied = JobSpec {
        grad_checkpointing: Some(true),
        ..job.clone()
    };
    let after = p
        .estimate(&applied, Some("rtx3090"), None, Some("autodl"))
        .expect("estimates");
    assert!(
        (fix.peak_gib - after.peak_gib).abs() < 0.01,
        "the fix's peak is the layout's per-GPU peak once applied: {} against {}",
        fix.peak_gib,
        after.peak_gib
    );
    let applied_step = step(&after, "rtx3090").expect("timed once it fits");
    assert!(
        (fix.step_seconds - applied_step).abs() < 1e-6 * applied_step.max(1.0),
        "and its step the layout's step: {} against {applied_step}",
        fix.step_seconds
    );
}

#[test]
fn toml_for_a_terminal_escapes_hidden_characters_and_keeps_the_data() {
    use crate::userdata::toml_for_terminal;
    // (TOML, why): each must read back as the same table, with no hidden
    // character left raw.
    let cases = [
        ("name = \"plain\"\n", "plain text is unchanged"),
        (
            "name = 'a\u{202E}b' # kept\n",
            "a literal string is rewritten as a basic one, its comment kept",
        ),
        (
            "[job]\nlist = [\"x\u{200B}\", \"y\"]\n",
            "strings inside arrays",
        ),
        (
            "t = { note = \"\u{FEFF}q\\\"\\\\\" }\n",
            "inside inline tables, quotes and backslashes kept",
        ),
        (
            "s = \"\"\"\nline one\u{2066}\nline two\"\"\"\n",
            "multi-line strings keep their lines",
        ),
    ];
    for (text, why) in cases {
        let shown = toml_for_terminal(text);
        assert!(
            !shown
                .chars()
                .any(|c| gpuplan_core::error::is_hidden(c) && c != '\n'),
            "{why}: nothing hidden left: {shown:?}"
        );
        let before: toml::Table = text.parse().expect("input parses");
        let after: toml::Table = shown.parse().expect("output parses");
        assert_eq!(after, before, "{why}: the same data");
    }
    assert!(
        toml_for_terminal("name = 'a\u{202E}b' # kept\n").contains("# kept"),
        "comments survive"
    );
    assert_eq!(
        toml_for_terminal("not toml \u{202E} ["),
        "not toml \u{202E} [",
        "what is not TOML is left for the printer to mark"
    );
}

#[test]
fn an_amount_in_exponent_form_is_a_number_and_a_huge_one_is_out_of_range() {
    use crate::userdata::{parse_amount, PRICE_PLACES};
    // (typed, Ok(value) or Err(words the English error holds), why)
    let cases: [(&str, Result<&str, &str>, &str); 12] = [
        ("1.39", Ok("1.39"), "a plain price"),
        ("$5", Err("another currency"), "dollars are said as such"),
        ("5 USD", Err("another currency"), "a currency code after it"),
        ("５美元", Err("another currency"), "in Chinese, full-width"),
        ("1.3900000", Ok("1.39"), "trailing zeros are no places"),
        (
            "0.000000000000000000000000000001",
            Err("decimal places"),
            "thirty places are refused, not read as 0 and saved",
        ),
        (
            "1.999999999999999999999999999999",
            Err("decimal places"),
            "nor rounded to 2",
        ),
        ("1e2", Ok("100"), "exponent form is a number"),
        ("1E-2", Ok("0.01"), "either case, negative exponent"),
        (
            "1e308",
            Err("1e308 is out of range"),
            "huge: a range, as typed",
        ),
        ("inf", Err("not a number"), "infinity is no amount"),
        ("12abc", Err("not a number"), "letters"),
    ];
    for (typed, want, why) in cases {
        let got = parse_amount("price", typed, 10_000, PRICE_PLACES);
        match want {
            Ok(v) => assert_eq!(
                got.ok().map(|d| d.normalize().to_string()).as_deref(),
                Some(v),
                "{why}"
            ),
            Err(words) => {
                let e = got.err().map(|e| e.to_string()).unwrap_or_default();
                assert!(e.contains(words), "{why}: {e}");
            }
        }
    }
}

#[test]
fn a_scripts_hours_under_a_minute_are_refused_as_a_unit_slip() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut p = planner(dir.path());
    // (max hours, the wrapper's limit in seconds or the refused field, why)
    let cases: [(f64, Result<u64, &str>, &str); 4] = [
        (
            1e-30,
            Err("max_hours"),
            "a vanishing limit is not a 1 s watchdog",
        ),
        (0.01, Err("max_hours"), "36 s: minutes typed as hours"),
        (1.0 / 60.0, Ok(60), "one minute is the shortest limit"),
        (0.5, Ok(1800), "half an hour is wrapped as given"),
    ];
    for (hours, want, why) in cases {
        let got = p.shutdown_script(&crate::planning::ShutdownRequest {
            platform: "autodl",
            job_name: None,
            command: "python train.py",
            max_hours: Some(hours),
            plan: None,
            destroy: false,
        });
        match (got, want) {
            (Ok(s), Ok(secs)) => assert!(
                s.contains(&format!("MAX_RUNTIME_SECONDS={secs}\n")),
                "{why}"
            ),
            (Err(AppError::Input { field, .. }), Err(f)) => assert_eq!(field, f, "{why}"),
            (other, _) => panic!("{why}: got {other:?}"),
        }
    }
    // (run hours, walltime cap, requeue, the refused field, why)
    let slurm_cases = [
        (
            0.01,
            None,
            false,
            None,
            "a 36 s smoke test: the walltime adds its margin",
        ),
        (
            1.0,
            Some(0.001),
            false,
            Some("cap_hours"),
            "a cap of 3.6 s: minutes typed as hours",
        ),
        (
            1.0,
            Some(0.05),
            true,
            Some("cap_hours"),
            "3 minutes: the requeue's warning comes 5 before the end",
        ),
        (
            1.0,
            Some(0.1),
            true,
            None,
            "6 minutes leave the warning a minute",
        ),
    ];
    for (hours, cap, requeue, refused, why) in slurm_cases {
        let got = p.slurm_script(&crate::planning::SlurmRequest {
            job_name: "job",
            partition: None,
            gpus: None,
            cpus: None,
            mem_gb: None,
            hours: Some(hours),
            plan: None,
            cap_hours: cap,
            output: None,
            activate: Vec::new(),
            command: "python train.py",
            requeue,
        });
        match (got, refused) {
            (Ok(_), None) => {}
            (Err(AppError::Input { field, .. }), Some(f)) => assert_eq!(field, f, "{why}"),
            (other, _) => panic!("{why}: got {other:?}"),
        }
    }
}

#[test]
fn a_slurm_script_for_a_plan_asks_for_its_gpus() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut p = planner(dir.path());
    let plan = gpuplan_core::plan::Plan::from_toml(
        "mg.toml",
        "name = \"mg\"\nplatform = \"campus-slurm\"\ngpu = \"a100-40g-pcie\"\n[job]\nhours = 2\ngpus = 2\n",
    )
    .expect("plan");
    // (--gpus, what is asked for or the field refused, why)
    let cases: [(Option<u32>, Result<&str, &str>, &str); 3] = [
        (
            None,
            Ok("#SBATCH --gres=gpu:2\n"),
            "the plan's two GPUs (was one)",
        ),
        (
            Some(2),
            Ok("#SBATCH --gres=gpu:2\n"),
            "the same count given",
        ),
        (
            Some(1),
            Err("gpus"),
            "one GPU for a two-GPU plan is not the plan's job",
        ),
    ];
    for (gpus, want, why) in cases {
        let got = p.slurm_script(&crate::planning::SlurmRequest {
            job_name: "job",
            partition: None,
            gpus,
            cpus: None,
            mem_gb: None,
            hours: None,
            plan: Some(&plan),
            cap_hours: None,
            output: None,
            activate: Vec::new(),
            command: "python train.py",
            requeue: false,
        });
        match (got, want) {
            (Ok(s), Ok(line)) => assert!(s.text.contains(line), "{why}: {}", s.text),
            (Err(AppError::Input { field, .. }), Err(f)) => assert_eq!(field, f, "{why}"),
            (other, _) => panic!("{why}: got {other:?}"),
        }
    }
}

#[test]
fn a_run_on_another_number_of_gpus_than_its_plan_teaches_nothing() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut p = planner(dir.path());
    let plan = model_plan();
    p.save_plan(None, &plan, None).expect("saved");
    let est = estimate_on_its_card(&mut p, &plan.job);
    let run_s = est.run.map(|r| r.total_s).expect("a whole run");
    let peak = (est.peak_gib * 1024.0).round() as u64;
    // (GPU peaks, whether it teaches, why)
    let cases = [
        (
            format!("[{peak}, {peak}]"),
            false,
            "data parallel on two GPUs: not the one-GPU job",
        ),
        (
            format!("[{peak}, 300]"),
            true,
            "a stray CUDA context on the second GPU is not training",
        ),
        (format!("[{peak}]"), true, "the plan's one GPU"),
    ];
    for (n, (peaks, teaches, why)) in cases.into_iter().enumerate() {
        let text = measured_report(&plan.name, (run_s * 0.55).round() as u64, peak, n as u32)
            .replace(&format!("[{peak}]"), &peaks)
            .replace("\"gpu_count\": 1", "\"gpu_count\": 2");
        let run = p.import_report("r.json", &text, None).expect("imports");
        assert_eq!(run.teaches_calibration, teaches, "{why}");
        assert_eq!(
            run.trained_on_gpus,
            (!teaches).then_some(2),
            "{why}: and says so"
        );
    }
}

#[test]
fn plan_versus_actual_compares_a_short_run_to_the_second() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut p = planner(dir.path());
    // A 39 s run planned (0.0108 h; the bill shows 0.01 h, which is 36 s).
    let mut plan = hours_plan("autodl", "rtx3090", 1);
    plan.job.hours = Some(Decimal::new(39, 0) / Decimal::from(3600));
    plan.name = "short".into();
    p.save_plan(None, &plan, None).expect("saved");
    // (seconds measured, slower said, why)
    let cases = [
        (
            44,
            false,
            "44 s is 13% over 39 s, inside the 20% an estimate may miss by",
        ),
        (48, true, "48 s is 23% over 39 s"),
    ];
    for (n, (seconds, slower, why)) in cases.into_iter().enumerate() {
        let start = format!("2026-11-30T11:{n:02}:00+0800");
        let text = format!(
            r#"{{"schema": "gpuplan-run-report/1", "plan": "short", "job": "train", "platform": "autodl",
  "gpu_name": "NVIDIA GeForce RTX 3090", "driver": "550", "gpu_count": 1, "peak_memory_mib": null,
  "started_at": "{start}", "ended_at": "{end}",
  "wall_seconds": {seconds}, "first_progress_seconds": null, "progress_lines": 0,
  "last_progress": "", "cpu_percent": 30, "exit_status": 0}}"#,
            end = ended(&start, seconds)
        );
        let v = p
            .import_report("r.json", &text, Some("0.01"))
            .expect("imports")
            .versus
            .expect("compared with its plan");
        assert!(
            (v.planned_hours * 3600.0 - 39.0).abs() < 1e-6,
            "{why}: the plan's 39 s"
        );
        assert_eq!(
            v.gaps.iter().any(|g| g.key() == "slower-than-estimated"),
            slower,
            "{why}"
        );
    }
}

#[test]
fn a_full_or_failing_disk_is_said_in_the_readers_words_with_the_file() {
    let labels = crate::Catalog::bundled().expect("catalog");
    // (SQLite's words, what the reader is told in each language, why)
    let cases = [
        (
            "database or disk is full",
            ["the disk is full", "磁盘已满"],
            "a full disk",
        ),
        (
            "disk I/O error",
            ["disk I/O error", "磁盘读写失败"],
            "a failing disk",
        ),
    ];
    for (reason, said, why) in cases {
        let e: AppError = gpuplan_store::StoreError::Unwritable {
            path: "/tmp/tiny/gpuplan.db".into(),
            reason: reason.into(),
        }
        .into();
        for (lang, words) in [(crate::Lang::En, said[0]), (crate::Lang::Zh, said[1])] {
            let text = labels.error(lang, &e);
            assert!(
                text.contains("gpuplan.db"),
                "{why}, {lang:?}: the file is named: {text}"
            );
            assert!(text.contains(words), "{why}, {lang:?}: {text}");
            assert!(
                !text.contains("Sqlite") && !text.contains("rusqlite"),
                "{why}, {lang:?}: no debug text: {text}"
            );
        }
    }
}

#[test]
fn a_run_of_a_plan_edited_since_its_kit_was_made_is_not_its_job() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut p = planner(dir.path());
    let plan = model_plan();
    let first = p.save_plan(None, &plan, None).expect("saved");
    // The kit carries the job's digest into the report it writes.
    let kit = p.kit(&plan, "python train.py").expect("kit");
    let wrapper = kit
        .scripts
        .iter()
        .find(|s| s.key == "shutdown")
        .expect("a wrapper");
    let digest = plan.job_digest();
    assert!(
        wrapper.text.contains(&format!("PLAN_JOB='{digest}'")),
        "the wrapper writes the plan's job digest"
    );
    let est = estimate_on_its_card(&mut p, &plan.job);
    let run_s = est.run.map(|r| r.total_s).expect("a whole run") as u64;
    let peak = (est.peak_gib * 1024.0).round() as u64;
    let report = |n: u32, job: &str| {
        measured_report(&plan.name, run_s, peak, n).replace(
            "\"job\": \"train\",",
            &format!("\"job\": \"train\", \"plan_job\": \"{job}\","),
        )
    };
    let ran = p
        .import_report("r.json", &report(0, &digest), None)
        .expect("imports");
    assert!(
        !ran.plan_changed && ran.teaches_calibration,
        "the plan's own job teaches"
    );
    assert!(!ran.plan_not_found, "its plan was found");
    assert!(ran.versus.is_some(), "and is compared with its plan");
    // The student edits the plan (20 epochs) and saves it under the same
    // name: a run of the 10-epoch kit is not a run of it.
    let mut edited = plan.clone();
    edited.job.epochs = Some(20.0);
    let second = p.save_plan(None, &edited, None).expect("saved");
    assert_ne!(first, second, "two saved plans of one name");
    let old = p
        .import_report("r.json", &report(1, &digest), None)
        .expect("imports");
    assert_eq!(
        old.plan_id,
        Some(first),
        "the digest names the plan the run ran, not the newest"
    );
    assert!(
        !old.plan_changed && old.teaches_calibration,
        "that plan's job is unchanged"
    );
    p.delete_plan(first).expect("deleted");
    let orphan = p
        .import_report("r.json", &report(2, &digest), None)
        .expect("imports");
    assert_eq!(
        orphan.plan_id,
        Some(second),
        "billed under the plan of that name"
    );
    assert!(orphan.plan_changed, "whose job is not the run's");
    assert!(!orphan.teaches_calibration, "nothing taught");
    assert!(orphan.versus.is_none(), "nor compared");
    let bill = p
        .ledger()
        .expect("ledger")
        .entries
        .into_iter()
        .find(|e| e.id == orphan.ledger_id)
        .expect("the bill");
    assert_eq!(
        bill.planned_cost, None,
        "nor set beside the other job's planned cost (0.70 planned against 0.02 run)"
    );
    // Deleted and put back (undo): as it was imported, beside nothing.
    let deleted = p.delete_ledger(orphan.ledger_id).expect("deletes");
    let back = p.restore_ledger(&deleted).expect("undo");
    let restored = p
        .ledger()
        .expect("ledger")
        .entries
        .into_iter()
        .find(|e| e.id == back)
        .expect("the bill");
    assert_eq!(
        restored.planned_cost, None,
        "undo does not set it beside the other job's planned cost"
    );
}

#[test]
fn a_plan_or_a_cost_given_for_a_run_already_billed_is_refused_not_dropped() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut p = planner(dir.path());
    let plan = model_plan();
    let text = measured_report(&plan.name, 600, 2000, 0);
    let first = p.import_report("r.json", &text, None).expect("imports");
    assert!(
        first.plan_id.is_none(),
        "no saved plan of that name: filed under none"
    );
    assert!(
        first.plan_not_found,
        "and the import says why nothing is compared or taught"
    );
    let reports = [("r.json".to_owned(), text)];
    // (cost, plan file, the field named, why)
    let cases = [
        (Some("1.00"), None, "cost", "a real bill would be dropped"),
        (
            None,
            Some(&plan),
            "plan",
            "a plan to compare with would be dropped",
        ),
    ];
    for (cost, plan_file, field, why) in cases {
        match p.import_reports(&reports, cost, plan_file) {
            Err(AppError::Input { field: f, .. }) => assert_eq!(f, field, "{why}"),
            other => panic!("{why}: refused, not {other:?}"),
        }
    }
    let again = p.import_reports(&reports, None, None).expect("imports");
    assert!(
        again[0].already_imported,
        "without either, the run is the bill it was"
    );
}

#[test]
fn a_bill_lines_duration_under_a_second_is_worded_not_zero() {
    use gpuplan_core::quote::seconds_param;
    // (hours, the parameter, English, Chinese, why)
    let cases = [
        (
            Decimal::new(47, 2) / Decimal::from(3600),
            "0.5",
            "0.5 s",
            "0.5 秒",
            "0.47 s of 8 x H800",
        ),
        (
            Decimal::new(1, 3) / Decimal::from(3600),
            "0.1",
            "0.1 s",
            "0.1 秒",
            "at least a tenth",
        ),
        (Decimal::ZERO, "0", "0 s", "0 秒", "nothing is 0"),
        (
            Decimal::from(30) / Decimal::from(3600),
            "30",
            "30 s",
            "30 秒",
            "whole seconds",
        ),
    ];
    for (hours, param, en, zh, why) in cases {
        let p = seconds_param(hours);
        assert_eq!(p, param, "{why}");
        assert_eq!(crate::labels::duration(crate::Lang::En, &p), en, "{why}");
        assert_eq!(crate::labels::duration(crate::Lang::Zh, &p), zh, "{why}");
    }
}

#[test]
fn of_two_plans_with_one_job_the_run_is_filed_under_the_one_it_rented() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut p = planner(dir.path());
    let plan = model_plan();
    let here = p.save_plan(None, &plan, None).expect("saved");
    // The same job saved again for another platform and card, under the
    // same name and later: the same job digest.
    let mut elsewhere = plan.clone();
    elsewhere.platform = "youyun".into();
    elsewhere.gpu = "rtx4090".into();
    let there = p.save_plan(None, &elsewhere, None).expect("saved");
    assert_eq!(plan.job_digest(), elsewhere.job_digest(), "one job");
    let text = measured_report(&plan.name, 600, 2000, 0).replace(
        "\"job\": \"train\",",
        &format!(
            "\"job\": \"train\", \"plan_job\": \"{}\",",
            plan.job_digest()
        ),
    );
    let run = p.import_report("r.json", &text, None).expect("imports");
    assert_eq!(
        run.plan_id,
        Some(here),
        "an AutoDL RTX 3090 run is the AutoDL RTX 3090 plan's, not #{there}"
    );
}

#[test]
fn a_weekly_import_with_a_plan_file_answers_the_runs_billed_before_and_a_plan_of_another_job_is_said(
) {
    let dir = tempfile::tempdir().expect("tmp");
    let mut p = planner(dir.path());
    let plan = model_plan();
    let digest = plan.job_digest();
    let report = |n: u32, job: &str| {
        measured_report(&plan.name, 600, 2000, n).replace(
            "\"job\": \"train\",",
            &format!("\"job\": \"train\", \"plan_job\": \"{job}\","),
        )
    };
    let first = [("a.json".to_owned(), report(0, &digest))];
    p.import_reports(&first, None, Some(&plan))
        .expect("imports");
    // The next week, every report again with the same plan file.
    let week = [
        ("a.json".to_owned(), report(0, &digest)),
        ("b.json".to_owned(), report(1, &digest)),
    ];
    let runs = p
        .import_reports(&week, None, Some(&plan))
        .expect("a weekly import is no error");
    assert!(
        runs[0].already_imported,
        "the run billed last week is that bill"
    );
    assert!(!runs[1].already_imported, "the new one is added");
    assert!(!runs[1].plan_file_other, "the plan file is its job");
    // A plan file of another job (20 epochs) for a run of the 10-epoch kit.
    let mut other = plan.clone();
    other.job.epochs = Some(20.0);
    let odd = [("c.json".to_owned(), report(2, &digest))];
    let run = &p.import_reports(&odd, None, Some(&other)).expect("imports")[0];
    assert!(
        run.plan_file_other && !run.plan_changed,
        "said as the plan file's, not an edit"
    );
    assert!(
        !run.teaches_calibration && run.versus.is_none(),
        "nothing compared or taught"
    );
    // One job however its hours are written.
    let hours = |h: Decimal| {
        let mut p = plan.clone();
        p.job.hours = Some(h);
        p.job_digest()
    };
    assert_eq!(
        hours(Decimal::new(65, 1)),
        hours(Decimal::new(650, 2)),
        "6.5 and 6.50 hours are one job"
    );
    assert!(
        p.import_reports(
            &[("d.json".to_owned(), report(3, &digest.to_uppercase()))],
            None,
            Some(&plan)
        )
        .expect("imports")[0]
            .teaches_calibration,
        "a digest in capitals is the same digest"
    );
}

#[test]
fn a_run_set_aside_as_another_job_is_said_at_import_not_called_teaching() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut p = planner(dir.path());
    let plan = model_plan();
    p.save_plan(None, &plan, None).expect("saved");
    let est = estimate_on_its_card(&mut p, &plan.job);
    let run_s = est.run.map(|r| r.total_s).expect("a whole run");
    let peak_mib = est.peak_gib * 1024.0;
    // (time and memory factors, set aside, why)
    let cases = [
        (1.0, 1.0, false, "on its estimate: it teaches"),
        (
            2.0,
            2.0,
            true,
            "both twice the estimate, the same way: another batch",
        ),
        (1.1, 1.05, false, "a little off: an honest run teaches"),
    ];
    for (n, (t, m, aside, why)) in cases.into_iter().enumerate() {
        let text = measured_report(
            &plan.name,
            (run_s * t).round() as u64,
            (peak_mib * m).round() as u64,
            n as u32,
        );
        let run = p.import_report("r.json", &text, None).expect("imports");
        assert_eq!(run.set_aside, aside, "{why}");
        assert_eq!(
            run.teaches_calibration, !aside,
            "{why}: and so whether it teaches"
        );
    }
    assert_eq!(
        p.calibration().expect("view").set_aside,
        1,
        "the calibration view agrees"
    );
}

#[test]
fn each_fix_on_the_list_is_named_apart() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut p = planner(dir.path());
    let job = JobSpec {
        model: Some("llama-2-7b".into()),
        seq_len: Some(1024.0),
        batch: Some(4.0),
        ..Default::default()
    };
    let est = p
        .estimate(&job, Some("a800"), None, None)
        .expect("estimates");
    let kinds: Vec<_> = est.fixes.iter().map(|f| f.kind).collect();
    let distinct: std::collections::BTreeSet<&str> = kinds.iter().map(|k| k.as_str()).collect();
    assert_eq!(
        distinct.len(),
        kinds.len(),
        "no two fixes share a name: {kinds:?}"
    );
    assert!(
        kinds.contains(&gpuplan_core::estimate::FixKind::LoraCheckpointed),
        "LoRA with checkpointing is its own fix: {kinds:?}"
    );
}

#[test]
fn a_preset_keeps_its_plans_run_length_or_is_refused() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut p = planner(dir.path());
    let plan_of = |toml: &str| Plan::from_toml("p.toml", toml).expect("a plan");
    let export = |p: &mut Planner, plan: Plan| {
        p.export_pack(&crate::planning::PackExport {
            name: "CV",
            instructor: "TA",
            platforms: &["autodl".to_owned()],
            presets: vec![plan],
            budget_cap: None,
            measured_runs: Vec::new(),
        })
    };
    let head = "name = \"m\"\nplatform = \"autodl\"\ngpu = \"rtx3090\"\n[job]\nhours = 1\n";
    // Three 1 h runs and two 5 h runs: no one job run five times.
    let mixed = plan_of(&format!(
        "{head}[[run]]\nname = \"a\"\ncount = 3\nhours = 1\n[[run]]\nname = \"b\"\ncount = 2\nhours = 5\n"
    ));
    match export(&mut p, mixed) {
        Err(AppError::Input { field, .. }) => assert_eq!(field, "run", "refused, naming the runs"),
        other => panic!("runs of two lengths are refused, not cut to 1 h: {other:?}"),
    }
    // Two 5 h runs on a plan whose job says 1 h: the runs' 5 h.
    let long = plan_of(&format!(
        "{head}[[run]]\nname = \"b\"\ncount = 2\nhours = 5\n"
    ));
    let text = export(&mut p, long).expect("exports");
    let pack = gpuplan_core::pack::CoursePack::from_toml(
        "cv.toml",
        &text,
        &bundled().catalog,
        &bundled().zoo,
    )
    .expect("reads back");
    assert_eq!(
        pack.presets[0].job.hours,
        Some(Decimal::from(5)),
        "the runs' length, as an RTX 3090's (the plan's card)"
    );
    assert_eq!(pack.presets[0].runs, 2, "two runs");
}

#[test]
fn an_instructors_price_reaches_the_class_as_the_courses_not_their_own() {
    let teacher = tempfile::tempdir().expect("tmp");
    let mut t = planner(teacher.path());
    t.set_override("autodl", "rtx4090", "1.98", "2026-12 console")
        .expect("the instructor's price");
    let pack = t
        .export_pack(&crate::planning::PackExport {
            name: "CV",
            instructor: "TA",
            platforms: &["autodl".to_owned()],
            presets: Vec::new(),
            budget_cap: None,
            measured_runs: Vec::new(),
        })
        .expect("exports");
    let student = tempfile::tempdir().expect("tmp");
    let mut s = planner(student.path());
    s.import_pack("cv.toml", &pack).expect("imports");
    let platforms = s.platforms().expect("platforms");
    let price = &platforms
        .get("autodl")
        .expect("autodl")
        .offers
        .iter()
        .find(|o| o.gpu == "rtx4090")
        .expect("the 4090")
        .price_per_hour;
    assert_eq!(
        price.typical,
        "1.98".parse::<Decimal>().expect("decimal"),
        "the instructor's price"
    );
    assert_eq!(
        price.grade,
        gpuplan_core::sourced::Grade::Course,
        "graded the course's, not the student's own"
    );
    assert!(
        price
            .source
            .starts_with(gpuplan_core::pack::COURSE_PRICE_SOURCE),
        "nor sourced as theirs, and said in both languages (a source is shown as written): {}",
        price.source
    );
}

#[test]
fn a_pack_says_which_prices_it_moved_which_stay_the_students_and_whose_platforms_now_choose() {
    let teacher = tempfile::tempdir().expect("tmp");
    let mut t = planner(teacher.path());
    let export = |t: &mut Planner, name: &'static str, cap: Option<&'static str>| {
        t.export_pack(&crate::planning::PackExport {
            name,
            instructor: "TA",
            platforms: &["autodl".to_owned()],
            presets: Vec::new(),
            budget_cap: cap,
            measured_runs: Vec::new(),
        })
        .expect("exports")
    };
    t.set_override("autodl", "rtx4090", "2.05", "")
        .expect("price");
    let cv = export(&mut t, "CV", Some("150"));
    t.set_override("autodl", "rtx4090", "1.11", "")
        .expect("price");
    let nlp = export(&mut t, "NLP", None);
    let cv_later = export(&mut t, "CV", Some("120"));

    let student = tempfile::tempdir().expect("tmp");
    let mut s = planner(student.path());
    s.set_override("autodl", "rtx3090", "1.00", "")
        .expect("own price");
    let said = |s: &mut Planner, file: &str, text: &str, key: &str| -> Option<String> {
        let before = s.notices().len();
        s.import_pack(file, text).expect("imports");
        s.notices()[before..]
            .iter()
            .find(|m| m.key == key)
            .map(|m| format!("{:?}", m.params))
    };
    let moved = said(&mut s, "cv.toml", &cv, "notice.packMovedPrices").unwrap_or_default();
    assert!(
        moved.contains("autodl rtx4090") && moved.contains("→ 2.05"),
        "the course's price replacing the listed one is said: {moved}"
    );
    let student_view = s.platforms().expect("platforms");
    assert_eq!(
        student_view
            .get("autodl")
            .expect("autodl")
            .offer("rtx3090", &s.bundled.catalog)
            .map(|o| o.price_per_hour.typical.normalize().to_string())
            .ok()
            .as_deref(),
        Some("1"),
        "test setup: the student's own price stays in use"
    );
    let mut s2 = planner(tempfile::tempdir().expect("tmp").path());
    s2.set_override("autodl", "rtx3090", "1.00", "")
        .expect("own price");
    let own = said(&mut s2, "cv.toml", &cv, "notice.packOwnPrices").unwrap_or_default();
    assert!(
        own.contains("autodl rtx3090 1 (1.39)"),
        "a price the student set stays over the course's, and the import says so: {own}"
    );
    let moved = said(&mut s, "nlp.toml", &nlp, "notice.packMovedPrices").unwrap_or_default();
    assert!(
        moved.contains("2.05 → 1.11"),
        "a second course's pack moving the first's price is said: {moved}"
    );
    let before = s.notices().len();
    s.import_pack("cv.toml", &cv_later).expect("imports");
    let keys: Vec<&str> = s.notices()[before..]
        .iter()
        .map(|m| m.key.as_str())
        .collect();
    assert!(
        keys.contains(&"notice.packChoosesNow") && keys.contains(&"notice.packCapChanged"),
        "the platforms now chosen among, and a course's new budget cap, are said: {keys:?}"
    );
}

#[test]
fn a_run_of_a_plan_with_its_own_price_is_billed_at_that_price() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut p = planner(dir.path());
    let mut plan = model_plan();
    plan.prices.gpu_per_hour = Some(Decimal::new(250, 2));
    plan.student = false;
    p.save_plan(None, &plan, None).expect("saved");
    // One hour on its rental, the kit's report with the plan's job digest.
    let report = measured_report(&plan.name, 3600, 2048, 0).replace(
        "\"job\": \"train\",",
        &format!(
            "\"job\": \"train\", \"plan_job\": \"{}\",",
            plan.job_digest()
        ),
    );
    let ran = p.import_report("r.json", &report, None).expect("imports");
    assert_eq!(
        ran.cost,
        Decimal::new(250, 2),
        "the plan's 2.50 an hour, not the platform's 1.39"
    );
    // A plan with another job of that name is not what the run paid.
    let mut other = plan.clone();
    other.job.epochs = Some(20.0);
    let dir = tempfile::tempdir().expect("tmp");
    let mut q = planner(dir.path());
    q.save_plan(None, &other, None).expect("saved");
    let ran = q.import_report("r.json", &report, None).expect("imports");
    assert_ne!(
        ran.cost,
        Decimal::new(250, 2),
        "another job's price is not the run's"
    );
}

#[test]
fn removing_a_pack_says_the_prices_and_platforms_it_gives_back_and_a_reimport_the_presets_it_drops()
{
    let teacher = tempfile::tempdir().expect("tmp");
    let mut t = planner(teacher.path());
    let export = |t: &mut Planner, name: &'static str, presets: Vec<Plan>| {
        t.export_pack(&crate::planning::PackExport {
            name,
            instructor: "TA",
            platforms: &["autodl".to_owned()],
            presets,
            budget_cap: None,
            measured_runs: Vec::new(),
        })
        .expect("exports")
    };
    let mut second = model_plan();
    second.name = "second job".to_owned();
    t.set_override("autodl", "rtx4090", "2.05", "")
        .expect("price");
    let cv = export(&mut t, "CV", vec![model_plan(), second]);
    let cv_later = export(&mut t, "CV", vec![model_plan()]);
    t.set_override("autodl", "rtx4090", "1.11", "")
        .expect("price");
    let nlp = export(&mut t, "NLP", Vec::new());

    let student = tempfile::tempdir().expect("tmp");
    let mut s = planner(student.path());
    let told = |s: &mut Planner, from: usize, key: &str| -> Option<String> {
        s.notices()[from..]
            .iter()
            .find(|m| m.key == key)
            .map(|m| format!("{:?}", m.params))
    };
    s.import_pack("nlp.toml", &nlp).expect("imports");
    s.import_pack("cv.toml", &cv).expect("imports");
    let from = s.notices().len();
    s.import_pack("cv.toml", &cv_later).expect("imports");
    let dropped = told(&mut s, from, "notice.packDroppedPresets").unwrap_or_default();
    assert!(
        dropped.contains("second job") && !dropped.contains(&model_plan().name),
        "the preset the new file no longer has is named, the kept one is not: {dropped}"
    );

    let from = s.notices().len();
    s.remove_pack("CV").expect("removes");
    let back = told(&mut s, from, "notice.packRemovedPrices").unwrap_or_default();
    assert!(
        back.contains("autodl rtx4090 2.05 → 1.11"),
        "the course's price gone, the other pack's is used again, and it is said: {back}"
    );
    let chooses = told(&mut s, from, "notice.packChoosesNow").unwrap_or_default();
    assert!(
        chooses.contains("NLP") && chooses.contains("CV"),
        "the remaining pack chooses the platforms now: {chooses}"
    );

    let from = s.notices().len();
    s.remove_pack("NLP").expect("removes");
    let back = told(&mut s, from, "notice.packRemovedPrices").unwrap_or_default();
    assert!(
        back.contains("1.11 →"),
        "the last pack's price goes back to the listed one: {back}"
    );
    assert!(
        told(&mut s, from, "notice.noPackChooses").is_some(),
        "with no pack left every platform is chosen among again, and that is said"
    );
}

#[test]
fn a_run_is_planned_at_what_its_start_is_charged_minimum_included() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut p = planner(dir.path());
    // 揽睿星舟 bills by the hour with a one-hour minimum: a 30-minute run
    // is charged the hour (1.25 of run and 1.25 of minimum on the quote).
    let plan = Plan::from_toml(
        "p.toml",
        "name = \"half hour\"\nplatform = \"lanrui\"\ngpu = \"rtx3090\"\nsetup_hours = 0\n\
         [job]\nhours = 0.5\n[storage]\ngb = 0\n",
    )
    .expect("plan");
    p.save_plan(None, &plan, None).expect("saved");
    let quoted = p.quote(&plan).expect("quotes");
    let report = measured_report(&plan.name, 1200, 2048, 0).replace("autodl", "lanrui");
    let row_cost = |p: &mut Planner, id: i64| {
        p.ledger()
            .expect("ledger")
            .entries
            .iter()
            .find(|e| e.id == id)
            .and_then(|e| e.planned_cost)
    };
    let run = p.import_report("r.json", &report, None).expect("imports");
    let versus = run.versus.expect("set beside its plan");
    assert_eq!(
        versus.planned_cost, quoted.cash_total,
        "the run's plan is the hour the platform charges for it ({}), not the half in the runs line",
        quoted.cash_total
    );
    assert_eq!(
        run.cost, versus.planned_cost,
        "a 20-minute run is charged the same minimum hour: on plan"
    );
    assert_eq!(
        row_cost(&mut p, run.ledger_id),
        Some(quoted.cash_total),
        "the ledger's row plans it the same"
    );
}

#[test]
fn a_duration_is_worded_half_up_as_the_json_and_the_money_are() {
    // (seconds, English, why)
    let cases = [
        (
            "3690",
            "1.03 h",
            "1.025 h rounds up, as longest_run_hours does (f64 printed 1.02)",
        ),
        ("9630", "2.68 h", "2.675 h rounds up (f64 printed 2.67)"),
        ("615", "10.3 min", "10.25 min rounds up (f64 printed 10.2)"),
        (
            "1797",
            "30 min",
            "29.95 min is 30.0: said as a whole minute",
        ),
        ("3600", "1.00 h", "an hour keeps its two places"),
        ("1800..3690", "30 min–1.03 h", "a range, each end worded"),
        ("abc", "abc", "not a number: shown as it is"),
    ];
    for (seconds, en, why) in cases {
        assert_eq!(
            crate::labels::duration(crate::Lang::En, seconds),
            en,
            "{why}"
        );
    }
}

#[test]
fn runs_that_stop_before_the_plans_last_epoch_teach_no_time_and_are_not_called_fast() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut p = planner(dir.path());
    let plan = model_plan();
    p.save_plan(None, &plan, None).expect("saved");
    let before = estimate_on_its_card(&mut p, &plan.job);
    let run_s = before.run.map(|r| r.total_s).expect("a whole run");
    // Three one-epoch smoke tests of the ten-epoch plan, each a tenth of
    // the run, with the plan's memory.
    for n in 0..3 {
        let text = measured_report(
            &plan.name,
            (run_s * 0.1).round() as u64,
            (before.peak_gib * 1024.0).round() as u64,
            n,
        )
        .replace("\"Epoch 10\"", "\"Epoch 1\"")
        .replace(
            "\"first_progress_seconds\": 30",
            "\"first_progress_seconds\": 1",
        );
        let run = p.import_report("r.json", &text, None).expect("imports");
        let gaps = run.versus.expect("beside its plan").gaps;
        assert_eq!(
            gaps,
            vec![gpuplan_core::versus::RunGap::StoppedShort],
            "stopped short, not 'faster than estimated: keep less margin'"
        );
    }
    // A piece resumed by hand without its run id: epochs 6 to 10 of 10.
    let text = measured_report(
        &plan.name,
        (run_s * 0.5).round() as u64,
        (before.peak_gib * 1024.0).round() as u64,
        7,
    )
    .replace(
        "\"last_progress\"",
        "\"first_progress\": \"Epoch 6\", \"last_progress\"",
    );
    let run = p.import_report("r.json", &text, None).expect("imports");
    assert_eq!(
        run.versus.expect("beside its plan").gaps,
        vec![gpuplan_core::versus::RunGap::StoppedShort],
        "a run starting at epoch 6 is a piece, not a run twice as fast"
    );
    let after = estimate_on_its_card(&mut p, &plan.job);
    assert!(
        after.calibration.as_ref().is_none_or(|c| c.time.is_none()),
        "a tenth of the run is not the run: no time learnt ({:?})",
        after.calibration.as_ref().map(|c| c.time_factor())
    );
    let after_s = after.run.map(|r| r.total_s).expect("a whole run");
    assert!(
        (after_s - run_s).abs() < 1e-6,
        "the estimate's time is unchanged: {run_s} -> {after_s}"
    );
}

#[test]
fn a_report_that_measured_no_card_is_billed_on_its_plans_card_and_teaches_nothing() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut p = planner(dir.path());
    let plan = model_plan();
    p.save_plan(None, &plan, None).expect("saved");
    // nvidia-smi missing: no card name, PyTorch's figure only.
    let text = measured_report(&plan.name, 600, 2048, 0)
        .replace("\"NVIDIA GeForce RTX 3090\"", "\"\"")
        .replace("\"gpu_peaks_mib\": [2048]", "\"gpu_peaks_mib\": []");
    let run = p.import_report("r.json", &text, None).expect("imports");
    assert_eq!(run.gpu, plan.gpu, "the plan's card, not '-'");
    assert!(run.gpu_in_catalog, "so no 'not in the catalog' line");
    assert!(
        !run.versus
            .as_ref()
            .expect("beside its plan")
            .gaps
            .contains(&gpuplan_core::versus::RunGap::DifferentCard),
        "not said to be another card"
    );
    assert!(!run.teaches_calibration, "a card not seen teaches nothing");
}

#[test]
fn a_report_that_measured_no_card_bills_as_many_gpus_as_its_plan() {
    type Case = (&'static str, Option<f64>, u32);
    // (why, the plan's job GPUs, the GPUs billed)
    let cases: [Case; 3] = [
        ("a one-GPU plan: one GPU", None, 1),
        ("a two-GPU rental is not billed as one", Some(2.0), 2),
        ("eight GPUs: eight billed", Some(8.0), 8),
    ];
    let one_gpu_hour = |p: &mut Planner| {
        let plan = model_plan();
        p.platforms()
            .expect("platforms")
            .get(&plan.platform)
            .expect("autodl")
            .offer(&plan.gpu, &p.bundled.catalog)
            .expect("offer")
            .price_per_hour
            .typical
    };
    for (why, gpus, billed) in cases {
        let dir = tempfile::tempdir().expect("tmp");
        let mut p = planner(dir.path());
        let mut plan = model_plan();
        plan.student = false;
        plan.job.gpus = gpus;
        p.save_plan(None, &plan, None).expect("saved");
        // nvidia-smi missing: no card, no count; one hour.
        let text = measured_report(&plan.name, 3600, 2048, 0)
            .replace("\"NVIDIA GeForce RTX 3090\"", "\"\"")
            .replace("\"gpu_count\": 1", "\"gpu_count\": 0")
            .replace("\"gpu_peaks_mib\": [2048]", "\"gpu_peaks_mib\": []");
        let run = p.import_report("r.json", &text, None).expect("imports");
        assert!(
            run.card_assumed,
            "{why}: the import says the card was assumed"
        );
        let hour = one_gpu_hour(&mut p);
        assert_eq!(run.cost, hour * Decimal::from(billed), "{why}");
        let bill = p.ledger().expect("ledger").entries.remove(0);
        let said = bill.note.iter().any(|m| {
            m.key
                == if billed == 1 {
                    "ledger.note.cardAssumed"
                } else {
                    "ledger.note.cardsAssumed"
                }
        });
        assert!(
            said,
            "{why}: the note says what was assumed: {:?}",
            bill.note
        );
    }
}

#[test]
fn a_run_bills_planned_cost_is_the_one_its_import_said_as_calibration_learns() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut p = planner(dir.path());
    let plan = model_plan();
    p.save_plan(None, &plan, None).expect("saved");
    let run_s = estimate_on_its_card(&mut p, &plan.job)
        .run
        .map(|r| r.total_s)
        .expect("a whole run");
    // Four runs 40% slower than estimated: from the second on, calibration
    // has learnt and the plan's quote moves; each bill's planned cost stays
    // the one its import set the run beside.
    for n in 0..4 {
        let text = measured_report(&plan.name, (run_s * 1.4).round() as u64, 2048, n);
        let run = p.import_report("r.json", &text, None).expect("imports");
        let said = run.versus.as_ref().expect("beside its plan").planned_cost;
        let bill = p
            .ledger()
            .expect("ledger")
            .entries
            .into_iter()
            .find(|e| e.id == run.ledger_id)
            .expect("the bill");
        assert_eq!(
            bill.planned_cost,
            Some(said),
            "run {n}: the ledger's planned cost is the import's"
        );
    }
}

#[test]
fn a_second_report_of_one_part_is_its_bill_and_a_reused_run_id_is_billed_apart() {
    type Case = (&'static str, &'static str, &'static str, bool);
    // (why, the second report's start, its end, one bill)
    let cases: [Case; 3] = [
        (
            "the same part reported again, ended a second later: the bill it is",
            "2026-11-30T10:00:00+0800",
            "2026-11-30T10:10:01+0800",
            true,
        ),
        (
            "the same instant in another zone: the same window",
            "2026-11-30T02:00:00+0000",
            "2026-11-30T02:10:00+0000",
            true,
        ),
        (
            "a run a day later that reused the id: a bill of its own",
            "2026-12-01T10:00:00+0800",
            "2026-12-01T10:10:00+0800",
            false,
        ),
    ];
    for (why, start, end, one_bill) in cases {
        let dir = tempfile::tempdir().expect("tmp");
        let mut p = planner(dir.path());
        let plan = model_plan();
        p.save_plan(None, &plan, None).expect("saved");
        let first = measured_report(&plan.name, 600, 2048, 0).replace("run-0", "exp");
        let a = p.import_report("a.json", &first, None).expect("imports");
        let second = first
            .replace("\"2026-11-30T10:00:00+0800\"", &format!("\"{start}\""))
            .replace("\"2026-11-30T10:10:00+0800\"", &format!("\"{end}\""));
        assert_ne!(first, second, "{why}: the test changed the window");
        let b = p.import_report("b.json", &second, None).expect("imports");
        let bills = p.ledger().expect("ledger").entries.len();
        if one_bill {
            assert!(b.already_imported, "{why}");
            assert_eq!((b.ledger_id, bills), (a.ledger_id, 1), "{why}");
        } else {
            assert!(!b.already_imported, "{why}");
            assert_eq!(bills, 2, "{why}");
            let reused = b.run_id_reused.as_ref().expect("said at import");
            assert_eq!(
                (reused.bill, reused.part),
                (Some(a.ledger_id), 1),
                "{why}: names the bill"
            );
            assert!(
                !b.teaches_calibration,
                "{why}: its parts would join another run's"
            );
            let c = p.calibration().expect("calibration");
            let runs: u32 = c.rows.iter().map(|r| r.own_runs).sum();
            assert_eq!(runs, 1, "{why}: calibration counts the first run only");
        }
    }
}

#[test]
fn a_spot_plan_the_platform_cannot_stop_gets_a_wrapper_that_releases() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut p = planner(dir.path());
    let spot = Plan::from_toml(
        "youyun-spot.toml",
        include_str!("../../../examples/youyun-spot.toml"),
    )
    .expect("example");
    let mut on_demand = spot.clone();
    on_demand.payment = gpuplan_core::plan::Payment::OnDemand;
    type Case<'a> = (&'a Plan, bool, &'static str);
    let cases: [Case<'_>; 2] = [
        (
            &spot,
            true,
            "优云智算 spot instances are only released: the stop URL must release",
        ),
        (
            &on_demand,
            false,
            "an on-demand instance is stopped as usual",
        ),
    ];
    for (plan, release, why) in cases {
        let text = p
            .shutdown_script(&crate::planning::ShutdownRequest {
                platform: &plan.platform,
                job_name: None,
                command: "python train.py",
                max_hours: None,
                plan: Some(plan),
                destroy: false,
            })
            .expect("wrapper");
        assert_eq!(text.contains("release endpoint"), release, "{why}");
    }
}

#[test]
fn the_cli_writes_the_report_module_the_app_kit_hands_out() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut p = planner(dir.path());
    let plan = model_plan();
    let module = p.report_module(None, Some(&plan)).expect("module");
    assert_eq!(
        module.file_name, "gpuplan_report.py",
        "the name the docs import"
    );
    type Case = (String, &'static str);
    let cases: [Case; 3] = [
        (
            format!("PLAN = \"{}\"", plan.name),
            "the plan's name, to match on import",
        ),
        (
            format!("PLAN_JOB = \"{}\"", plan.job_digest()),
            "its job, to tell an edited plan",
        ),
        ("PLATFORM = \"autodl\"".to_owned(), "the plan's platform"),
    ];
    for (line, why) in cases {
        assert!(module.text.contains(&line), "{why}: {line}");
    }
    let other = p.report_module(Some("gpushare"), Some(&plan));
    assert!(
        matches!(&other, Err(AppError::Input { field, .. }) if field == "platform"),
        "another platform than the plan's is refused: {:?}",
        other.err()
    );
}

#[test]
fn one_run_ids_reports_read_the_same_one_at_a_time_or_in_one_import() {
    type Case = (&'static str, &'static str, &'static str, bool);
    // (why, what the second report changes, to what, a bill of its own that teaches nothing)
    let cases: [Case; 2] = [
        (
            "a day later, the id reused: billed apart, in one import as one at a time",
            "2026-11-30T10:",
            "2026-12-01T10:",
            true,
        ),
        (
            "another platform's run of that id (Slurm ids repeat across clusters): another run",
            "\"platform\": \"autodl\"",
            "\"platform\": \"gpushare\"",
            false,
        ),
    ];
    for (why, from, to, reused) in cases {
        let dir = tempfile::tempdir().expect("tmp");
        let mut p = planner(dir.path());
        let plan = model_plan();
        p.save_plan(None, &plan, None).expect("saved");
        let first = measured_report(&plan.name, 600, 2048, 0).replace("run-0", "exp");
        let second = first.replace(from, to);
        assert_ne!(first, second, "{why}: the test changed the report");
        let runs = p
            .import_reports(
                &[
                    ("a.json".into(), first.clone()),
                    ("b.json".into(), second.clone()),
                ],
                None,
                None,
            )
            .expect("imports");
        assert_eq!(runs.len(), 2, "{why}");
        assert!(!runs[1].already_imported, "{why}: a bill of its own");
        assert_eq!(runs[1].run_id_reused.is_some(), reused, "{why}");
        if reused {
            assert_eq!(
                runs[1].run_id_reused.as_ref().and_then(|r| r.bill),
                None,
                "{why}: the other report is in this import, no bill id yet"
            );
            assert!(!runs[1].teaches_calibration, "{why}: nothing taught");
        }
    }
}
