//! Optimizers and training habits (issue 13): each changes memory the way
//! the library does, and only that way.

use crate::common;

use gpuplan_core::job::{Mode, Optimizer, Precision};
use gpuplan_core::{vram, JobSpec};

fn peak(spec: &JobSpec) -> f64 {
    let zoo = common::zoo();
    let entry = zoo.get(spec.model.as_deref().expect("model")).expect("zoo");
    let job = spec.resolve(entry).expect("valid job");
    vram::estimate(&entry.model, &job).peak_bytes
}

fn base() -> JobSpec {
    JobSpec {
        model: Some("qwen2-0.5b".into()),
        batch: Some(8.0),
        seq_len: Some(1024.0),
        precision: Some(Precision::Bf16Amp),
        mode: Some(Mode::Train),
        optimizer: Some(Optimizer::Adamw),
        ..JobSpec::default()
    }
}

#[test]
fn optimizers_order_by_their_states() {
    // (optimizer, why it needs no more than the one before)
    let order = [
        (Optimizer::Adamw, "two FP32 states and a foreach temporary"),
        (Optimizer::Sgd, "one momentum state"),
        (Optimizer::Adamw8bit, "two 1-byte states"),
        (Optimizer::Adafactor, "factored second moments only"),
        (Optimizer::SgdPlain, "no state at all"),
    ];
    let mut last = f64::INFINITY;
    for (o, why) in order {
        let p = peak(&JobSpec {
            optimizer: Some(o),
            ..base()
        });
        assert!(
            p <= last,
            "{o}: {why}, so no more memory than the one before ({p} > {last})"
        );
        last = p;
    }
    let paged = peak(&JobSpec {
        optimizer: Some(Optimizer::PagedAdamw8bit),
        ..base()
    });
    let eight = peak(&JobSpec {
        optimizer: Some(Optimizer::Adamw8bit),
        ..base()
    });
    assert_eq!(
        paged, eight,
        "paged 8-bit AdamW holds the same states while memory lasts"
    );
}

#[test]
fn habits_add_or_remove_what_they_keep() {
    let zoo = common::zoo();
    let entry = zoo.get("qwen2-0.5b").expect("zoo");
    let params = match &entry.model {
        gpuplan_core::Model::Transformer(t) => t.params() as f64,
        gpuplan_core::Model::Vision(_) => unreachable!("a transformer"),
    };
    let b = peak(&base());
    let ema = peak(&JobSpec {
        ema: Some(true),
        ..base()
    });
    assert!(
        (ema - b - params * 4.0 * 1.08).abs() < params * 0.5,
        "an EMA copy adds about one FP32 copy of the weights"
    );
    let keep = peak(&JobSpec {
        keep_grads: Some(true),
        ..base()
    });
    assert!(
        keep > b,
        "gradients kept between steps are live in the backward pass too"
    );
    let chunked = peak(&JobSpec {
        chunked_loss: Some(true),
        ..base()
    });
    assert!(
        chunked < b * 0.8,
        "a chunked loss drops most of a 150k-vocabulary model's logits"
    );
    let vision = JobSpec {
        model: Some("resnet50".into()),
        batch: Some(32.0),
        ..JobSpec::default()
    };
    assert_eq!(
        peak(&JobSpec {
            chunked_loss: Some(true),
            ..vision.clone()
        }),
        peak(&vision),
        "a CNN has no logits to chunk"
    );
}

#[test]
fn quantised_bases_order_by_their_bits() {
    let lora = |extra: fn(JobSpec) -> JobSpec| {
        peak(&extra(JobSpec {
            model: Some("llama-2-7b".into()),
            batch: Some(4.0),
            seq_len: Some(1024.0),
            mode: Some(Mode::Lora),
            grad_checkpointing: Some(true),
            ..JobSpec::default()
        }))
    };
    let sixteen = lora(|j| j);
    let eight = lora(|j| JobSpec {
        load_in_8bit: Some(true),
        ..j
    });
    let four = lora(|j| JobSpec {
        mode: Some(Mode::Qlora),
        ..j
    });
    let four_single = lora(|j| JobSpec {
        mode: Some(Mode::Qlora),
        double_quant: Some(false),
        ..j
    });
    assert!(
        eight < sixteen,
        "an 8-bit base needs less than a 16-bit one"
    );
    assert!(four < eight, "a 4-bit base less again");
    assert!(
        four_single > four,
        "without double quantisation the NF4 scales take more"
    );
    assert!(
        four_single - four < 0.5e9,
        "but only the scales: 0.05 bytes per parameter"
    );
}
