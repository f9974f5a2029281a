//! Criterion benchmark: one full estimate (all catalog GPUs, max-batch search,
//! fixes and the whole run with its input pipeline included). The issues'
//! budget is 1 ms.

#![allow(
    clippy::expect_used,
    clippy::arithmetic_side_effects,
    reason = "a benchmark on fixed bundled data: a failure should stop it loudly"
)]

use criterion::{criterion_group, criterion_main, Criterion};
use gpuplan_core::{estimate, GpuCatalog, JobSpec, ModelZoo};
use std::hint::black_box;

fn bench(c: &mut Criterion) {
    let catalog = GpuCatalog::from_toml("gpus.toml", gpuplan_data::GPUS_TOML)
        .expect("bundled catalog parses");
    let zoo = ModelZoo::from_toml(
        ("vision.toml", gpuplan_data::VISION_MODELS_TOML),
        ("transformers.toml", gpuplan_data::TRANSFORMER_MODELS_TOML),
    )
    .expect("bundled zoo parses");
    for (id, req) in [
        (
            "resnet50",
            JobSpec {
                batch: Some(256.0),
                dataset_samples: Some(128_116.0),
                epochs: Some(30.0),
                ..Default::default()
            },
        ),
        (
            "llama-2-7b",
            JobSpec {
                batch: Some(8.0),
                seq_len: Some(2048.0),
                dataset_samples: Some(20_000.0),
                epochs: Some(1.0),
                ..Default::default()
            },
        ),
    ] {
        let entry = zoo.get(id).expect("zoo model");
        let job = req.resolve(entry).expect("valid job");
        c.bench_function(&format!("estimate_all_gpus/{id}"), |b| {
            b.iter(|| {
                estimate(
                    black_box(entry),
                    black_box(&job),
                    &catalog,
                    None,
                    &gpuplan_core::pipeline::Host::TYPICAL,
                )
            })
        });
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
