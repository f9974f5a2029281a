//! The limits table the app's forms check is the one the validators apply:
//! each limit's edges are fed to the validator that owns the field, the
//! edges must pass and the values just outside must fail naming the field.

use gpuplan_core::job::{JobSpec, Mode};
use gpuplan_core::limits::{self, FieldLimit};
use gpuplan_core::plan::{Plan, SpotSpec, Stops, StorageSpec};
use rust_decimal::Decimal;

use crate::common;

/// Values just outside the limit: below the minimum (or the minimum itself
/// when it is excluded), above the maximum, and a fraction for whole numbers.
fn outside(l: &FieldLimit) -> Vec<f64> {
    let mut v = vec![
        if l.min_exclusive { l.min } else { l.min - 1.0 },
        l.max + 1.0,
        f64::NAN,
    ];
    if l.integer {
        v.push(l.min + 0.5);
    }
    v
}

fn inside(l: &FieldLimit) -> Vec<f64> {
    vec![if l.min_exclusive { l.min + 0.5 } else { l.min }, l.max]
}

#[test]
fn job_fields_are_checked_with_the_forms_limits() {
    let zoo = common::zoo();
    let vision = zoo.get("resnet18-cifar").expect("zoo");
    let text = zoo.get("gpt2").expect("zoo");
    // (limit, model, spec with the value set, why)
    type Set = fn(f64) -> JobSpec;
    let cases: &[(FieldLimit, &gpuplan_core::zoo::ZooEntry, Set)] = &[
        (limits::BATCH, vision, |v| JobSpec {
            batch: Some(v),
            ..JobSpec::default()
        }),
        (limits::RESOLUTION, vision, |v| JobSpec {
            resolution: Some(v),
            ..JobSpec::default()
        }),
        (limits::IMAGE_HEIGHT, vision, |v| JobSpec {
            image_height: Some(v),
            ..JobSpec::default()
        }),
        (limits::CLASSES, vision, |v| JobSpec {
            classes: Some(v),
            ..JobSpec::default()
        }),
        (limits::LORA_RANK, text, |v| JobSpec {
            mode: Some(Mode::Lora),
            lora_rank: Some(v),
            ..JobSpec::default()
        }),
        (limits::DATASET_SAMPLES, vision, |v| JobSpec {
            dataset_samples: Some(v),
            ..JobSpec::default()
        }),
        (limits::VAL_SAMPLES, vision, |v| JobSpec {
            val_samples: Some(v),
            ..JobSpec::default()
        }),
        (limits::NUM_WORKERS, vision, |v| JobSpec {
            num_workers: Some(v),
            ..JobSpec::default()
        }),
        (limits::GPUS, vision, |v| JobSpec {
            gpus: Some(v),
            ..JobSpec::default()
        }),
        // The board's PCIe link applies to several GPUs only.
        (limits::PCIE_GBPS, vision, |v| JobSpec {
            gpus: Some(2.0),
            pcie_gbps: Some(v),
            ..JobSpec::default()
        }),
        (limits::EPOCHS, vision, |v| JobSpec {
            epochs: Some(v),
            ..JobSpec::default()
        }),
        (limits::EVAL_EVERY, vision, |v| JobSpec {
            eval_every_epochs: Some(v),
            ..JobSpec::default()
        }),
        (limits::SAVE_EVERY, vision, |v| JobSpec {
            save_every_epochs: Some(v),
            ..JobSpec::default()
        }),
    ];
    for (limit, entry, set) in cases {
        for v in inside(limit) {
            assert!(
                set(v).resolve(entry).is_ok(),
                "{}: {v} is inside {} and the validator takes it",
                limit.field,
                limit.describe()
            );
            assert!(limit.allows(v), "{}: the table allows {v}", limit.field);
        }
        for v in outside(limit) {
            let e = set(v).resolve(entry).expect_err("outside the limit");
            assert_eq!(
                e.field,
                limit.field,
                "{v} outside {} is refused naming the field the form shows it beside",
                limit.describe()
            );
            assert!(!limit.allows(v), "{}: the table refuses {v}", limit.field);
        }
    }
    // A sequence length is also bounded by the model; the form's limit is
    // the widest, and the model's own limit is named in the message.
    let e = JobSpec {
        seq_len: Some(1025.0),
        ..JobSpec::default()
    }
    .resolve(text)
    .expect_err("GPT-2 has 1024 positions");
    assert!(
        e.field == "seq_len" && e.message.contains("1024"),
        "the model's own limit is told: {e:?}"
    );
}

