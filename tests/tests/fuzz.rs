//! Long-running fuzzing of every parser and input path (issue 6), with
//! proptest's generators driven for a time budget instead of a case count.
//! Ignored in CI (the short property runs in `parsers.rs` cover CI); run with
//!
//! ```text
//! GPUPLAN_FUZZ_SECONDS=600 cargo test --release -p gpuplan-tests --test fuzz -- --ignored --test-threads 1
//! ```
//!
//! A panic is a crash: the failing input is printed and the test fails, and
//! the input then belongs in `parsers.rs` as a regression case.

use crate::common;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

use gpuplan_core::job::{Mode, Optimizer, Precision};
use gpuplan_core::pack::CoursePack;
use gpuplan_core::plan::Plan;
use gpuplan_core::platform::PlatformProfile;
use gpuplan_core::zoo::from_hf_config;
use gpuplan_core::JobSpec;
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::TestRunner;

fn budget() -> Duration {
    Duration::from_secs(
        std::env::var("GPUPLAN_FUZZ_SECONDS")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(10),
    )
}

/// One input slower than this fails the target, naming the input: a
/// student waits for one answer, not minutes, so an input that takes this
/// long (debug build) is a hang to fix.
const SLOW_CASE: Duration = Duration::from_secs(20);

/// The input being checked and when its check began, for the watchdog.
type Current = std::sync::Arc<std::sync::Mutex<Option<(Instant, String)>>>;

/// Watches the check in progress: one that runs past [`SLOW_CASE`] (a hang
/// that would otherwise only time the test out) is reported with its input
/// and the process ends.
fn watchdog(name: &str, current: Current) -> std::sync::mpsc::Sender<()> {
    let (stop, stopped) = std::sync::mpsc::channel::<()>();
    let name = name.to_owned();
    std::thread::spawn(move || loop {
        if stopped.recv_timeout(Duration::from_millis(500)).is_ok() {
            return;
        }
        let slow = current.lock().ok().and_then(|c| {
            c.as_ref()
                .filter(|(at, _)| at.elapsed() > SLOW_CASE)
                .map(|(_, v)| v.clone())
        });
        if let Some(value) = slow {
            eprintln!("{name}: one input took over {SLOW_CASE:?}: {value}");
            std::process::exit(101);
        }
    });
    stop
}

/// Runs `check` on values of `strategy` until the time budget is spent.
fn fuzz<T: std::fmt::Debug>(name: &str, strategy: impl Strategy<Value = T>, check: impl Fn(&T)) {
    let mut runner = TestRunner::default();
    let deadline = Instant::now() + budget();
    let mut cases: u64 = 0;
    let current: Current = Default::default();
    let stop = watchdog(name, current.clone());
    while Instant::now() < deadline {
        let value = strategy
            .new_tree(&mut runner)
            .expect("strategy generates")
            .current();
        if let Ok(mut c) = current.lock() {
            *c = Some((Instant::now(), format!("{value:?}")));
        }
        if catch_unwind(AssertUnwindSafe(|| check(&value))).is_err() {
            panic!("{name}: crash on input {value:?}");
        }
        cases += 1;
    }
    let _ = stop.send(());
    println!("{name}: {cases} cases in {:?} without a crash", budget());
}

/// Edits of a valid file: a span replaced by random text (printable, newlines,
/// TOML punctuation and CJK).
fn edits(base: &'static str) -> impl Strategy<Value = String> {
    (
        any::<usize>(),
        0usize..64,
        "[ -~\\n\\[\\]{}=\"'.,#中文]{0,40}",
    )
        .prop_map(move |(at, len, insert)| {
            let chars: Vec<char> = base.chars().collect();
            let a = at % (chars.len() + 1);
            let b = (a + len).min(chars.len());
            let mut s: String = chars[..a].iter().collect();
            s.push_str(&insert);
            s.extend(chars[b..].iter());
            s
        })
}

fn example(name: &str) -> &'static str {
    let text = std::fs::read_to_string(crate::common::root().join("examples").join(name))
        .expect("example");
    Box::leak(text.into_boxed_str())
}

#[test]
#[ignore = "long-running fuzz target"]
fn fuzz_platform_profiles() {
    let catalog = common::catalog();
    fuzz(
        "platform profile",
        edits(gpuplan_data::PLATFORMS[0].1),
        |t| {
            let _ = PlatformProfile::from_toml("p.toml", t, catalog);
        },
    );
}

