//! Whole hostile inputs through every command (issue 12): plans, situations
//! and course packs drawn with all their fields at once, run through the
//! core and the use-case layer both shells call (quote, recommend, the
//! before-you-rent kit and its scripts, pack export and import). A case
//! passes when it is either answered within sane limits or refused with an
//! error naming a field; a panic or an absurd figure fails it.
//!
//! CI draws `GPUPLAN_HOSTILE_CASES` cases per property (default 128); the long
//! runs use the same generators through `fuzz.rs`.

use crate::common;

use std::cell::RefCell;
use std::path::Path;

use common::hostile::{self, named, sane_quote};
use gpuplan_core::plan::Plan;
use gpuplan_usecases::planning::{PackExport, ShutdownRequest, SlurmRequest};
use gpuplan_usecases::{AppError, Home, Planner};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use rust_decimal::Decimal;

fn cases() -> u32 {
    std::env::var("GPUPLAN_HOSTILE_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(128)
}

fn planner(dir: &Path) -> Planner {
    Planner::new(common::bundled(), Home::Folder(dir.to_path_buf()), || {
        chrono::NaiveDate::from_ymd_opt(2026, 11, 30)
            .and_then(|d| d.and_hms_opt(10, 0, 0))
            .unwrap_or_default()
    })
}

/// Runs `check` over drawn plans; `check` says whether the plan was
/// answered (true) or refused (false), and both counts are printed so a run
/// shows how deep the cases went.
fn run(
    name: &str,
    strategy: impl Strategy<Value = Plan>,
    check: impl Fn(&Plan) -> Result<bool, String>,
) {
    let mut runner = TestRunner::new(Config {
        cases: cases(),
        failure_persistence: None,
        ..Config::default()
    });
    let answered = std::cell::Cell::new(0u32);
    let refused = std::cell::Cell::new(0u32);
    runner
        .run(&strategy, |plan| {
            match check(&plan) {
                Ok(true) => answered.set(answered.get() + 1),
                Ok(false) => refused.set(refused.get() + 1),
                Err(e) => {
                    return Err(TestCaseError::fail(format!(
                        "{e}\nplan:\n{}",
                        toml::to_string(&plan).unwrap_or_default()
                    )))
                }
            }
            Ok(())
        })
        .expect("no hostile plan breaks a promise");
    println!(
        "{name}: {} answered, {} refused by field",
        answered.get(),
        refused.get()
    );
}

#[test]
fn whole_plans_are_quoted_within_limits_or_refused_by_field() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = RefCell::new(planner(dir.path()));
    run("whole plans", hostile::plan(), |plan| {
        match p.borrow_mut().quote_view(plan) {
            Ok(v) => sane_quote(&v.quote).map(|()| true),
            Err(e) => named(&e).map(|()| false),
        }
    });
}

#[test]
fn plans_with_every_field_at_its_edge_are_quoted_within_limits_or_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = RefCell::new(planner(dir.path()));
    run(
        "plans at their edges",
        hostile::plan_in_range(),
        |plan| match p.borrow_mut().quote_view(plan) {
            Ok(v) => sane_quote(&v.quote).map(|()| true),
            Err(e) => named(&e).map(|()| false),
        },
    );
}