#[test]
fn situation_and_plan_fields_are_checked_with_the_forms_limits() {
    let dec = |v: f64| Decimal::try_from(v).unwrap_or(Decimal::MAX);
    // Situation fields.
    type SetSituation = fn(&mut gpuplan_core::recommend::Situation, f64);
    let situation: &[(FieldLimit, SetSituation)] = &[
        (limits::RUNS, |s, v| s.runs = v as u32),
        (limits::BUDGET, |s, v| {
            s.budget = Some(Decimal::try_from(v).unwrap_or(Decimal::MAX))
        }),
        (limits::DEADLINE_HOURS, |s, v| {
            s.deadline_hours = Some(Decimal::try_from(v).unwrap_or(Decimal::MAX))
        }),
        (limits::STORAGE_GB, |s, v| {
            s.storage_gb = Decimal::try_from(v).unwrap_or(Decimal::MAX)
        }),
    ];
    for (limit, set) in situation {
        for v in inside(limit) {
            let mut s = gpuplan_usecases::defaults::situation();
            set(&mut s, v);
            assert!(
                s.check().is_ok(),
                "{}: {v} is allowed in a situation",
                limit.field
            );
        }
        // Decimal has no NaN and runs are whole by type; check the numeric edges.
        for v in [
            if limit.min_exclusive {
                limit.min
            } else {
                limit.min - 1.0
            },
            limit.max + 1.0,
        ] {
            if limit.field == "runs" && v < 0.0 {
                continue;
            }
            let mut s = gpuplan_usecases::defaults::situation();
            set(&mut s, v);
            let e = s.check().expect_err("outside the limit");
            assert_eq!(
                e.field, limit.field,
                "situation {}: {v} is refused by name",
                limit.field
            );
        }
    }
    // Plan fields, as the plan form sets them.
    type SetPlan = fn(&mut Plan, Decimal);
    let plan: &[(FieldLimit, SetPlan)] = &[
        (limits::PLAN_STORAGE_GB, |p, v| {
            p.storage = Some(StorageSpec {
                gb: v,
                days: Some(Decimal::ONE),
                on: Default::default(),
            })
        }),
        (limits::STORAGE_DAYS, |p, v| {
            p.storage = Some(StorageSpec {
                gb: Decimal::ONE,
                days: Some(v),
                on: Default::default(),
            })
        }),
        (limits::STOP_HOURS, |p, v| {
            p.stops = Some(Stops {
                count: 1,
                hours_each: v,
            })
        }),
        (limits::FORGOTTEN_HOURS, |p, v| {
            p.forgotten_shutdown_hours = v
        }),
        (limits::CHECKPOINT_HOURS, |p, v| {
            p.spot = Some(SpotSpec {
                checkpoint_every_hours: Some(v),
                ..SpotSpec::default()
            })
        }),
        (limits::CHECKPOINT_EPOCHS, |p, v| {
            p.spot = Some(SpotSpec {
                checkpoint_every_epochs: Some(v),
                ..SpotSpec::default()
            })
        }),
        (limits::HOURS, |p, v| p.job.hours = Some(v)),
        (limits::DATA_GB, |p, v| {
            if let Some(d) = p.data.as_mut() {
                d.size_gb = v;
            }
        }),
    ];
    for (limit, set) in plan {
        for v in inside(limit) {
            let mut p = gpuplan_usecases::defaults::plan(JobSpec::default());
            set(&mut p, dec(v));
            assert!(
                p.check().is_ok(),
                "{}: {v} is allowed in a plan: {:?}",
                limit.field,
                p.check()
            );
        }
        for v in [
            if limit.min_exclusive {
                limit.min
            } else {
                limit.min - 1.0
            },
            limit.max + 1.0,
        ] {
            let mut p = gpuplan_usecases::defaults::plan(JobSpec::default());
            set(&mut p, dec(v));
            let e = p.check().expect_err("outside the limit");
            assert_eq!(
                e.field, limit.field,
                "plan {}: {v} is refused by name",
                limit.field
            );
        }
    }
}

#[test]
fn every_limit_is_listed_once_for_the_app() {
    let mut names: Vec<&str> = limits::ALL.iter().map(|l| l.field).collect();
    names.sort_unstable();
    let n = names.len();
    names.dedup();
    assert_eq!(names.len(), n, "no field has two limits");
    for l in limits::ALL {
        assert!(l.min < l.max, "{}: a range with room in it", l.field);
    }
}