#[test]
#[ignore = "long-running fuzz target"]
fn fuzz_plans_and_quotes() {
    let catalog = common::catalog();
    let zoo = common::zoo();
    let platforms = common::platforms();
    let base = example("seed000-weekly-budget.toml");
    fuzz("plan + quote", edits(base), |t| {
        if let Ok(plan) = Plan::from_toml("plan.toml", t) {
            if let Ok(p) = platforms.get(&plan.platform) {
                let _ = gpuplan_core::quote::quote(&plan, p, catalog, zoo);
            }
        }
    });
}

#[test]
#[ignore = "long-running fuzz target"]
fn fuzz_course_packs() {
    let catalog = common::catalog();
    let zoo = common::zoo();
    // A valid pack: one bundled profile under [[platform]], plus a preset.
    let profile: toml::Value = toml::from_str(gpuplan_data::PLATFORMS[1].1).expect("profile");
    let pack = toml::toml! { [pack] name = "CV 101" budget_cap = 150 };
    let mut v = toml::Value::Table(pack);
    if let toml::Value::Table(t) = &mut v {
        t.insert("platform".into(), toml::Value::Array(vec![profile]));
    }
    let base: &'static str = Box::leak(toml::to_string(&v).expect("pack text").into_boxed_str());
    assert!(
        CoursePack::from_toml("pack.toml", base, catalog, zoo).is_ok(),
        "the base pack is valid"
    );
    fuzz("course pack", edits(base), |t| {
        let _ = CoursePack::from_toml("pack.toml", t, catalog, zoo);
    });
}

#[test]
#[ignore = "long-running fuzz target"]
fn fuzz_hf_config_import() {
    let base = r#"{"model_type":"llama","hidden_size":4096,"intermediate_size":11008,"num_hidden_layers":32,"num_attention_heads":32,"num_key_value_heads":8,"vocab_size":32000,"max_position_embeddings":4096,"tie_word_embeddings":false}"#;
    fuzz("HF config.json", edits(base), |t| {
        if let Ok(m) = from_hf_config(t) {
            let _ = m.params();
        }
    });
}

fn odd_number() -> impl Strategy<Value = Option<f64>> {
    prop_oneof![
        Just(None),
        Just(Some(f64::NAN)),
        Just(Some(f64::INFINITY)),
        Just(Some(-1.0)),
        Just(Some(0.0)),
        any::<f64>().prop_map(Some),
        (1.0f64..100_000.0).prop_map(Some)
    ]
}

#[test]
#[ignore = "long-running fuzz target"]
fn fuzz_estimator_inputs() {
    let zoo = common::zoo();
    let catalog = common::catalog();
    let ids: Vec<String> = zoo.entries().iter().map(|e| e.id.clone()).collect();
    let strategy = (
        0..ids.len(),
        (
            odd_number(),
            odd_number(),
            odd_number(),
            odd_number(),
            odd_number(),
        ),
        (
            0..4usize,
            0..4usize,
            0..4usize,
            any::<bool>(),
            odd_number(),
            odd_number(),
        ),
    );
    fuzz(
        "estimator inputs",
        strategy,
        |(m, (batch, res, seq, classes, rank), (p, o, mode, ck, samples, epochs))| {
            let e = &zoo.entries()[*m];
            let req = JobSpec {
                model: None,
                hours: None,
                batch: *batch,
                resolution: *res,
                seq_len: *seq,
                classes: *classes,
                precision: Some(
                    [
                        Precision::Fp32,
                        Precision::Fp16Amp,
                        Precision::Bf16Amp,
                        Precision::Bf16,
                    ][*p],
                ),
                optimizer: Some(
                    [
                        Optimizer::Sgd,
                        Optimizer::Adam,
                        Optimizer::Adamw,
                        Optimizer::Adamw8bit,
                    ][*o],
                ),
                mode: Some([Mode::Train, Mode::Lora, Mode::Qlora, Mode::Infer][*mode]),
                lora_rank: *rank,
                lora_targets: None,
                grad_checkpointing: Some(*ck),
                dataset_samples: *samples,
                epochs: *epochs,
                ..JobSpec::default()
            };
            if let Ok(job) = req.resolve(e) {
                let est = gpuplan_core::estimate(
                    e,
                    &job,
                    catalog,
                    None,
                    &gpuplan_core::pipeline::Host::TYPICAL,
                );
                assert!(
                    est.vram.peak_bytes.is_finite(),
                    "finite peak for {}",
                    ids[*m]
                );
            }
        },
    );
}

