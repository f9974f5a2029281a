//! Property tests for the estimator's monotonic rules and its refusal to panic.

use crate::common;

use gpuplan_core::job::{Mode, Optimizer, Precision};
use gpuplan_core::{estimate, vram, JobSpec};
use proptest::prelude::*;

const VISION: &[&str] = &[
    "resnet18",
    "resnet50",
    "vgg16",
    "mobilenet-v3-large",
    "efficientnet-b0",
    "densenet121",
    "convnext-tiny",
    "swin-t",
    "vit-b-16",
    "deeplabv3-resnet50",
];
const TEXT: &[&str] = &[
    "bert-base",
    "distilbert-base",
    "t5-base",
    "gpt2",
    "qwen2-0.5b",
    "tinyllama-1.1b",
    "llama-2-7b",
    "llama-3-8b",
    "chatglm3-6b",
];

fn peak(id: &str, req: &JobSpec) -> f64 {
    let zoo = common::zoo();
    let e = zoo.get(id).expect("zoo id");
    let job = req.resolve(e).expect("valid job");
    vram::estimate(&e.model, &job).peak_bytes
}

fn precision() -> impl Strategy<Value = Precision> {
    prop_oneof![
        Just(Precision::Fp32),
        Just(Precision::Fp16Amp),
        Just(Precision::Bf16Amp),
        Just(Precision::Bf16)
    ]
}

fn optimizer() -> impl Strategy<Value = Optimizer> {
    prop_oneof![
        Just(Optimizer::Sgd),
        Just(Optimizer::Adam),
        Just(Optimizer::Adamw),
        Just(Optimizer::Adamw8bit)
    ]
}

fn text_mode() -> impl Strategy<Value = Mode> {
    prop_oneof![
        Just(Mode::Train),
        Just(Mode::Lora),
        Just(Mode::Qlora),
        Just(Mode::Infer)
    ]
}

proptest! {
    #![proptest_config(common::proptest_config(300))]

    #[test]
    fn vision_memory_never_falls_as_batch_or_resolution_grow(
        m in 0..VISION.len(), b in 1u32..512, db in 0u32..512, r in 32u32..512, dr in 0u32..256,
        p in precision(), o in optimizer(), ck in any::<bool>(),
    ) {
        let base = JobSpec { batch: Some(f64::from(b)), resolution: Some(f64::from(r)), precision: Some(p), optimizer: Some(o), grad_checkpointing: Some(ck), ..Default::default() };
        let bigger_batch = JobSpec { batch: Some(f64::from(b + db)), ..base.clone() };
        let bigger_res = JobSpec { resolution: Some(f64::from(r + dr)), ..base.clone() };
        prop_assert!(peak(VISION[m], &bigger_batch) >= peak(VISION[m], &base), "a larger batch must not need less memory");
        prop_assert!(peak(VISION[m], &bigger_res) >= peak(VISION[m], &base), "a larger image must not need less memory");
    }

    #[test]
    fn transformer_memory_never_falls_as_batch_or_sequence_grow(
        m in 0..TEXT.len(), b in 1u32..64, db in 0u32..64, s in 1u32..256, ds in 0u32..256,
        p in precision(), o in optimizer(), mode in text_mode(), ck in any::<bool>(), rank in 1u32..128,
    ) {
        let lora = matches!(mode, Mode::Lora | Mode::Qlora);
        // Checkpointing is a training option: inference refuses it.
        let ck = ck && mode != Mode::Infer;
        let base = JobSpec { batch: Some(f64::from(b)), seq_len: Some(f64::from(s)), precision: Some(p), optimizer: Some(o), mode: Some(mode), grad_checkpointing: Some(ck), lora_rank: lora.then_some(f64::from(rank)), ..Default::default() };
        let bigger_batch = JobSpec { batch: Some(f64::from(b + db)), ..base.clone() };
        let bigger_seq = JobSpec { seq_len: Some(f64::from(s + ds)), ..base.clone() };
        prop_assert!(peak(TEXT[m], &bigger_batch) >= peak(TEXT[m], &base), "a larger batch must not need less memory");
        prop_assert!(peak(TEXT[m], &bigger_seq) >= peak(TEXT[m], &base), "a longer sequence must not need less memory");
    }

    #[test]
    fn amp_never_needs_more_than_fp32_and_checkpointing_never_more_than_without(
        vision in any::<bool>(), mv in 0..VISION.len(), mt in 0..TEXT.len(), b in 1u32..128, o in optimizer(), amp in prop_oneof![Just(Precision::Fp16Amp), Just(Precision::Bf16Amp)],
    ) {
        let (id, base) = if vision {
            (VISION[mv], JobSpec { batch: Some(f64::from(b)), optimizer: Some(o), ..Default::default() })
        } else {
            (TEXT[mt], JobSpec { batch: Some(f64::from(b)), seq_len: Some(128.0), optimizer: Some(o), mode: Some(Mode::Train), ..Default::default() })
        };
        let fp32 = JobSpec { precision: Some(Precision::Fp32), ..base.clone() };
        let mixed = JobSpec { precision: Some(amp), ..base.clone() };
        // Autocast keeps a 16-bit copy of every weight through backward (2 bytes
        // per parameter). When activations are small (batch 1, short sequences,
        // a large model), that copy can outweigh the activation savings, as it
        // does in PyTorch; the excess is never more than the copies themselves,
        // and once activations dominate AMP needs strictly less.
        let zoo = common::zoo();
        let params = match &zoo.get(id).expect("id").model {
            gpuplan_core::zoo::Model::Transformer(t) => t.params(),
            gpuplan_core::zoo::Model::Vision(v) => v.params(v.default_classes),
        } as f64;
        prop_assert!(peak(id, &mixed) <= peak(id, &fp32) + 2.2 * params, "AMP may exceed FP32 only by its weight copies");
        let big = if vision {
            JobSpec { batch: Some(f64::from(b.max(64))), ..mixed.clone() }
        } else {
            JobSpec { seq_len: Some(512.0), batch: Some(f64::from(b.max(16))), ..mixed.clone() }
        };
        let big32 = JobSpec { precision: Some(Precision::Fp32), ..big.clone() };
        prop_assert!(peak(id, &big) < peak(id, &big32), "with activations dominating, AMP must need less than FP32");
        let ck = JobSpec { grad_checkpointing: Some(true), ..mixed.clone() };
        prop_assert!(peak(id, &ck) <= peak(id, &mixed), "checkpointing must not need more memory than without");
    }

    #[test]
    fn any_numbers_give_an_answer_or_a_field_error_never_a_panic(
        m in 0..(VISION.len() + TEXT.len()),
        batch in prop_oneof![Just(f64::NAN), Just(f64::INFINITY), Just(-1.0), Just(0.0), Just(1e9), any::<f64>(), 1.0f64..300.0],
        size in prop_oneof![Just(f64::NAN), Just(-3.0), Just(1e12), any::<f64>(), 16.0f64..1024.0],
    ) {
        let zoo = common::zoo();
        let catalog = common::catalog();
        let id = if m < VISION.len() { VISION[m] } else { TEXT[m - VISION.len()] };
        let e = zoo.get(id).expect("id");
        let req = if m < VISION.len() {
            JobSpec { batch: Some(batch), resolution: Some(size), ..Default::default() }
        } else {
            JobSpec { batch: Some(batch), seq_len: Some(size), ..Default::default() }
        };
        match req.resolve(e) {
            Ok(job) => {
                let est = estimate(e, &job, catalog, None, &gpuplan_core::pipeline::Host::TYPICAL);
                prop_assert!(est.vram.peak_bytes.is_finite() && est.vram.peak_bytes > 0.0, "a valid job has a finite positive peak");
                prop_assert!(est.gpus.iter().all(|g| g.step_seconds.is_finite() && g.step_seconds > 0.0), "step times are finite");
            }
            Err(err) => prop_assert!(["batch", "resolution", "seq_len"].contains(&err.field.as_str()), "the error names the bad field, got {}", err.field),
        }
    }
}

