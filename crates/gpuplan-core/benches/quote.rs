//! Criterion benchmark: a 100-run plan quoted on every platform x GPU offer
//! (the budget: under 5 ms for all of them).

#![allow(
    clippy::expect_used,
    clippy::arithmetic_side_effects,
    reason = "a benchmark on fixed bundled data: a failure should stop it loudly"
)]

use criterion::{criterion_group, criterion_main, Criterion};
use gpuplan_core::job::JobSpec;
use gpuplan_core::plan::{Plan, RunGroup, Stops, StorageSpec};
use gpuplan_core::platform::PlatformSet;
use gpuplan_core::quote::quote;
use gpuplan_core::{GpuCatalog, ModelZoo};
use rust_decimal::Decimal;
use std::hint::black_box;

fn bench(c: &mut Criterion) {
    let catalog = GpuCatalog::from_toml("gpus.toml", gpuplan_data::GPUS_TOML).expect("catalog");
    let zoo = ModelZoo::from_toml(
        ("v", gpuplan_data::VISION_MODELS_TOML),
        ("t", gpuplan_data::TRANSFORMER_MODELS_TOML),
    )
    .expect("zoo");
    let set = PlatformSet::from_files(gpuplan_data::PLATFORMS.iter().copied(), &catalog)
        .expect("platforms");
    let base = Plan {
        name: "100 runs".into(),
        platform: String::new(),
        gpu: String::new(),
        budget: Some(Decimal::from(500)),
        start_date: None,
        student: true,
        payment: Default::default(),
        own_time_per_hour: Decimal::from(20),
        forgotten_shutdown_hours: Decimal::ONE,
        setup_hours: Decimal::ONE,
        job: JobSpec {
            hours: Some(Decimal::from(2)),
            ..Default::default()
        },
        runs: (0..100)
            .map(|i| RunGroup {
                name: format!("run {i}"),
                count: 1,
                hours: Some(Decimal::new(150 + i, 2)),
                minutes: None,
                epochs: None,
            })
            .collect(),
        debug: None,
        data: None,
        storage: Some(StorageSpec {
            gb: Decimal::from(80),
            days: Some(Decimal::from(30)),
            on: Default::default(),
        }),
        stops: Some(Stops {
            count: 10,
            hours_each: Decimal::from(12),
        }),
        ..Plan::default()
    };
    let pairs: Vec<(usize, String)> = set
        .platforms
        .iter()
        .enumerate()
        .flat_map(|(i, p)| p.offers.iter().map(move |o| (i, o.gpu.clone())))
        .collect();
    c.bench_function("quote_100_runs_all_offers", |b| {
        b.iter(|| {
            for (i, gpu) in &pairs {
                let p = &set.platforms[*i];
                let plan = Plan {
                    platform: p.id.clone(),
                    gpu: gpu.clone(),
                    ..base.clone()
                };
                black_box(quote(&plan, p, &catalog, &zoo).expect("quote"));
            }
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
