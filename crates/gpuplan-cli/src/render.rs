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

fn lz(lang: Lang, l: &gpuplan_core::platform::Localized) -> &str {
    match lang {
        Lang::Zh => &l.zh,
        Lang::En => &l.en,
    }
}

fn kind_label(lang: Lang, k: gpuplan_core::platform::PlatformKind) -> &'static str {
    use gpuplan_core::platform::PlatformKind::*;
    match (lang, k) {
        (Lang::Zh, ContainerCloud) => "国内云容器",
        (Lang::En, ContainerCloud) => "container cloud",
        (Lang::Zh, HostedNotebook) => "笔记本托管",
        (Lang::En, HostedNotebook) => "hosted notebook",
        (Lang::Zh, Marketplace) => "共享算力市场",
        (Lang::En, Marketplace) => "marketplace",
        (Lang::Zh, CampusHpc) => "校园超算",
        (Lang::En, CampusHpc) => "campus HPC",
    }
}

/// Platform profiles as a table.
pub fn platforms(set: &gpuplan_core::platform::PlatformSet, lang: Lang) -> String {
    let mut o = String::new();
    for p in &set.platforms {
        let _ = writeln!(
            o,
            "{} · {} · {}{}",
            p.id,
            lz(lang, &p.name),
            kind_label(lang, p.kind),
            if p.template {
                if lang == Lang::Zh {
                    "（模板）"
                } else {
                    " (template)"
                }
            } else {
                ""
            }
        );
        for offer in &p.offers {
            let r = &offer.price_per_hour;
            let spot = offer
                .spot_per_hour
                .as_ref()
                .map(|s| format!(", spot {}", s.value))
                .unwrap_or_default();
            let _ = writeln!(
                o,
                "    {} {}-{} ({}){spot} CNY/h",
                pad(&offer.gpu, 14),
                r.low,
                r.high,
                r.typical
            );
        }
        let _ = writeln!(o, "    {}", lz(lang, &p.shutdown));
    }
    o.trim_end().to_owned()
}

fn category_label(lang: Lang, c: gpuplan_core::quote::Category) -> &'static str {
    use gpuplan_core::quote::Category::*;
    match (lang, c) {
        (Lang::Zh, GpuCompute) => "GPU 计算",
        (Lang::En, GpuCompute) => "GPU compute",
        (Lang::Zh, Storage) => "存储",
        (Lang::En, Storage) => "storage",
        (Lang::Zh, StoppedIdle) => "关机/闲置费用",
        (Lang::En, StoppedIdle) => "stopped and idle fees",
        (Lang::Zh, Traffic) => "流量",
        (Lang::En, Traffic) => "traffic",
        (Lang::Zh, SetupNoGpu) => "环境配置与上传（无卡）",
        (Lang::En, SetupNoGpu) => "setup and uploads (no GPU)",
        (Lang::Zh, PreemptionReruns) => "抢占后重跑",
        (Lang::En, PreemptionReruns) => "reruns after preemption",
        (Lang::Zh, MinimumChargeWaste) => "计费粒度/最低消费浪费",
        (Lang::En, MinimumChargeWaste) => "minimum-charge waste",
        (Lang::Zh, Credit) => "免费额度",
        (Lang::En, Credit) => "free credit",
        (Lang::Zh, OwnTime) => "你的时间折算",
        (Lang::En, OwnTime) => "your own time",
    }
}