#[test]
fn max_batch_is_the_boundary_of_fitting() {
    let zoo = common::zoo();
    let catalog = common::catalog();
    for (id, req) in [
        (
            "resnet50",
            JobSpec {
                batch: Some(64.0),
                ..Default::default()
            },
        ),
        (
            "llama-2-7b",
            JobSpec {
                mode: Some(Mode::Lora),
                seq_len: Some(1024.0),
                ..Default::default()
            },
        ),
    ] {
        let e = zoo.get(id).expect("id");
        let job = req.resolve(e).expect("valid");
        let est = estimate(
            e,
            &job,
            catalog,
            None,
            &gpuplan_core::pipeline::Host::TYPICAL,
        );
        for g in est.gpus.iter().filter(|g| g.max_batch > 0) {
            let card = catalog.get(&g.id).expect("card");
            let limit = gpuplan_core::estimate::usable_bytes(card);
            let at = |b: u32| {
                vram::estimate(
                    &e.model,
                    &gpuplan_core::Job {
                        batch: b,
                        ..job.clone()
                    },
                )
                .peak_bytes
            };
            assert!(
                at(g.max_batch) <= limit,
                "{id} on {}: max batch {} must fit",
                g.id,
                g.max_batch
            );
            if g.max_batch < gpuplan_core::job::MAX_BATCH {
                assert!(
                    at(g.max_batch + 1) > limit,
                    "{id} on {}: one more sample must not fit",
                    g.id
                );
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]
    /// The smaller-batch fix keeps the effective batch exactly (micro-batch
    /// x accumulation steps is the batch: 8 where 3 fit was 3 x 3 = 9, a
    /// changed learning-rate recipe) and its micro-batch fits.
    #[test]
    fn the_smaller_batch_fix_keeps_the_batch_exactly(
        model in prop::sample::select(&["vit-l-16", "llama-2-7b", "resnet50", "bert-base"][..]),
        batch in 2u32..2000,
        card in prop::sample::select(&["rtx4090", "rtx3060", "t4", "a100-40g"][..]),
    ) {
        let zoo = common::zoo();
        let catalog = common::catalog();
        let entry = zoo.get(model).expect("zoo id");
        let job = JobSpec { batch: Some(f64::from(batch)), ..Default::default() }
            .resolve(entry)
            .expect("valid job");
        let gpu = catalog.get(card).expect("card");
        let est = estimate::estimate(entry, &job, catalog, Some(gpu), &gpuplan_core::pipeline::Host::TYPICAL);
        for f in est.fixes.iter().filter(|f| f.accumulation_steps.is_some()) {
            let steps = f.accumulation_steps.unwrap_or(1);
            prop_assert_eq!(
                f.job.batch.checked_mul(steps),
                Some(batch),
                "micro {} x {} steps is the batch {}", f.job.batch, steps, batch
            );
            prop_assert!(f.job.batch >= 1, "a micro-batch of at least one");
        }
    }
}