/// Runs whole drawn plans through the cost engine and the use-case layer,
/// checking the answer's limits (issue 12): the long-run form of
/// `hostile.rs`.
fn whole_plans(name: &str, strategy: impl Strategy<Value = gpuplan_core::plan::Plan>) {
    use common::hostile::{named, sane_quote};
    let dir = tempfile::tempdir().expect("tmp");
    let planner = std::cell::RefCell::new(gpuplan_usecases::Planner::new(
        common::bundled(),
        gpuplan_usecases::Home::Folder(dir.path().to_path_buf()),
        || {
            chrono::NaiveDate::from_ymd_opt(2026, 11, 30)
                .and_then(|d| d.and_hms_opt(9, 0, 0))
                .unwrap_or_default()
        },
    ));
    fuzz(name, strategy, |plan| {
        let mut p = planner.borrow_mut();
        match p.quote_view(plan) {
            Ok(v) => sane_quote(&v.quote).expect("a sane bill"),
            Err(e) => named(&e).expect("refused naming a field"),
        }
        if let Err(e) = p.kit(plan, "python train.py") {
            named(&e).expect("the kit refuses naming a field");
        }
    });
}

#[test]
#[ignore = "long-running fuzz target"]
fn fuzz_whole_hostile_plans() {
    whole_plans("whole hostile plans", common::hostile::plan());
}

#[test]
#[ignore = "long-running fuzz target"]
fn fuzz_whole_plans_at_their_edges() {
    whole_plans(
        "whole plans at their edges",
        common::hostile::plan_in_range(),
    );
}

#[test]
#[ignore = "long-running fuzz target"]
fn fuzz_whole_situations() {
    use common::hostile::{named, sane_quote};
    let dir = tempfile::tempdir().expect("tmp");
    let planner = std::cell::RefCell::new(gpuplan_usecases::Planner::new(
        common::bundled(),
        gpuplan_usecases::Home::Folder(dir.path().to_path_buf()),
        || {
            chrono::NaiveDate::from_ymd_opt(2026, 11, 30)
                .and_then(|d| d.and_hms_opt(9, 0, 0))
                .unwrap_or_default()
        },
    ));
    fuzz(
        "whole situations",
        common::hostile::situation(),
        |s| match planner.borrow_mut().recommend(s) {
            Ok(r) => {
                for o in &r.options {
                    sane_quote(&o.quote).expect("a sane bill per option");
                }
            }
            Err(e) => named(&e).expect("refused naming a field"),
        },
    );
}

#[test]
#[ignore = "long-running fuzz target"]
fn fuzz_whole_packs() {
    use common::hostile::{named, sane_quote};
    let dir = tempfile::tempdir().expect("tmp");
    let planner = std::cell::RefCell::new(gpuplan_usecases::Planner::new(
        common::bundled(),
        gpuplan_usecases::Home::Folder(dir.path().to_path_buf()),
        || {
            chrono::NaiveDate::from_ymd_opt(2026, 11, 30)
                .and_then(|d| d.and_hms_opt(9, 0, 0))
                .unwrap_or_default()
        },
    ));
    let autodl = gpuplan_data::PLATFORMS
        .iter()
        .find(|(f, _)| f.ends_with("autodl.toml"))
        .map(|(_, t)| *t)
        .expect("autodl");
    let strategy = (
        common::hostile::pack_text(autodl),
        common::hostile::plan_in_range(),
    );
    fuzz("whole packs", strategy, |(text, plan)| {
        let mut p = planner.borrow_mut();
        match p.import_pack("pack.toml", text) {
            Err(e) => named(&e).expect("refused naming a field"),
            Ok(pack) => {
                let mut plan = plan.clone();
                plan.platform = "class-platform".into();
                match p.quote_view(&plan) {
                    Ok(v) => sane_quote(&v.quote).expect("a sane bill on the pack's platform"),
                    Err(e) => named(&e).expect("refused naming a field"),
                }
                p.info().expect("start-up data after a pack");
                p.remove_pack(&pack.pack.name).expect("removed");
            }
        }
    });
}

/// A measured-runs file as a student hands it in: one valid run.
const MEASURED_RUNS: &str = r#"{"schema": "gpuplan-measured-runs/1", "runs": [
  {"job": {"model": "resnet18-cifar", "batch": 128, "dataset_samples": 50000, "epochs": 10},
   "gpu": "rtx3090", "platform": "autodl", "wall_seconds": 1800, "peak_memory_mib": 4000, "completed": true}]}"#;

