//! LitGPT-style QLoRA (issue 25, item 4): the bundled preset sets the job
//! fields LitGPT's own QLoRA recipe uses, and its estimate against PEFT's
//! defaults and against LitGPT's published peak memory, by hand.

use crate::common;

use gpuplan_core::job::{LoraTarget, Mode, Optimizer, Precision};
use gpuplan_core::pack::CoursePack;
use gpuplan_core::{vram, Job, JobSpec};

const PRESET: &str = "litgpt-qlora-llama2-7b";

fn preset() -> JobSpec {
    let pack = CoursePack::from_toml(
        "data/packs/presets.toml",
        gpuplan_data::PRESETS_PACK_TOML,
        common::catalog(),
        common::zoo(),
    )
    .expect("the bundled presets load");
    pack.presets
        .into_iter()
        .find(|p| p.id.as_deref() == Some(PRESET))
        .expect("the LitGPT QLoRA preset is bundled")
        .job
}

fn resolve(s: &JobSpec) -> (gpuplan_core::zoo::Model, Job) {
    let entry = common::zoo()
        .get(s.model.as_deref().unwrap_or_default())
        .expect("zoo model");
    (entry.model.clone(), s.resolve(entry).expect("valid job"))
}

/// Bytes `torch.cuda.max_memory_allocated` would report: the live tensors
/// at the peak, without the CUDA context and the allocator's reserve.
fn allocated(s: &JobSpec) -> f64 {
    let (m, j) = resolve(s);
    let e = vram::estimate(&m, &j);
    e.peak_bytes - e.components.allocator - e.components.context
}

/// Every field LitGPT's `config_hub/finetune/llama-2-7b/qlora.yaml` and
/// `litgpt/finetune/lora.py` set (Lightning-AI/litgpt @ 26857050), as the
/// resolved job holds it: (what, holds, LitGPT's setting).
#[test]
fn litgpt_qlora_preset_sets_litgpt_fields() {
    let (_, j) = resolve(&preset());
    let cases: [(&str, bool, &str); 11] = [
        ("mode", j.mode == Mode::Qlora, "quantize: bnb.nf4"),
        ("double_quant", !j.double_quant, "bnb.nf4, not bnb.nf4-dq"),
        (
            "precision",
            j.precision == Precision::Bf16,
            "precision: bf16-true",
        ),
        (
            "qlora_upcast",
            !j.qlora_upcast,
            "no prepare_model_for_kbit_training",
        ),
        (
            "grad_checkpointing",
            !j.grad_checkpointing,
            "lora.py checkpoints nothing",
        ),
        ("lora_rank", j.lora_rank == 32, "lora_r: 32"),
        (
            "lora_targets",
            j.lora_targets == [LoraTarget::Q, LoraTarget::V],
            "lora_query and lora_value true; key, projection, mlp, head false",
        ),
        (
            "optimizer",
            j.optimizer == Optimizer::PagedAdamw32bit,
            "instantiate_bnb_optimizer: bnb.optim.PagedAdamW (32-bit)",
        ),
        (
            "chunked_loss",
            j.chunked_loss,
            "lm_head_chunk_size=128, chunked_cross_entropy",
        ),
        ("batch", j.batch == 2, "micro_batch_size: 2"),
        ("seq_len", j.seq_len == 512, "max_seq_length: 512"),
    ];
    for (field, holds, litgpt) in cases {
        assert!(holds, "{field}: LitGPT's {litgpt}");
    }
}

/// Llama-2-7B, 2 x 512 tokens, rank 32 on q and v, against PEFT's QLoRA
/// defaults (checkpointing on, FP32 upcast, double quantisation, AdamW).
/// Saved activations, by hand (h 4,096, i 11,008, 32 layers, 1,024
/// tokens; per block and token under LoRA: two RMSNorm inputs in FP32
/// (8h), the adapters' FP32 input copies (2 x 4h), SDPA's q, k, v and
/// output in bf16 (8h), the gated MLP's three 16-bit tensors (6i):
/// 24h + 6i = 164,352 bytes):
/// - PEFT, checkpointed: each block's FP32 input, 32 x 4 x 4,096 x 1,024
///   = 536,870,912, plus one block recomputed, 164,352 x 1,024 =
///   168,296,448, plus the embedding output, final norm and head input,
///   8 x 4,096 x 1,024 = 33,554,432: 738,721,792 bytes (0.69 GiB).
/// - LitGPT, nothing checkpointed: 32 x 168,296,448 + 33,554,432 =
///   5,419,040,768 bytes (5.05 GiB).
///
/// So the preset needs more memory than PEFT's defaults: the direction
/// issue 25 reports. Against LitGPT's published peak for this config
/// (config_hub/finetune/README.md @ 26857050: 13.68 GB of
/// `torch.cuda.max_memory_allocated` on an A10G) the estimate's 10.08 GB
/// is 26% under: bitsandbytes 0.42, which LitGPT pins, kept every 4-bit
/// linear's 16-bit input for backward (`ctx.tensors = (A, B)`, removed in
/// bitsandbytes commit 9e753741, 2024-07), 1.26 GB here, which the
/// estimator (current bitsandbytes) does not count; the rest is not
/// explained. The band below guards that known gap.
#[test]
fn litgpt_qlora_preset_against_peft_defaults_and_published() {
    let lit = preset();
    let peft = JobSpec {
        model: lit.model.clone(),
        mode: Some(Mode::Qlora),
        seq_len: lit.seq_len,
        batch: lit.batch,
        lora_rank: lit.lora_rank,
        precision: lit.precision,
        ..JobSpec::default()
    };
    let acts = |s: &JobSpec| {
        let (m, j) = resolve(s);
        vram::live(&m, &j).fb.activations
    };
    let cases = [
        (&peft, 738_721_792.0, "PEFT's defaults, checkpointed"),
        (&lit, 5_419_040_768.0, "LitGPT's, nothing checkpointed"),
    ];
    for (s, want, why) in cases {
        let got = acts(s);
        assert!(
            (got - want).abs() < 1.0,
            "{why}: {got} saved bytes, by hand {want}"
        );
    }
    let (lit_gb, peft_gb) = (allocated(&lit) / 1e9, allocated(&peft) / 1e9);
    assert!(
        lit_gb > 1.5 * peft_gb,
        "no checkpointing outweighs the 16-bit head and chunked loss: {lit_gb:.2} vs {peft_gb:.2} GB"
    );
    let error = lit_gb / 13.68 - 1.0;
    assert!(
        (-0.32..=-0.18).contains(&error),
        "LitGPT's published 13.68 GB: estimated {lit_gb:.2} GB ({:+.1}%), the known gap",
        error * 100.0
    );
}
