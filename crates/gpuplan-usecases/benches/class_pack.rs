//! Criterion benchmark: a course pack holding the most measured runs a pack
//! may (2000, all different) imported, and the first estimate after it,
//! which compares every one of them with the estimator (budget: well under a
//! second in a release build; the test suite checks what is learnt, this
//! measures how long it takes).

#![allow(
    clippy::expect_used,
    clippy::arithmetic_side_effects,
    missing_docs,
    reason = "a benchmark on fixed bundled data: a failure should stop it loudly"
)]

use criterion::{criterion_group, criterion_main, Criterion};
use gpuplan_core::correction::{MeasuredMemory, MeasuredRun, MAX_MEASURED_RUNS};
use gpuplan_core::JobSpec;
use gpuplan_usecases::{planning::PackExport, Bundled, Home, Planner};
use std::hint::black_box;

fn clock() -> chrono::NaiveDateTime {
    chrono::NaiveDateTime::default()
}

fn bench(c: &mut Criterion) {
    let bundled = Bundled::load().expect("bundled");
    let job = JobSpec {
        model: Some("resnet18-cifar".into()),
        batch: Some(128.0),
        dataset_samples: Some(50_000.0),
        epochs: Some(10.0),
        ..JobSpec::default()
    };
    let runs: Vec<MeasuredRun> = (0..MAX_MEASURED_RUNS)
        .map(|i| MeasuredRun {
            job: job.clone(),
            gpu: "rtx3090".into(),
            platform: "autodl".into(),
            wall_seconds: 900 + i as u64,
            peak_memory_mib: Some(3000),
            memory: MeasuredMemory::Process,
            ..MeasuredRun::default()
        })
        .collect();
    let mut teacher = Planner::new(bundled.clone(), Home::Memory, clock);
    let pack = teacher
        .export_pack(&PackExport {
            name: "big course",
            instructor: "TA",
            platforms: &["autodl".to_owned()],
            presets: Vec::new(),
            budget_cap: None,
            measured_runs: runs,
        })
        .expect("pack");
    c.bench_function("class_pack_2000_runs_import_and_first_estimate", |b| {
        b.iter(|| {
            let mut p = Planner::new(bundled.clone(), Home::Memory, clock);
            p.import_pack("big.toml", black_box(&pack))
                .expect("imports");
            let e = p
                .estimate(&job, Some("rtx3090"), None, Some("autodl"))
                .expect("estimate");
            black_box(e.calibration)
        });
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = bench
}
criterion_main!(benches);