#[test]
fn whole_plans_through_the_kit_and_every_script() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = RefCell::new(planner(dir.path()));
    run("plans through the kit", hostile::plan(), |plan| {
        let mut p = p.borrow_mut();
        let outcomes: Vec<Result<(), AppError>> = vec![
            p.kit(plan, "python train.py").map(|_| ()),
            p.checklist(&plan.platform, Some(plan)).map(|_| ()),
            p.shutdown_script(&ShutdownRequest {
                platform: &plan.platform,
                job_name: None,
                command: "python train.py",
                max_hours: None,
                plan: Some(plan),
                destroy: false,
            })
            .map(|_| ()),
            p.slurm_script(&SlurmRequest {
                job_name: "job",
                partition: None,
                gpus: None,
                cpus: None,
                mem_gb: None,
                hours: None,
                plan: Some(plan),
                cap_hours: None,
                output: None,
                activate: Vec::new(),
                command: "python train.py",
                requeue: false,
            })
            .map(|_| ()),
            p.resume_script(None, Some(plan)).map(|_| ()),
            p.export_pack(&PackExport {
                name: "class",
                instructor: "t",
                platforms: std::slice::from_ref(&plan.platform),
                presets: vec![plan.clone()],
                budget_cap: None,
                measured_runs: Vec::new(),
            })
            .map(|_| ()),
        ];
        let mut all_answered = true;
        for o in outcomes {
            if let Err(e) = o {
                named(&e)?;
                all_answered = false;
            }
        }
        Ok(all_answered)
    });
}

#[test]
fn whole_situations_are_recommended_within_limits_or_refused_by_field() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = RefCell::new(planner(dir.path()));
    let mut runner = TestRunner::new(Config {
        cases: cases(),
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(&hostile::situation(), |s| {
            match p.borrow_mut().recommend_view(&s) {
                Ok(v) => {
                    for o in &v.recommendation.options {
                        sane_quote(&o.quote).map_err(|e| {
                            TestCaseError::fail(format!("{} {}: {e}\n{s:?}", o.platform, o.gpu))
                        })?;
                    }
                    Ok(())
                }
                Err(e) => named(&e).map_err(|m| TestCaseError::fail(format!("{m}\n{s:?}"))),
            }
        })
        .expect("no hostile situation breaks a promise");
}

#[test]
fn hostile_packs_are_refused_or_leave_every_command_working() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = RefCell::new(planner(dir.path()));
    let autodl = gpuplan_data::PLATFORMS
        .iter()
        .find(|(f, _)| f.ends_with("autodl.toml"))
        .map(|(_, t)| *t)
        .expect("autodl profile");
    let mut runner = TestRunner::new(Config {
        cases: cases(),
        failure_persistence: None,
        ..Config::default()
    });
    let both = (hostile::pack_text(autodl), hostile::plan());
    runner
        .run(&both, |(text, mut plan)| {
            let mut p = p.borrow_mut();
            let fail = |m: String| TestCaseError::fail(format!("{m}\npack:\n{text}"));
            match p.import_pack("pack.toml", &text) {
                Err(e) => named(&e).map_err(fail)?,
                Ok(pack) => {
                    // Whatever imported must leave every command answering.
                    plan.platform = "class-platform".into();
                    match p.quote_view(&plan) {
                        Ok(v) => sane_quote(&v.quote).map_err(fail)?,
                        Err(e) => named(&e).map_err(fail)?,
                    }
                    let s = gpuplan_core::recommend::Situation {
                        stage: gpuplan_core::recommend::Stage::CourseProject,
                        budget: Some(Decimal::from(150)),
                        deadline_hours: None,
                        linux: true,
                        slurm: false,
                        mainland_china: true,
                        needs_persistence: false,
                        campus_access: false,
                        interruptible: true,
                        student: true,
                        job: gpuplan_core::JobSpec {
                            hours: Some(Decimal::from(87_000)),
                            ..Default::default()
                        },
                        runs: 87_600,
                        storage_gb: Decimal::from(1_000_000),
                    };
                    match p.recommend_view(&s) {
                        Ok(v) => {
                            for o in &v.recommendation.options {
                                sane_quote(&o.quote).map_err(fail)?;
                            }
                        }
                        Err(e) => named(&e).map_err(fail)?,
                    }
                    p.info()
                        .map_err(|e| fail(format!("info after a pack: {e}")))?;
                    p.remove_pack(&pack.pack.name)
                        .map_err(|e| fail(format!("remove: {e}")))?;
                }
            }
            Ok(())
        })
        .expect("no hostile pack breaks a promise");
}
