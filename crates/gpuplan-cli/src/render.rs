//! Human-readable tables for the terminal, in Chinese or English.

use std::fmt::Write as _;

use gpuplan_core::estimate::{EstimateReport, Verdict};
use gpuplan_core::zoo::Model;
use gpuplan_core::{GpuCatalog, ModelZoo};
use serde::Serialize;

use crate::i18n::{t, Lang, Msg};

/// Pretty JSON of any serialisable value.
pub fn json<T: Serialize>(v: &T) -> String {
    serde_json::to_string_pretty(v).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
}

fn verdict(lang: Lang, v: Verdict) -> &'static str {
    t(
        lang,
        match v {
            Verdict::Fits => Msg::Fits,
            Verdict::Tight => Msg::Tight,
            Verdict::DoesNotFit => Msg::DoesNotFit,
            Verdict::Unsupported => Msg::Unsupported,
        },
    )
}

/// Seconds in a short human form (0.123 s, 4.2 min, 3.5 h).
pub fn duration(s: f64) -> String {
    if s < 60.0 {
        format!("{s:.3} s")
    } else if s < 3600.0 {
        format!("{:.1} min", s / 60.0)
    } else {
        format!("{:.1} h", s / 3600.0)
    }
}

/// Pads to a display width, counting CJK characters as two columns.
fn pad(s: &str, width: usize) -> String {
    let w: usize = s
        .chars()
        .map(|c| if c as u32 >= 0x2E80 { 2 } else { 1 })
        .sum();
    format!("{s}{}", " ".repeat(width.saturating_sub(w)))
}

fn component_label(lang: Lang, key: &str) -> &'static str {
    t(
        lang,
        match key {
            "weights" => Msg::Weights,
            "gradients" => Msg::Gradients,
            "optimizer" => Msg::OptimizerStates,
            "activations" => Msg::Activations,
            "logits" => Msg::Logits,
            "kv_cache" => Msg::KvCache,
            "workspace" => Msg::Workspace,
            "allocator" => Msg::Allocator,
            _ => Msg::Context,
        },
    )
}

/// The estimate as a table.
pub fn estimate(r: &EstimateReport, lang: Lang) -> String {
    let mut o = String::new();
    let j = &r.job;
    let shape = if j.resolution > 0 {
        format!("{} px", j.resolution)
    } else {
        format!("seq {}", j.seq_len)
    };
    let _ = writeln!(
        o,
        "{} ({}) · {} {} · {} · {} {} · {} {} · {} {}{}",
        r.model_name,
        r.model,
        t(lang, Msg::Batch),
        j.batch,
        shape,
        t(lang, Msg::Precision),
        j.precision,
        t(lang, Msg::Optimizer),
        j.optimizer,
        t(lang, Msg::Mode),
        j.mode,
        if j.grad_checkpointing {
            format!(" · {}", t(lang, Msg::Checkpointing))
        } else {
            String::new()
        }
    );
    let _ = writeln!(
        o,
        "{}: {} ({}: {})",
        t(lang, Msg::Params),
        r.params,
        t(lang, Msg::Trainable),
        r.trainable_params
    );
    let _ = writeln!(o, "\n{}: {:.2} GiB", t(lang, Msg::PeakMemory), r.peak_gib);
    for key in [
        "weights",
        "gradients",
        "optimizer",
        "activations",
        "logits",
        "kv_cache",
        "workspace",
        "allocator",
        "context",
    ] {
        let v = r.components.get(key).copied().unwrap_or(0.0);
        if v > 0.0005 {
            let _ = writeln!(
                o,
                "  {} {:>8.2} GiB",
                pad(component_label(lang, key), 20),
                v
            );
        }
    }
    if let (Some(g), Some(s)) = (&r.gpu, r.step_seconds) {
        let _ = writeln!(o, "\n{} ({g}): {}", t(lang, Msg::StepOn), duration(s));
    }
    let _ = writeln!(
        o,
        "\n{} {} {} {} {} {} {}",
        pad(t(lang, Msg::Gpu), 16),
        pad(t(lang, Msg::Vram), 9),
        pad(t(lang, Msg::Verdict), 14),
        pad(t(lang, Msg::MaxBatch), 10),
        pad(t(lang, Msg::StepTime), 10),
        pad(t(lang, Msg::Epoch), 10),
        t(lang, Msg::Run)
    );
    for g in &r.gpus {
        let _ = writeln!(
            o,
            "{} {} {} {} {} {} {}",
            pad(&g.id, 16),
            pad(&format!("{:.1}", g.vram_gib), 9),
            pad(verdict(lang, g.verdict), 14),
            pad(&g.max_batch.to_string(), 10),
            pad(&format!("{:.4}", g.step_seconds), 10),
            pad(
                &g.epoch_seconds.map(duration).unwrap_or_else(|| "-".into()),
                10
            ),
            g.run_seconds.map(duration).unwrap_or_else(|| "-".into())
        );
    }
    let _ = writeln!(o, "\n{} {}):", t(lang, Msg::FixesFor), r.target_gpu);
    let target_fits = r
        .gpus
        .iter()
        .any(|g| g.id == r.target_gpu && matches!(g.verdict, Verdict::Fits | Verdict::Tight));
    if target_fits {
        let _ = writeln!(o, "  {}", t(lang, Msg::FitsTarget));
    } else if r.fixes.is_empty() {
        let _ = writeln!(o, "  {}", t(lang, Msg::NoFix));
    }
    for f in &r.fixes {
        let extra = f
            .accumulation_steps
            .map(|s| {
                format!(
                    ", {} {s}, {} {}",
                    t(lang, Msg::AccumulationSteps),
                    t(lang, Msg::Batch),
                    f.job.batch
                )
            })
            .unwrap_or_default();
        let _ = writeln!(
            o,
            "  - {}: {:.2} GiB, {} {}{extra}",
            fix_label(lang, &f.kind),
            f.peak_gib,
            duration(f.step_seconds),
            t(lang, Msg::PerStep)
        );
    }
    let _ = write!(o, "\n{}", t(lang, Msg::Note));
    o
}