/// A run report with every field at a random, often hostile, value.
fn hostile_report() -> impl Strategy<Value = String> {
    let num = prop_oneof![
        Just("0".to_owned()),
        Just("-1".to_owned()),
        Just("1e308".to_owned()),
        Just("18446744073709551616".to_owned()),
        Just("null".to_owned()),
        Just("\"7\"".to_owned()),
        any::<u64>().prop_map(|n| n.to_string()),
        (0u64..100_000).prop_map(|n| n.to_string()),
    ];
    let text = prop_oneof![
        Just("\"\"".to_owned()),
        Just("\"NVIDIA GeForce RTX 3090\"".to_owned()),
        Just("\"\\u0000\\u001b[31m\"".to_owned()),
        Just("\"2026-11-30T10:00:00+0800\"".to_owned()),
        Just("\"2026-02-30T25:61:00+9999\"".to_owned()),
        "[ -~中文]{0,300}".prop_map(|s| serde_json::to_string(&s).unwrap_or_default()),
    ];
    (
        proptest::collection::vec(num, 8),
        proptest::collection::vec(text, 8),
    )
        .prop_map(|(n, t)| {
            format!(
                r#"{{"schema": "gpuplan-run-report/1", "plan": {}, "job": {}, "platform": {}, "gpu_name": {},
  "driver": {}, "gpu_count": {}, "peak_memory_mib": {}, "started_at": {}, "ended_at": {},
  "wall_seconds": {}, "first_progress_seconds": {}, "progress_lines": {}, "last_progress": {},
  "cpu_percent": {}, "exit_status": {}}}"#,
                t[0], t[1], t[2], t[3], t[4], n[0], n[1], t[5], t[6], n[2], n[3], n[4], t[7], n[5], n[6]
            )
        })
}

/// A planner on an in-memory database with one saved plan the reports name.
fn planner_with_plan() -> gpuplan_usecases::Planner {
    let mut p = gpuplan_usecases::Planner::new(
        common::bundled(),
        gpuplan_usecases::Home::Memory,
        chrono::NaiveDateTime::default,
    );
    let plan = Plan::from_toml("plan.toml", example("seed000-weekly-budget.toml")).expect("plan");
    p.save_plan(None, &plan, None).expect("saved");
    p
}

#[test]
#[ignore = "long-running fuzz target"]
fn fuzz_run_reports_through_import() {
    let base = example("run-report-example.json");
    let planner = std::cell::RefCell::new(planner_with_plan());
    fuzz("run report edits + import", edits(base), |t| {
        let _ = gpuplan_core::report::RunReport::from_json("r.json", t);
        let _ = planner.borrow_mut().import_report("r.json", t, None);
    });
    fuzz(
        "hostile run report fields + import",
        hostile_report(),
        |t| {
            let _ = planner.borrow_mut().import_report("r.json", t, None);
        },
    );
}

#[test]
#[ignore = "long-running fuzz target"]
fn fuzz_measured_runs() {
    let catalog = common::catalog();
    let zoo = common::zoo();
    assert!(
        gpuplan_core::correction::MeasuredRunFile::from_json("m.json", MEASURED_RUNS, catalog, zoo)
            .is_ok(),
        "the base file is valid"
    );
    fuzz("measured runs", edits(MEASURED_RUNS), |t| {
        if let Ok(f) =
            gpuplan_core::correction::MeasuredRunFile::from_json("m.json", t, catalog, zoo)
        {
            // What passes the check is learnt from without a panic.
            let obs: Vec<_> = f
                .runs
                .iter()
                .filter_map(|r| {
                    let entry = zoo.get(r.job.model.as_deref()?).ok()?;
                    let job = r.job.resolve(entry).ok()?;
                    let card = catalog.get(&r.gpu).ok()?;
                    let expected = gpuplan_core::estimate::expected_on(
                        &entry.model,
                        &job,
                        card,
                        &gpuplan_core::pipeline::Host::TYPICAL,
                    );
                    Some(gpuplan_core::correction::observe(
                        r,
                        entry.model.family(),
                        job.mode,
                        gpuplan_core::correction::Source::Class,
                        expected,
                    ))
                })
                .collect();
            let c = gpuplan_core::correction::Corrections::new(obs);
            let _ = c.for_job(
                gpuplan_core::zoo::ModelFamily::Vision,
                "rtx3090",
                Mode::Train,
            );
        }
    });
}