/// A warning as a sentence.
pub fn warning(lang: Lang, w: &gpuplan_core::quote::Warning) -> String {
    use gpuplan_core::quote::Warning::*;
    match (lang, w) {
        (Lang::Zh, DataWiped { idle_days, deadline_days }) => format!("实例闲置约 {idle_days} 天，超过平台 {deadline_days} 天的释放期限：数据会被删除。"),
        (Lang::En, DataWiped { idle_days, deadline_days }) => format!("The instance sits idle about {idle_days} days, past the platform's {deadline_days}-day release deadline: the data will be deleted."),
        (Lang::Zh, ScratchWiped { path, after_hours }) => format!("{path} 在关机 {after_hours} 小时后清空，别把数据只放在那里。"),
        (Lang::En, ScratchWiped { path, after_hours }) => format!("{path} is wiped {after_hours} h after a stop: keep nothing only there."),
        (Lang::Zh, RunExceedsCap { run_hours, cap_hours }) => format!("单次运行 {run_hours} 小时超过 {cap_hours} 小时的上限：需要断点续跑。"),
        (Lang::En, RunExceedsCap { run_hours, cap_hours }) => format!("A {run_hours} h run exceeds the {cap_hours} h cap: make it resumable."),
        (Lang::Zh, QuotaExhausted { hours, quota_hours }) => format!("需要 {hours} GPU 小时，配额只有 {quota_hours} 小时。"),
        (Lang::En, QuotaExhausted { hours, quota_hours }) => format!("The plan needs {hours} GPU hours; the quota allows {quota_hours}."),
        (Lang::Zh, PackageCheaper { period, cost, instead_of }) => format!("{period:?} 套餐只要 {cost} 元，比按量的 {instead_of} 元便宜。"),
        (Lang::En, PackageCheaper { period, cost, instead_of }) => format!("A {period:?} package costs {cost} CNY instead of {instead_of} pay-as-you-go."),
        (Lang::Zh, MinimumChargeWaste { percent }) => format!("计费粒度和最低消费浪费了 {percent}% 的计费时间：合并小任务。"),
        (Lang::En, MinimumChargeWaste { percent }) => format!("Billing units and minimum charges waste {percent}% of billed time: batch small jobs together."),
        (Lang::Zh, BudgetExceeded { total, budget }) => format!("总价 {total} 元超出预算 {budget} 元。"),
        (Lang::En, BudgetExceeded { total, budget }) => format!("The total of {total} CNY exceeds the budget of {budget}."),
        (Lang::Zh, ForgottenShutdownCostly { idle, training }) => format!("忘记关机的 {idle} 元比训练本身的 {training} 元还贵：用自动关机脚本。"),
        (Lang::En, ForgottenShutdownCostly { idle, training }) => format!("Forgetting to shut down costs {idle} CNY, more than the {training} CNY of training: use the auto-shutdown script."),
        (Lang::Zh, StopKeepsBilling) => "该平台停止实例不停止 GPU 计费，只有释放才停止。".into(),
        (Lang::En, StopKeepsBilling) => "On this platform stopping does not end GPU billing; only releasing does.".into(),
        (Lang::Zh, SpotWithoutCheckpoints) => "抢占式实例没有 checkpoint：每次被抢占都要从头重跑。".into(),
        (Lang::En, SpotWithoutCheckpoints) => "Spot without checkpoints: every preemption restarts the run.".into(),
    }
}

/// A quote as a bill.
pub fn quote(q: &gpuplan_core::quote::Quote, lang: Lang) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "{} · {} · {} · {} CNY/h",
        q.plan,
        q.platform,
        q.gpu,
        q.price_per_hour.round_dp(2)
    );
    let _ = writeln!(o);
    for l in &q.lines {
        let _ = writeln!(
            o,
            "  {} {:>10} {}",
            pad(category_label(lang, l.category), 26),
            l.amount.round_dp(2),
            l.label
        );
    }
    let _ = writeln!(o);
    let (cash, total, ttr) = match lang {
        Lang::Zh => ("现金合计", "含时间成本合计", "出结果需要"),
        Lang::En => ("Cash total", "Total with your time", "Time to result"),
    };
    let _ = writeln!(o, "  {} {:>10} CNY", pad(cash, 26), q.cash_total);
    if q.total != q.cash_total {
        let _ = writeln!(o, "  {} {:>10} CNY", pad(total, 26), q.total);
    }
    let _ = writeln!(o, "  {} {:>10} h", pad(ttr, 26), q.time_to_result_hours);
    if !q.warnings.is_empty() {
        let _ = writeln!(
            o,
            "\n{}:",
            if lang == Lang::Zh {
                "注意"
            } else {
                "Watch out"
            }
        );
        for w in &q.warnings {
            let _ = writeln!(o, "  ! {}", warning(lang, w));
        }
    }
    o.trim_end().to_owned()
}

/// A recommendation as a ranked list.
pub fn recommendation(r: &gpuplan_core::recommend::Recommendation, lang: Lang) -> String {
    let mut o = String::new();
    for (i, opt) in r.options.iter().enumerate() {
        let pay = match (lang, opt.payment) {
            (Lang::Zh, gpuplan_core::plan::Payment::Spot) => "抢占式",
            (Lang::En, gpuplan_core::plan::Payment::Spot) => "spot",
            (Lang::Zh, _) => "按需",
            (Lang::En, _) => "on demand",
        };
        let _ = writeln!(
            o,
            "{}. {} · {} · {pay} · {} CNY · {} h",
            i + 1,
            lz(lang, &opt.platform_name),
            opt.gpu,
            opt.cost.round_dp(2),
            opt.time_to_result_hours.round_dp(1)
        );
        for reason in &opt.reasons {
            let _ = writeln!(o, "     + {}", lz(lang, reason));
        }
        for w in opt.watch_out.iter().take(3) {
            let _ = writeln!(o, "     ! {}", lz(lang, w));
        }
    }
    if !r.ruled_out.is_empty() {
        let _ = writeln!(
            o,
            "\n{}:",
            if lang == Lang::Zh {
                "已排除"
            } else {
                "Ruled out"
            }
        );
        for x in r.ruled_out.iter().take(12) {
            let _ = writeln!(o, "  - {} {}: {}", x.platform, x.gpu, lz(lang, &x.reason));
        }
    }
    o.trim_end().to_owned()
}