fn fix_label(lang: Lang, kind: &str) -> String {
    let zh = match kind {
        "amp" => "混合精度 (AMP)",
        "grad-checkpointing" => "梯度检查点",
        "adamw-8bit" => "8-bit AdamW",
        "lora" => "LoRA 微调",
        "qlora" => "QLoRA (4-bit)",
        "smaller-batch" => "减小 batch + 梯度累积",
        other => other,
    };
    let en = match kind {
        "amp" => "mixed precision (AMP)",
        "grad-checkpointing" => "gradient checkpointing",
        "adamw-8bit" => "8-bit AdamW",
        "lora" => "LoRA fine-tuning",
        "qlora" => "QLoRA (4-bit base)",
        "smaller-batch" => "smaller batch with gradient accumulation",
        other => other,
    };
    match lang {
        Lang::Zh => zh.to_owned(),
        Lang::En => en.to_owned(),
    }
}

/// The zoo as a table.
pub fn models(zoo: &ModelZoo, lang: Lang) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "{} {} {} {}",
        pad(t(lang, Msg::Id), 20),
        pad(t(lang, Msg::Family), 16),
        pad(t(lang, Msg::Params), 16),
        t(lang, Msg::Name)
    );
    for e in zoo.entries() {
        let params = match &e.model {
            Model::Vision(v) => v.params(v.default_classes),
            Model::Transformer(tm) => tm.params(),
        };
        let _ = writeln!(
            o,
            "{} {} {} {}",
            pad(&e.id, 20),
            pad(e.model.family(), 16),
            pad(&format!("{:.1}M", params as f64 / 1e6), 16),
            e.model.name()
        );
    }
    o.trim_end().to_owned()
}

/// The catalog as a table.
pub fn gpus(catalog: &GpuCatalog, lang: Lang) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "{} {} {} {} {} {}",
        pad(t(lang, Msg::Id), 16),
        pad(t(lang, Msg::Vram), 9),
        pad("FP32 TF", 9),
        pad("FP16 TF", 9),
        pad("GB/s", 7),
        t(lang, Msg::Bf16)
    );
    for g in catalog.gpus() {
        let _ = writeln!(
            o,
            "{} {} {} {} {} {}",
            pad(&g.id, 16),
            pad(&format!("{:.1}", g.vram_gib()), 9),
            pad(&format!("{:.1}", g.spec.fp32_tflops.value), 9),
            pad(&format!("{:.1}", g.spec.tensor_tflops.value), 9),
            pad(&format!("{:.0}", g.spec.bandwidth_gbs.value), 7),
            t(lang, if g.supports_bf16() { Msg::Yes } else { Msg::No })
        );
    }
    o.trim_end().to_owned()
}
