//! Human-readable tables for the terminal, worded from the shared message
//! catalog. Text that came from a user or a file (plan and course names,
//! notes, paths, error excerpts) passes through [`clean`], so it cannot move
//! the cursor, clear the screen or set the terminal's title.

use std::fmt::Write as _;

use gpuplan_core::estimate::{EstimateReport, Verdict};
use gpuplan_core::heldout::HeldOutAccuracy;
use gpuplan_core::parallel::ParallelEstimate;
use gpuplan_core::pipeline::{Host, RunParts};
use gpuplan_core::platform::{Localized, PlatformSet};
use gpuplan_core::quote::Quote;
use gpuplan_core::recommend::Recommendation;
use gpuplan_core::zoo::Model;
use gpuplan_core::{GpuCatalog, Message, ModelZoo};
use gpuplan_usecases::charts::category_key;
use gpuplan_usecases::labels::one_line;
use gpuplan_usecases::views::{OverrideRow, PackRow};
use gpuplan_usecases::{Catalog, Lang};
use rust_decimal::Decimal;
use serde::Serialize;

/// Pretty JSON of any serialisable value. Characters [`clean`] would mark
/// (bidirectional overrides, zero-width marks) are written as JSON's own
/// `\uXXXX` escapes instead, so the text printed parses back to the same
/// strings: JSON's structure is ASCII and serde escapes the C0 controls, so
/// any such character left is inside a string.
pub fn json<T: Serialize>(v: &T) -> String {
    let text =
        serde_json::to_string_pretty(v).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"));
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if gpuplan_core::error::is_hidden(c) && c != '\n' {
            // Every such character is below U+FFFF: one escape, no pair.
            out.push_str(&format!("\\u{:04x}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    out
}

/// User or file text made safe for a terminal: what
/// [`gpuplan_core::error::is_hidden`] names (escape sequences, carriage
/// returns, bells, zero-width marks, the bidirectional overrides that reorder
/// what a line appears to say), line breaks and tabs apart, is shown as
/// `[U+..]` instead of being interpreted.
pub fn clean(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if gpuplan_core::error::is_hidden(c) && c != '\n' && c != '\t' {
            out.push_str(&gpuplan_core::error::visible(c));
        } else {
            out.push(c);
        }
    }
    out
}

/// Seconds in a short human form in `lang` (0.123 s, 4.2 min, 3.5 h;
/// 0.123 秒, 4.2 分钟, 3.5 小时).
pub fn duration(lang: Lang, s: f64) -> String {
    // A step time needs its milliseconds (0.564 s); a warm-up of 20 s or a
    // 55.7 s run does not (20.000 s), and nothing is 0 s.
    let (n, unit) = if s == 0.0 {
        ("0".to_owned(), ["s", "秒"])
    } else if s < 10.0 {
        (format!("{s:.3}"), ["s", "秒"])
    } else if s < 60.0 {
        (format!("{s:.1}"), ["s", "秒"])
    } else if s < 3600.0 {
        (format!("{:.1}", s / 60.0), ["min", "分钟"])
    } else {
        (format!("{:.1}", s / 3600.0), ["h", "小时"])
    };
    match lang {
        Lang::En => format!("{n} {}", unit[0]),
        Lang::Zh => format!("{n} {}", unit[1]),
    }
}

/// Pads to a display width, counting CJK characters as two columns.
fn pad(s: &str, width: usize) -> String {
    format!("{s}{}", " ".repeat(width.saturating_sub(width_of(s))))
}

/// A column as wide as its widest cell (header included), and at least
/// `min`: a long card or family name ("RTX 6000 Ada Generation") must not
/// push its row's later columns out of line.
fn column<'a>(min: usize, cells: impl IntoIterator<Item = &'a str>) -> usize {
    cells.into_iter().map(width_of).fold(min, usize::max)
}

/// Columns `s` takes in a terminal (CJK characters take two).
fn width_of(s: &str) -> usize {
    s.chars()
        .map(|c| if c as u32 >= 0x2E80 { 2 } else { 1 })
        .sum()
}

/// The platform and the card a bill is for, by name.
pub struct QuoteNames {
    /// The platform's name in the reader's language.
    pub platform: String,
    /// The card's name ("RTX 4090 24 GB").
    pub card: String,
}

/// A localized name in `lang`, cleaned for the terminal.
pub fn localized(lang: Lang, l: &Localized) -> String {
    lz(lang, l)
}

fn lz(lang: Lang, l: &Localized) -> String {
    clean(match lang {
        Lang::Zh => &l.zh,
        Lang::En => &l.en,
    })
}

fn key_of<T: Serialize>(v: &T) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|x| x.as_str().map(str::to_owned))
        .unwrap_or_default()
}

fn msg(c: &Catalog, lang: Lang, m: &Message) -> String {
    clean(&c.message(lang, m))
}

/// Where one run's seconds go, with what bounds it (and the host, when known).
fn run_split(c: &Catalog, lang: Lang, gpu: &str, r: &RunParts, host: Option<&Host>) -> String {
    let t = |k: &str| c.text(lang, k);
    let mut o = String::new();
    let _ = write!(o, "{}", c.fill(lang, "run.title", [("gpu", gpu)]));
    if let Some(h) = host {
        let disk = t(&format!("enum.disk.{}", key_of(&h.disk)));
        // No space before a full-width parenthesis.
        let space = if lang == Lang::Zh { "" } else { " " };
        let _ = write!(
            o,
            "{space}{}",
            c.fill(
                lang,
                "run.host",
                [
                    ("vcpus", h.vcpus.to_string().as_str()),
                    ("ram", format!("{:.0}", h.ram_gb).as_str()),
                    ("disk", disk.as_str()),
                ],
            )
        );
    }
    let _ = writeln!(o, "{}", lang.colon().trim_end());
    for ((key, seconds), percent) in r.parts().into_iter().zip(r.percents()) {
        let _ = writeln!(
            o,
            "  {} {:>10} {:>4}%",
            pad(&t(&format!("run.parts.{key}")), 28),
            duration(lang, seconds),
            percent
        );
    }
    let _ = writeln!(
        o,
        "  {} {:>10}",
        pad(&t("run.total"), 28),
        duration(lang, r.total_s)
    );
    let share = format!("{:.0}", r.input_share * 100.0);
    let _ = writeln!(
        o,
        "  {}",
        c.fill(
            lang,
            &format!("enum.bound.{}", key_of(&r.bound)),
            [("share", share.as_str())]
        )
    );
    o
}

/// A multi-GPU layout in one sentence.
fn parallel_line(c: &Catalog, lang: Lang, key: &str, gpu: &str, p: &ParallelEstimate) -> String {
    let t = |k: &str| c.text(lang, k);
    let engine = t(&format!("enum.engine.{}", key_of(&p.layout.engine)));
    let mut offload = if p.layout.offload {
        t("parallel.offload")
    } else {
        String::new()
    };
    // The board's link, where the job or the offer states it.
    if let Some(gbps) = p.layout.pcie_gbps {
        offload.push_str(&c.fill(
            lang,
            "parallel.pcie",
            [("gbps", format!("{gbps}").as_str())],
        ));
    }
    let values = [
        ("gpus", p.layout.gpus.to_string()),
        ("gpu", gpu.to_owned()),
        ("engine", engine),
        ("offload", offload),
        ("gib", format!("{:.1}", p.peak_gib)),
        ("step", duration(lang, p.step_seconds)),
        ("comm", duration(lang, p.comm_seconds)),
        ("exposed", duration(lang, p.exposed_comm_seconds)),
        ("batch", p.global_batch.to_string()),
        ("speedup", format!("{:.1}", p.speedup)),
    ];
    c.fill(lang, key, values.iter().map(|(k, v)| (*k, v.as_str())))
}

/// The estimate as a table.
pub fn estimate(c: &Catalog, lang: Lang, r: &EstimateReport, accuracy: Option<&Message>) -> String {
    // The card by its name, as everywhere a person reads it.
    let card = r
        .gpus
        .iter()
        .find(|g| g.id == r.target_gpu)
        .map_or(r.target_gpu.clone(), |g| g.name.clone());
    let mut o = estimate_head(c, lang, r);
    o.push_str(&estimate_table(c, lang, r));
    let fits = target_fits(r, &r.target_gpu);
    match (&r.run, fits) {
        (Some(parts), true) => {
            let _ = writeln!(o);
            o.push_str(&run_split(c, lang, &card, parts, Some(&r.host)));
        }
        (Some(_), false) => {
            let _ = writeln!(
                o,
                "\n{}",
                c.fill(lang, "memory.runNoFit", [("gpu", card.as_str())])
            );
        }
        (None, _) => {}
    }
    if let Some(p) = &r.parallel {
        let key = if fits {
            "parallel.summary"
        } else {
            "parallel.summaryNoFit"
        };
        let _ = writeln!(o, "\n{}", parallel_line(c, lang, key, &card, p));
    }
    if let Some(p) = &r.fits_with {
        let _ = writeln!(
            o,
            "\n{}",
            parallel_line(c, lang, "parallel.fitsWith", &card, p)
        );
    }
    o.push_str(&estimate_fixes(c, lang, r));
    if let Some(note) = accuracy {
        let _ = write!(o, "\n{}", msg(c, lang, note));
    }
    let idle = gpuplan_usecases::defaults::IDLE_DEVICE_MIB.to_string();
    let _ = write!(
        o,
        "\n{}",
        c.fill(lang, "memory.note", [("idle", idle.as_str())])
    );
    o
}

/// The job, its parameters and its peak memory by component.
fn estimate_head(c: &Catalog, lang: Lang, r: &EstimateReport) -> String {
    let t = |k: &str| c.text(lang, k);
    let mut o = String::new();
    let j = &r.job;
    let shape = if j.resolution > 0 && j.height > 0 && j.height != j.resolution {
        format!("{}×{} px", j.resolution, j.height)
    } else if j.resolution > 0 {
        format!("{} px", j.resolution)
    } else {
        format!("{} {}", t("field.seq_len"), j.seq_len)
    };
    // Inference has no optimizer to name.
    let infer = j.mode == gpuplan_core::Mode::Infer;
    let optimizer = if infer {
        String::new()
    } else {
        format!(" · {}", t(&format!("enum.optimizer.{}", j.optimizer)))
    };
    let _ = writeln!(
        o,
        "{} ({}) · {} {} · {} · {}{} · {}{}",
        clean(&one_line(&r.model_name)),
        r.model,
        t("job.batch"),
        j.batch,
        shape,
        t(&format!("enum.precision.{}", j.precision)),
        optimizer,
        t(&format!("enum.mode.{}", j.mode)),
        if j.grad_checkpointing {
            format!(" · {}", t("job.checkpointing"))
        } else {
            String::new()
        }
    );
    let colon = lang.colon();
    let trainable = format!("{}{colon}{}", t("memory.trainable"), r.trainable_params);
    let _ = writeln!(
        o,
        "{}{colon}{}{}{trainable}{}",
        t("memory.params"),
        r.params,
        lang.parens().0,
        lang.parens().1
    );
    let _ = writeln!(o, "\n{}{colon}{:.2} GiB", t("memory.peak"), r.peak_gib);
    for key in gpuplan_core::vram::Components::KEYS {
        let v = r.components.get(key).copied().unwrap_or(0.0);
        if v > 0.0005 {
            // Inference keeps nothing for a backward pass.
            let label = if infer && key == "activations" {
                t("memory.activationsInference")
            } else {
                t(&format!("memory.components.{key}"))
            };
            let _ = writeln!(o, "  {} {:>8.2} GiB", pad(&label, 32), v);
        }
    }
    // The breakdown is the model's; measured runs move the peak: the
    // difference is its own row, so the rows add up to the peak shown.
    if let Some(k) = &r.calibration {
        let moved = r.peak_gib - r.model_peak_gib;
        if moved.abs() > 0.0005 {
            let _ = writeln!(
                o,
                "  {} {:>+8.2} GiB",
                pad(&t("memory.measuredCorrection"), 32),
                moved
            );
        }
        let _ = writeln!(o, "  {}", calibration_note(c, lang, k));
    }
    if let (Some(id), Some(s)) = (&r.gpu, r.step_seconds) {
        let g = r
            .gpus
            .iter()
            .find(|x| x.id == *id)
            .map(|x| gpuplan_usecases::charts::short_card_name(&x.name))
            .unwrap_or(id.as_str());
        // A card the job does not fit gets no time: nothing would run.
        let line = if target_fits(r, id) {
            format!(
                "{}{}{}",
                c.fill(lang, "memory.stepOn", [("gpu", g)]),
                lang.colon(),
                duration(lang, s)
            )
        } else {
            c.fill(lang, "memory.stepOnNoFit", [("gpu", g)])
        };
        let _ = writeln!(o, "\n{line}");
    }
    o
}

/// Whether the job fits card `id` of the report (tight included): a card
/// it does not fit gets no step time, run split or multi-GPU speed.
fn target_fits(r: &EstimateReport, id: &str) -> bool {
    r.gpus
        .iter()
        .find(|g| g.id == id)
        .is_some_and(|g| matches!(g.verdict, Verdict::Fits | Verdict::Tight))
}

/// Every card: its memory, the verdict, the largest batch and the times.
fn estimate_table(c: &Catalog, lang: Lang, r: &EstimateReport) -> String {
    let t = |k: &str| c.text(lang, k);
    let mut o = String::new();
    let head = t("memory.gpu");
    let names = column(
        22,
        r.gpus
            .iter()
            .map(|g| gpuplan_usecases::charts::short_card_name(&g.name))
            .chain([head.as_str()]),
    );
    let _ = writeln!(
        o,
        "\n{} {} {} {} {} {} {} {}",
        pad(&head, names),
        pad(&t("memory.vram"), 13),
        pad(&t("memory.verdict"), 14),
        pad(&t("memory.maxBatch"), 10),
        pad(&t("memory.step"), 12),
        pad(&t("memory.epoch"), 10),
        pad(&t("memory.run"), 10),
        t("memory.bound")
    );
    for g in &r.gpus {
        // Times only for cards the job fits: a card it does not fit has no
        // step time to plan with (its verdict says why).
        let fits = matches!(g.verdict, Verdict::Fits | Verdict::Tight);
        let time = |x: Option<f64>| {
            x.filter(|_| fits)
                .map(|x| duration(lang, x))
                .unwrap_or_else(|| "-".into())
        };
        let _ = writeln!(
            o,
            "{} {} {} {} {} {} {} {}",
            pad(gpuplan_usecases::charts::short_card_name(&g.name), names),
            pad(&format!("{:.1}", g.vram_gib), 13),
            pad(&t(&format!("enum.verdict.{}", key_of(&g.verdict))), 14),
            pad(&g.max_batch.to_string(), 10),
            pad(&time(Some(g.step_seconds)), 12),
            pad(&time(g.epoch_seconds), 10),
            pad(&time(g.run_seconds), 10),
            g.bound
                .map(|b| t(&format!("enum.bound-short.{}", key_of(&b))))
                .unwrap_or_else(|| "-".into())
        );
    }
    o
}

/// What would make the job fit the target card.
fn estimate_fixes(c: &Catalog, lang: Lang, r: &EstimateReport) -> String {
    let t = |k: &str| c.text(lang, k);
    let mut o = String::new();
    // The card by its name, as the table above shows it.
    let target = r
        .gpus
        .iter()
        .find(|g| g.id == r.target_gpu)
        .map(|g| gpuplan_usecases::charts::short_card_name(&g.name))
        .unwrap_or(r.target_gpu.as_str());
    let _ = writeln!(
        o,
        "\n{}{}",
        c.fill(lang, "memory.fixes", [("gpu", target)]),
        lang.colon().trim_end()
    );
    let target_fits = r
        .gpus
        .iter()
        .any(|g| g.id == r.target_gpu && matches!(g.verdict, Verdict::Fits | Verdict::Tight));
    if target_fits {
        let _ = writeln!(
            o,
            "  {}",
            c.fill(lang, "memory.fitsTarget", [("gpu", target)])
        );
    } else if r.fixes.is_empty() {
        let _ = writeln!(o, "  {}", t("memory.noFix"));
    }
    for f in &r.fixes {
        let kind = t(&format!("enum.fix.{}", f.kind));
        let peak = format!("{:.2}", f.peak_gib);
        let time = duration(lang, f.step_seconds);
        let mut line = c.fill(
            lang,
            "memory.fixLine",
            [
                ("kind", kind.as_str()),
                ("peak", peak.as_str()),
                ("time", time.as_str()),
            ],
        );
        if let Some(steps) = f.accumulation_steps {
            let (open, close) = lang.parens();
            let _ = write!(
                line,
                "{open}{}{close}",
                c.fill(
                    lang,
                    "memory.accumulation",
                    [
                        ("batch", f.job.batch.to_string().as_str()),
                        ("steps", steps.to_string().as_str())
                    ]
                )
            );
        }
        let _ = writeln!(o, "  - {line}");
    }
    o
}

/// The zoo as a table.
pub fn models(c: &Catalog, lang: Lang, zoo: &ModelZoo) -> String {
    let t = |k: &str| c.text(lang, k);
    let mut o = String::new();
    let family = |e: &gpuplan_core::zoo::ZooEntry| {
        c.text(lang, &format!("enum.family.{}", e.model.family().as_str()))
    };
    let families: Vec<String> = zoo.entries().iter().map(family).collect();
    let (id_head, family_head) = (t("cli.id"), t("cli.family"));
    let ids = column(
        20,
        zoo.entries()
            .iter()
            .map(|e| e.id.as_str())
            .chain([id_head.as_str()]),
    );
    let family_width = column(
        16,
        families
            .iter()
            .map(String::as_str)
            .chain([family_head.as_str()]),
    );
    let _ = writeln!(
        o,
        "{} {} {} {}",
        pad(&id_head, ids),
        pad(&family_head, family_width),
        pad(&t("memory.params"), 16),
        t("cli.name")
    );
    for e in zoo.entries() {
        let params = match &e.model {
            Model::Vision(v) => v.params(v.default_classes),
            Model::Transformer(tm) => tm.params(),
        };
        let _ = writeln!(
            o,
            "{} {} {} {}",
            pad(&e.id, ids),
            pad(&family(e), family_width),
            pad(&format!("{:.1}M", params as f64 / 1e6), 16),
            e.model.name()
        );
    }
    o.trim_end().to_owned()
}

/// The catalog as a table.
pub fn gpus(c: &Catalog, lang: Lang, catalog: &GpuCatalog, held: &HeldOutAccuracy) -> String {
    let t = |k: &str| c.text(lang, k);
    let mut o = String::new();
    // The citations are the data files' own words (English): say so once.
    let _ = writeln!(o, "{}\n", t("cli.sourcesNote"));
    let _ = writeln!(
        o,
        "{} {} {} {} {} {}",
        pad(&t("cli.id"), 16),
        pad(&t("memory.vram"), 13),
        pad("FP32 TF", 9),
        pad("FP16 TF", 9),
        pad("GB/s", 7),
        t("cli.bf16")
    );
    for g in catalog.gpus() {
        let _ = writeln!(
            o,
            "{} {} {} {} {} {}",
            pad(&g.id, 16),
            pad(&format!("{:.1}", g.vram_gib()), 13),
            pad(&format!("{:.1}", g.spec.fp32_tflops.value), 9),
            pad(&format!("{:.1}", g.spec.tensor_tflops.value), 9),
            pad(&format!("{:.0}", g.spec.bandwidth_gbs.value), 7),
            t(if g.supports_bf16() {
                "cli.yes"
            } else {
                "cli.no"
            })
        );
        let spec = &g.spec;
        for (what, source, observed, confidence) in [
            (
                "memory.vram",
                &spec.vram_mib.source,
                &spec.vram_mib.observed,
                spec.vram_mib.confidence,
            ),
            (
                "cli.fp32",
                &spec.fp32_tflops.source,
                &spec.fp32_tflops.observed,
                spec.fp32_tflops.confidence,
            ),
            (
                "cli.tensor",
                &spec.tensor_tflops.source,
                &spec.tensor_tflops.observed,
                spec.tensor_tflops.confidence,
            ),
            (
                "cli.bandwidth",
                &spec.bandwidth_gbs.source,
                &spec.bandwidth_gbs.observed,
                spec.bandwidth_gbs.confidence,
            ),
        ] {
            let _ = writeln!(
                o,
                "    {}",
                provenance(c, lang, &t(what), source, observed, confidence)
            );
        }
    }
    let _ = write!(o, "\n{}", accuracy_table(c, lang, held));
    o.trim_end().to_owned()
}

/// Held-out step-time figures by card class, the about text's table.
pub fn accuracy_table(c: &Catalog, lang: Lang, held: &HeldOutAccuracy) -> String {
    let t = |k: &str| c.text(lang, k);
    let mut o = format!(
        "{}\n{}\n",
        t("accuracy.title"),
        c.fill(
            lang,
            "accuracy.intro",
            [("publishers", held.publishers.to_string().as_str())]
        )
    );
    let _ = writeln!(
        o,
        "{} {} {} {} {}",
        pad(&t("accuracy.class"), 54),
        pad(&t("accuracy.runs"), 8),
        pad(&t("accuracy.error"), 14),
        pad(&t("accuracy.bias"), 14),
        t("accuracy.bar")
    );
    let classes = held.classes.iter().map(|cf| {
        (
            t(&format!("enum.card-class.{}", key_of(&cf.class))),
            Some(cf.figures),
        )
    });
    let rest = [
        (t("accuracy.oneNode"), held.one_node),
        (t("accuracy.severalNodes"), held.several_nodes),
        (t("accuracy.all"), held.all),
    ];
    for (name, f) in classes.chain(rest) {
        let Some(f) = f else { continue };
        let _ = writeln!(
            o,
            "{} {} {} {} {}",
            pad(&name, 54),
            pad(&f.runs.to_string(), 8),
            pad(&format!("{:.1}%", f.median_abs_error * 100.0), 14),
            pad(&format!("{:+.1}%", f.median_signed_error * 100.0), 14),
            t(if f.meets_bar { "cli.yes" } else { "cli.no" })
        );
    }
    o.push_str(&memory_table(c, lang, held));
    o
}

/// Peak memory against published fine-tuning runs, by mode and for
/// several GPUs: the about text's second table.
fn memory_table(c: &Catalog, lang: Lang, held: &HeldOutAccuracy) -> String {
    let t = |k: &str| c.text(lang, k);
    let mut o = format!("\n{}\n", t("accuracy.memoryTitle"));
    let _ = writeln!(
        o,
        "{} {} {} {}",
        pad(&t("accuracy.setup"), 40),
        pad(&t("accuracy.runs"), 8),
        pad(&t("accuracy.memoryError"), 14),
        t("accuracy.worst")
    );
    let modes = held.memory.iter().map(|m| {
        (
            t(&format!("enum.mode.{}", key_of(&m.mode))),
            Some(m.figures),
        )
    });
    let multi = std::iter::once((t("accuracy.multiGpuMemory"), held.multi_gpu_memory));
    for (name, f) in modes.chain(multi) {
        let Some(f) = f else { continue };
        let _ = writeln!(
            o,
            "{} {} {} {}",
            pad(&name, 40),
            pad(&f.runs.to_string(), 8),
            pad(&format!("{:+.1}%", f.median_error * 100.0), 14),
            if f.worst_error >= 0.0 {
                t("accuracy.none")
            } else {
                format!("{:+.1}%", f.worst_error * 100.0)
            }
        );
    }
    o
}

/// Where a figure came from, in one line: what, source, when seen, how sure.
fn provenance(
    c: &Catalog,
    lang: Lang,
    what: &str,
    source: &str,
    observed: &str,
    confidence: gpuplan_core::sourced::Confidence,
) -> String {
    use gpuplan_core::sourced::Confidence::*;
    let level = c.text(
        lang,
        match confidence {
            High => "cli.confidence-high",
            Medium => "cli.confidence-medium",
            Low => "cli.confidence-low",
        },
    );
    clean(&c.fill(
        lang,
        "cli.source",
        [
            ("what", what),
            ("source", source),
            ("observed", observed),
            ("confidence", level.as_str()),
        ],
    ))
}

/// How many of a profile's figures have each grade, in one line
/// ("3 platform's own page · 10 estimate").
fn grade_counts(c: &Catalog, lang: Lang, p: &gpuplan_core::platform::PlatformProfile) -> String {
    let facts = p.facts();
    gpuplan_core::sourced::Grade::ALL
        .iter()
        .filter_map(|g| {
            let n = facts.iter().filter(|f| f.grade == *g).count();
            (n > 0).then(|| format!("{n} {}", c.text(lang, &format!("enum.grade.{}", g.key()))))
        })
        .collect::<Vec<_>>()
        .join(" · ")
}

/// One platform's every figure: value, grade, confidence, source, page and
/// the date the source shows.
pub fn platform_facts(
    c: &Catalog,
    lang: Lang,
    p: &gpuplan_core::platform::PlatformProfile,
) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "{} · {}", clean(&one_line(&p.id)), lz(lang, &p.name));
    let _ = writeln!(o, "  {}\n", grade_counts(c, lang, p));
    for f in p.facts() {
        let place = if f.table.is_empty() {
            f.key.clone()
        } else {
            format!("{}.{}", f.table, f.key)
        };
        let _ = writeln!(o, "  {} = {}", clean(&place), clean(&one_line(&f.value)));
        let grade = c.text(lang, &format!("enum.grade.{}", f.grade.key()));
        let level = c.text(lang, &format!("cli.confidence-{}", f.confidence.key()));
        let mut line = format!("      [{grade} · {level}] {}", f.source);
        if let Some(u) = &f.url {
            line.push_str(&format!(" <{u}>"));
        }
        if let Some(d) = &f.observed {
            line.push_str(&format!(" ({d})"));
        }
        let _ = writeln!(o, "{}", clean(&line));
    }
    if let Some(t) = &p.student.newcomer_terms {
        let _ = writeln!(o, "\n  {}", lz(lang, t));
    }
    o.trim_end().to_owned()
}

/// Platform profiles as a table.
pub fn platforms(c: &Catalog, lang: Lang, set: &PlatformSet) -> String {
    let mut o = String::new();
    for p in &set.platforms {
        let _ = writeln!(
            o,
            "{} · {} · {}{}",
            clean(&one_line(&p.id)),
            lz(lang, &p.name),
            c.text(lang, &format!("enum.platform-kind.{}", key_of(&p.kind))),
            if p.template {
                c.text(lang, "cli.template")
            } else {
                String::new()
            }
        );
        let _ = writeln!(o, "    {}", grade_counts(c, lang, p));
        for offer in &p.offers {
            let r = &offer.price_per_hour;
            let spot = offer
                .spot_per_hour
                .as_ref()
                .map(|s| format!(", {} {}", c.text(lang, "enum.payment.spot"), s.value))
                .unwrap_or_default();
            let _ = writeln!(
                o,
                "    {} {}-{} ({}){spot} {}",
                pad(&offer.gpu, 14),
                r.low,
                r.high,
                r.typical,
                c.text(lang, "plan.pricePerHour")
            );
            let _ = writeln!(
                o,
                "        {}",
                provenance(
                    c,
                    lang,
                    &format!(
                        "{} [{}]",
                        c.text(lang, "plan.pricePerHour"),
                        c.text(lang, &format!("enum.grade.{}", r.grade.key()))
                    ),
                    &r.source,
                    r.observed.as_deref().unwrap_or("-"),
                    r.confidence
                )
            );
        }
        let _ = writeln!(o, "    {}", lz(lang, &p.shutdown));
    }
    o.trim_end().to_owned()
}

/// A quote as a bill: every line in the chosen language, the total the sum
/// of the printed lines.
pub fn quote(
    c: &Catalog,
    lang: Lang,
    q: &Quote,
    names: &QuoteNames,
    age: &gpuplan_usecases::views::PriceAge,
) -> String {
    let mut o = quote_head(c, lang, q, names);
    let width = bill_lines(c, lang, q, &mut o);
    o.push_str(&time_to_result(c, lang, q, width));
    if let Some(spot) = &q.spot {
        // The expected reruns are billed above; the bad case is said beside
        // them, as on the plan screen.
        let t = |k: &str| c.text(lang, k);
        let hours = spot.p90_rerun_hours.to_string();
        let total = format!("{} {}", spot.p90_cash_total, t("unit.cny"));
        let _ = writeln!(
            o,
            "  ~ {}",
            c.fill(
                lang,
                "plan.spotP90",
                [("hours", hours.as_str()), ("total", total.as_str())]
            )
        );
    }
    if let Some(note) = c.unverified_note(lang, &q.unverified) {
        let _ = writeln!(o, "  ~ {}", clean(&note));
    }
    o.push_str(&price_age(c, lang, age));
    if let Some(parts) = &q.run_parts {
        let _ = writeln!(o);
        o.push_str(&run_split(c, lang, &names.card, parts, None));
    }
    if let Some(k) = &q.calibration {
        let _ = writeln!(o, "\n{}", calibration_note(c, lang, k));
    }
    if !q.warnings.is_empty() {
        let t = |k: &str| c.text(lang, k);
        let _ = writeln!(o, "\n{}{}", t("plan.warnings"), lang.colon().trim_end());
        for w in &q.warnings {
            let _ = writeln!(o, "  ! {}", msg(c, lang, &w.message()));
        }
    }
    o.trim_end().to_owned()
}

/// The bill's first line: the plan, the platform, the card and its price.
fn quote_head(c: &Catalog, lang: Lang, q: &Quote, names: &QuoteNames) -> String {
    let t = |k: &str| c.text(lang, k);
    let discount = q
        .student_discount
        .map(|d| {
            c.fill(
                lang,
                "plan.studentPrice",
                [("discount", d.to_string().as_str())],
            )
        })
        .unwrap_or_default();
    // A plan without a name (name = "") starts with its platform.
    let name = clean(&one_line(&q.plan));
    let name = if name.trim().is_empty() {
        String::new()
    } else {
        format!("{name} · ")
    };
    // Several GPUs: the instance and its rate, and the rate a GPU (what
    // price lists and the price box name).
    let card = if q.instance_gpus > 1 {
        format!("{} × {}", q.instance_gpus, names.card)
    } else {
        names.card.clone()
    };
    let rate = if q.instance_gpus > 1 {
        c.fill(
            lang,
            "plan.instanceRate",
            [
                ("rate", q.price_per_hour.normalize().to_string().as_str()),
                (
                    "per_gpu",
                    q.price_per_gpu_hour.normalize().to_string().as_str(),
                ),
            ],
        )
    } else {
        format!(
            "{} {}",
            q.price_per_hour.normalize(),
            t("plan.pricePerHour")
        )
    };
    format!(
        "{name}{} · {card} · {rate}{discount}\n\n",
        clean(&one_line(&names.platform)),
    )
}

/// The bill's lines and totals, written to `o`; returns the width of the
/// first column, as wide as its longest label in either language.
fn bill_lines(c: &Catalog, lang: Lang, q: &Quote, o: &mut String) -> usize {
    let t = |k: &str| c.text(lang, k);
    let category = |l: &gpuplan_core::quote::LineItem| {
        t(&format!("bill.category.{}", category_key(l.category)))
    };
    let width = q
        .lines
        .iter()
        .map(|l| width_of(&category(l)))
        .chain([width_of(&t("plan.totalWithTime")), 30])
        .max()
        .unwrap_or(30);
    for l in &q.lines {
        let text = c.fill(
            lang,
            &format!("bill.line.{}", key_of(&l.kind)),
            l.params.0.iter().map(|(k, v)| (*k, v.as_str())),
        );
        let _ = writeln!(
            o,
            "  {} {:>10} {}",
            pad(&category(l), width),
            l.amount.round_dp(2),
            clean(&text)
        );
    }
    let _ = writeln!(o);
    let _ = writeln!(
        o,
        "  {} {:>10} {}",
        pad(&t("plan.cashTotal"), width),
        q.cash_total,
        t("unit.cny")
    );
    if q.total != q.cash_total {
        let _ = writeln!(
            o,
            "  {} {:>10} {}",
            pad(&t("plan.totalWithTime"), width),
            q.total,
            t("unit.cny")
        );
    }
    width
}

/// Where the time to result goes, as the app's plan screen says it.
fn time_to_result(c: &Catalog, lang: Lang, q: &Quote, width: usize) -> String {
    let t = |k: &str| c.text(lang, k);
    let tp = &q.time;
    let hours = |h: &Decimal| format!("{h} {}", t("unit.hours"));
    let parts = c.fill(
        lang,
        "plan.timeParts",
        [
            ("waiting", hours(&tp.waiting).as_str()),
            ("setup", hours(&tp.setup).as_str()),
            ("running", hours(&tp.running).as_str()),
            ("reruns", hours(&tp.reruns).as_str()),
            ("gaps", hours(&tp.gaps).as_str()),
        ],
    );
    let (open, close) = lang.parens();
    format!(
        "  {} {:>10} {}{open}{parts}{close}\n",
        pad(&t("plan.timeToResult"), width),
        q.time_to_result_hours,
        t("unit.hours")
    )
}

/// When the bill's prices were seen, and a flag when they are old.
fn price_age(c: &Catalog, lang: Lang, age: &gpuplan_usecases::views::PriceAge) -> String {
    let mut o = String::new();
    if let Some(pack) = &age.pack {
        let _ = writeln!(
            o,
            "  ~ {}",
            c.fill(
                lang,
                "plan.pricesFromPack",
                [("pack", one_line(pack).as_str())]
            )
        );
    }
    if let (Some(date), Some(days)) = (&age.observed, age.days) {
        let days = days.to_string();
        let _ = writeln!(
            o,
            "  ~ {}",
            c.fill(
                lang,
                "plan.pricesAsOf",
                [("date", date.as_str()), ("days", days.as_str())]
            )
        );
        if age.stale {
            let limit = gpuplan_usecases::defaults::PRICE_STALE_DAYS.to_string();
            let figure = age
                .figure
                .map(|f| c.text(lang, &format!("figure.{}", f.key())))
                .unwrap_or_default();
            let key = if age.own_price_refreshes {
                "plan.pricesStale"
            } else {
                "plan.pricesStaleFixed"
            };
            let _ = writeln!(
                o,
                "  ! {}",
                c.fill(
                    lang,
                    key,
                    [("limit", limit.as_str()), ("figure", figure.as_str())]
                )
            );
        }
    }
    o
}

/// A recommendation as a ranked list.
pub fn recommendation(c: &Catalog, lang: Lang, r: &Recommendation) -> String {
    let mut o = String::new();
    if r.options.is_empty() {
        // Memory, when fixes would make the job fit; else each offer's own
        // reason below says what ruled it out.
        let key = if r.fixes.is_empty() {
            "options.noneUsable"
        } else {
            "options.nothing"
        };
        let _ = writeln!(o, "{}", c.text(lang, key));
        if let Some(card) = r.fixes_for.as_ref().filter(|_| !r.fixes.is_empty()) {
            let _ = writeln!(
                o,
                "{}{}",
                c.fill(lang, "memory.fixes", [("gpu", card.as_str())]),
                lang.colon().trim_end()
            );
            for f in &r.fixes {
                let kind = c.text(lang, &format!("enum.fix.{}", f.kind));
                let peak = format!("{:.2}", f.peak_gib);
                let time = duration(lang, f.step_seconds);
                let _ = writeln!(
                    o,
                    "  - {}",
                    c.fill(
                        lang,
                        "memory.fixLine",
                        [
                            ("kind", kind.as_str()),
                            ("peak", peak.as_str()),
                            ("time", time.as_str())
                        ]
                    )
                );
            }
        }
    }
    if !r.options.is_empty() {
        let _ = writeln!(o, "{}\n", c.text(lang, "options.ranking"));
    }
    if r.options.iter().any(|x| x.quote.student_discount.is_some()) {
        let _ = writeln!(o, "{}\n", c.text(lang, "options.studentAssumed"));
    }
    // Calibration is per card: the first option's says what the runs did.
    if let Some(k) = r.options.iter().find_map(|o| o.quote.calibration) {
        let _ = writeln!(o, "{}\n", calibration_note(c, lang, &k));
    }
    for (i, opt) in r.options.iter().enumerate() {
        o.push_str(&option(c, lang, i.saturating_add(1), opt));
    }
    o.push_str(&ruled_out(c, lang, &r.ruled_out));
    o.trim_end().to_owned()
}

/// One ranked option: its line, then its badges, reasons and cautions.
fn option(
    c: &Catalog,
    lang: Lang,
    rank: usize,
    opt: &gpuplan_core::recommend::RankedOption,
) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "{}. {} · {} · {} · {} {} · {} {}",
        rank,
        lz(lang, &opt.platform_name),
        match &opt.layout {
            Some(l) => format!(
                "{} x {} ({}{})",
                l.gpus,
                clean(&opt.gpu_name),
                c.text(lang, &format!("enum.engine.{}", key_of(&l.engine))),
                if l.offload {
                    c.text(lang, "parallel.offload")
                } else {
                    String::new()
                }
            ),
            None => clean(&opt.gpu_name),
        },
        c.text(lang, &format!("enum.payment.{}", key_of(&opt.payment))),
        opt.cost.round_dp(2),
        c.text(lang, "unit.cny"),
        opt.time_to_result_hours.round_dp(1),
        c.text(lang, "unit.hours")
    );
    if !opt.badges.is_empty() {
        let names: Vec<String> = opt
            .badges
            .iter()
            .map(|b| c.text(lang, &format!("enum.badge.{}", key_of(b))))
            .collect();
        let _ = writeln!(o, "     * {}", names.join(" · "));
    }
    for reason in &opt.reasons {
        let _ = writeln!(o, "     + {}", msg(c, lang, reason));
    }
    let points = |x: f64| format!("{x:.2}");
    let _ = writeln!(
        o,
        "     = {}",
        c.fill(
            lang,
            "options.parts",
            [
                ("cost", points(opt.cost_points).as_str()),
                ("time", points(opt.time_points).as_str()),
                ("risk", points(opt.risk).as_str()),
                ("hassle", points(opt.hassle).as_str()),
                ("total", points(-opt.score).as_str()),
            ]
        )
    );
    if let Some(date) = &opt.quote.prices_observed {
        let _ = writeln!(
            o,
            "     ~ {}",
            c.fill(lang, "options.pricesAsOf", [("date", date.as_str())])
        );
    }
    // A credit lowers the total shown above: say so, and by how much.
    if let Some(credit) = opt
        .quote
        .by_category
        .get(&gpuplan_core::quote::Category::Credit)
        .filter(|c| !c.is_zero())
    {
        let amount = format!("{} {}", credit.abs(), c.text(lang, "unit.cny"));
        let _ = writeln!(
            o,
            "     ~ {}",
            c.fill(lang, "options.afterCredit", [("amount", amount.as_str())])
        );
    }
    if opt.quote.unverified.noted {
        let percent = opt.quote.unverified.percent.to_string();
        let _ = writeln!(
            o,
            "     ~ {}",
            c.fill(lang, "options.unverified", [("percent", percent.as_str())])
        );
    }
    for w in opt.watch_out.iter().take(3) {
        let _ = writeln!(o, "     ! {}", msg(c, lang, w));
    }
    for p in opt.pitfalls.iter().take(1) {
        let _ = writeln!(o, "     ! {}", lz(lang, p));
    }
    o
}

/// Every platform with an offer ruled out, each offer with its reason:
/// nothing a student could use goes unmentioned.
fn ruled_out(c: &Catalog, lang: Lang, ruled: &[gpuplan_core::recommend::RuledOut]) -> String {
    let mut o = String::new();
    if !ruled.is_empty() {
        let _ = writeln!(
            o,
            "\n{}{}",
            c.text(lang, "options.ruledOut"),
            lang.colon().trim_end()
        );
        // Every platform with an offer ruled out, each offer with its reason:
        // nothing a student could use goes unmentioned.
        let mut platforms: Vec<&str> = ruled.iter().map(|x| x.platform.as_str()).collect();
        platforms.dedup();
        for id in platforms {
            let rows: Vec<&gpuplan_core::recommend::RuledOut> =
                ruled.iter().filter(|x| x.platform == id).collect();
            let name = rows
                .first()
                .map(|x| lz(lang, &x.platform_name))
                .unwrap_or_default();
            // The reader's punctuation: "：" and "；" in Chinese.
            let colon = lang.colon();
            let cards: Vec<String> = rows
                .iter()
                .map(|x| format!("{}{colon}{}", clean(&x.gpu_name), msg(c, lang, &x.reason)))
                .collect();
            let sep = c.text(lang, "options.ruledOutSep");
            let _ = writeln!(o, "  - {name}{colon}{}", cards.join(&sep));
        }
    }
    o
}

/// The checklist, one box per item.
pub fn checklist(c: &Catalog, lang: Lang, items: &[Message]) -> String {
    items
        .iter()
        .map(|i| format!("[ ] {}", msg(c, lang, i)))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The user's overrides, or a line saying there are none.
pub fn overrides(c: &Catalog, lang: Lang, rows: &[OverrideRow]) -> String {
    if rows.is_empty() {
        return c.text(lang, "cli.overridesEmpty");
    }
    rows.iter()
        .map(|r| {
            let price = r.price_per_hour.to_string();
            let mut line = c.fill(
                lang,
                "cli.overrideRow",
                [
                    ("platform", r.platform.as_str()),
                    ("gpu", r.gpu.as_str()),
                    ("price", price.as_str()),
                    ("date", r.set_on.as_deref().unwrap_or("-")),
                ],
            );
            if !r.note.is_empty() {
                let (open, close) = lang.parens();
                line.push_str(&format!("{open}{}{close}", one_line(&r.note)));
            }
            clean(&line)
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Imported packs (one that no longer loads shows its error), or a line
/// saying there are none.
pub fn packs(c: &Catalog, lang: Lang, rows: &[PackRow]) -> String {
    if rows.is_empty() {
        return c.text(lang, "cli.packsEmpty");
    }
    rows.iter()
        .map(|p| {
            let name = one_line(&p.name);
            clean(&match &p.error {
                None => c.fill(
                    lang,
                    "cli.packRow",
                    [
                        ("name", name.as_str()),
                        ("platforms", p.platforms.to_string().as_str()),
                        ("presets", p.presets.to_string().as_str()),
                        (
                            "imported",
                            p.imported_at.get(..16).unwrap_or(&p.imported_at),
                        ),
                    ],
                ),
                Some(e) => c.fill(
                    lang,
                    "cli.packBroken",
                    [("name", name.as_str()), ("error", e.as_str())],
                ),
            })
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A measured run against its plan, in one line: time, memory, cost, and
/// what explains the gap.
fn versus_line(c: &Catalog, lang: Lang, v: &gpuplan_usecases::views::PlanVersusActual) -> String {
    let run_time =
        |h: f64| gpuplan_usecases::labels::duration(lang, &format!("{:.0}", (h * 3600.0).max(0.0)));
    // A figure not measured says so, in words, not a bare "-".
    let unmeasured = || c.text(lang, "unit.notMeasured");
    let gib = |x: Option<f64>| x.map_or_else(unmeasured, |g| format!("{g:.1} GiB"));
    let secs = |x: Option<f64>| {
        x.map_or_else(unmeasured, |g| {
            format!("{g:.3} {}", c.text(lang, "unit.seconds"))
        })
    };
    let mut line = c.fill(
        lang,
        "cli.versus",
        [
            // Worded as the bill words time (39 s, 6.5 min, 2.00 h): a
            // short run's 0.01 h would hide a 13% gap.
            ("planned_time", run_time(v.planned_hours).as_str()),
            ("time", run_time(v.measured_hours).as_str()),
            ("planned_step", secs(v.planned_step_seconds).as_str()),
            ("step", secs(v.measured_step_seconds).as_str()),
            ("planned_gib", gib(v.planned_peak_gib).as_str()),
            ("gib", gib(v.measured_peak_gib).as_str()),
            ("planned_cost", v.planned_cost.to_string().as_str()),
            ("cost", v.cost.to_string().as_str()),
        ],
    );
    for g in &v.gaps {
        line.push_str("\n    ");
        line.push_str(&c.text(lang, &format!("ledger.gap.{}", g.key())));
    }
    clean(&line)
}

/// The ledger: one line per bill, newest first, then the total.
pub fn ledger(c: &Catalog, lang: Lang, page: &gpuplan_usecases::views::LedgerPage) -> String {
    if page.entries.is_empty() {
        return c.text(lang, "cli.ledgerEmpty");
    }
    let mut lines: Vec<String> = page
        .entries
        .iter()
        .map(|e| {
            let id = e.id.to_string();
            let mut line = c.fill(
                lang,
                "cli.ledgerRow",
                [
                    ("id", id.as_str()),
                    ("date", e.date.as_str()),
                    ("platform", e.platform.as_str()),
                    ("gpu", e.gpu.as_str()),
                    ("hours", e.hours.to_string().as_str()),
                    ("cost", e.cost.to_string().as_str()),
                ],
            );
            let note: Vec<String> = e.note.iter().map(|m| c.message(lang, m)).collect();
            let said = if note.is_empty() {
                one_line(&e.problems)
            } else {
                note.join(c.text(lang, "options.ruledOutSep").as_str())
            };
            if !said.is_empty() {
                line.push_str(&format!(" · {said}"));
            }
            clean(&line)
        })
        .collect();
    let count = page.entries.len().to_string();
    lines.push(clean(&c.fill(
        lang,
        "cli.ledgerTotal",
        [
            ("count", count.as_str()),
            ("total", page.total.to_string().as_str()),
        ],
    )));
    lines.join("\n")
}

/// The app's saved plans, newest first: id, name, where and what, when
/// saved; a plan that no longer reads says why.
pub fn saved_plans(
    c: &Catalog,
    lang: Lang,
    rows: &[gpuplan_usecases::views::SavedPlanRow],
) -> String {
    if rows.is_empty() {
        return c.text(lang, "cli.plansEmpty");
    }
    rows.iter()
        .map(|r| {
            let id = r.id.to_string();
            let what = match (&r.plan, &r.error) {
                (Some(p), _) => format!("{} · {}", p.platform, p.gpu),
                (None, Some(e)) => e.clone(),
                (None, None) => String::new(),
            };
            clean(&c.fill(
                lang,
                "cli.planRow",
                [
                    ("id", id.as_str()),
                    ("name", r.name.as_str()),
                    ("what", what.as_str()),
                    ("updated", r.updated_at.get(..16).unwrap_or(&r.updated_at)),
                ],
            ))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Imported run reports, one line each.
pub fn imported_runs(
    c: &Catalog,
    lang: Lang,
    runs: &[gpuplan_usecases::views::ImportedRun],
) -> String {
    runs.iter()
        .map(|r| {
            let id = r.ledger_id.to_string();
            let key = match (r.already_imported, r.cost_estimated) {
                (true, _) => "cli.runAlready",
                (false, true) => "cli.runImportedEstimated",
                (false, false) => "cli.runImported",
            };
            let mut line = clean(&c.fill(
                lang,
                key,
                [
                    ("id", id.as_str()),
                    ("date", r.date.as_str()),
                    ("platform", r.platform.as_str()),
                    ("gpu", r.gpu.as_str()),
                    ("hours", r.hours.to_string().as_str()),
                    ("cost", r.cost.to_string().as_str()),
                ],
            ));
            if !r.gpu_in_catalog && !r.already_imported {
                line.push_str("\n  ");
                line.push_str(&clean(&c.fill(
                    lang,
                    "cli.runUnknownGpu",
                    [("gpu", r.gpu.as_str())],
                )));
            }
            if r.plan_not_found && !r.already_imported {
                line.push_str("\n  ");
                line.push_str(&clean(&c.text(lang, "cli.runNoPlan")));
            }
            if r.set_aside && !r.already_imported {
                line.push_str("\n  ");
                line.push_str(&clean(&c.text(lang, "cli.runSetAside")));
            }
            if r.plan_changed && !r.already_imported {
                line.push_str("\n  ");
                line.push_str(&clean(&c.text(lang, "cli.runPlanChanged")));
            }
            if r.plan_file_other && !r.already_imported {
                line.push_str("\n  ");
                line.push_str(&clean(&c.text(lang, "cli.runPlanFileOther")));
            }
            if r.card_assumed && !r.already_imported {
                line.push_str("\n  ");
                line.push_str(&clean(&c.fill(
                    lang,
                    "cli.runCardAssumed",
                    [("gpu", r.gpu.as_str())],
                )));
            }
            if let Some(u) = r.run_id_reused.as_ref().filter(|_| !r.already_imported) {
                let (key, id) = match u.bill {
                    Some(id) => ("cli.runIdReused", id.to_string()),
                    None => ("cli.runIdReusedHere", String::new()),
                };
                line.push_str("\n  ");
                line.push_str(&clean(&c.fill(
                    lang,
                    key,
                    [
                        ("run", u.run_id.as_str()),
                        ("part", u.part.to_string().as_str()),
                        ("id", id.as_str()),
                    ],
                )));
            }
            if let Some(n) = r.trained_on_gpus.filter(|_| !r.already_imported) {
                line.push_str("\n  ");
                line.push_str(&clean(&c.fill(
                    lang,
                    "cli.runOtherLayout",
                    [("count", n.to_string().as_str())],
                )));
            }
            if let Some(v) = &r.versus {
                line.push_str(&format!("\n  {}", versus_line(c, lang, v)));
            }
            line
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A factor as a signed percentage ("+12%"); one that rounds to nothing
/// is "0%", never "-0%".
fn pct(f: f64) -> String {
    let p = ((f - 1.0) * 100.0).round();
    if p == 0.0 {
        "0%".to_owned()
    } else {
        format!("{p:+.0}%")
    }
}

/// What calibration did to an answer, in one sentence.
pub fn calibration_note(
    c: &Catalog,
    lang: Lang,
    k: &gpuplan_core::correction::Calibration,
) -> String {
    let factor = |key: &str, f: &gpuplan_core::correction::Factor| {
        c.fill(
            lang,
            key,
            [
                ("pct", pct(f.applied).as_str()),
                ("low", pct(f.low).as_str()),
                ("high", pct(f.high).as_str()),
            ],
        )
    };
    // A capped factor's range is the runs' own, not the applied figure's:
    // its sentence says both.
    let applied = |key: &str, capped_key: &str, f: &gpuplan_core::correction::Factor| {
        if f.capped {
            c.fill(
                lang,
                capped_key,
                [
                    ("pct", pct(f.applied).as_str()),
                    ("measured", pct(f.measured).as_str()),
                    ("low", pct(f.low).as_str()),
                    ("high", pct(f.high).as_str()),
                ],
            )
        } else {
            factor(key, f)
        }
    };
    let mut changes: Vec<String> = Vec::new();
    if let Some(t) = k.time.filter(|f| f.is_applied()) {
        changes.push(applied("calibration.time", "calibration.timeCapped", &t));
    }
    if let Some(m) = k.memory.filter(|f| f.is_applied()) {
        changes.push(applied(
            "calibration.memory",
            "calibration.memoryCapped",
            &m,
        ));
    }
    // Nothing applied: what the runs suggest and why it was not applied
    // (not yet 95% sure the estimate is off: few runs, or runs that disagree).
    let head = if changes.is_empty() {
        "calibration.noteNone"
    } else {
        "calibration.note"
    };
    if changes.is_empty() {
        for (key, f) in [
            ("calibration.time", k.time),
            ("calibration.memory", k.memory),
        ] {
            if let Some(f) = f {
                let what = c.fill(
                    lang,
                    key,
                    [
                        ("pct", pct(f.measured).as_str()),
                        ("low", pct(f.low).as_str()),
                        ("high", pct(f.high).as_str()),
                    ],
                );
                changes.push(c.fill(lang, "calibration.notApplied", [("what", what.as_str())]));
            }
        }
    }
    if changes.is_empty() {
        changes.push(c.text(lang, "calibration.unchanged"));
    }
    let separator = c.text(lang, "calibration.separator");
    clean(&c.fill(
        lang,
        head,
        [
            ("own", k.own_runs.to_string().as_str()),
            ("class", k.class_runs.to_string().as_str()),
            ("on_card", k.on_card_runs.to_string().as_str()),
            ("changes", changes.join(&separator).as_str()),
        ],
    ))
}

/// `gpuplan calibration`: the switch, then a line per family, card and mode.
pub fn calibration(
    c: &Catalog,
    lang: Lang,
    v: &gpuplan_usecases::calibration::CalibrationView,
) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "{}",
        c.text(
            lang,
            if v.enabled {
                "calibration.on"
            } else {
                "calibration.off"
            }
        )
    );
    let runs = v.own_runs.saturating_add(v.class_runs);
    if v.rows.is_empty() && v.set_aside == 0 && runs == 0 {
        let _ = writeln!(o, "{}", c.text(lang, "calibration.empty"));
    } else if v.rows.is_empty() && v.set_aside == 0 {
        // Runs are there, but none compares with its estimate yet: say so,
        // not "no runs".
        let count = runs.to_string();
        let _ = writeln!(
            o,
            "{}",
            c.fill(
                lang,
                "calibration.nothingComparable",
                [("count", count.as_str())]
            )
        );
    } else if !v.enabled && !v.rows.is_empty() {
        // What follows is what the runs would change, not what estimates do.
        let _ = writeln!(o, "{}", c.text(lang, "calibration.offWouldApply"));
    }
    for r in &v.rows {
        let own = r.own_runs.to_string();
        let class = r.class_runs.to_string();
        let mode = c.text(lang, &format!("enum.mode.{}", r.mode));
        let family = c.text(lang, &format!("enum.family.{}", r.family));
        let _ = writeln!(
            o,
            "\n{}",
            clean(&c.fill(
                lang,
                "calibration.row",
                [
                    ("family", family.as_str()),
                    ("gpu", r.gpu.as_str()),
                    ("mode", mode.as_str()),
                    ("own", own.as_str()),
                    ("class", class.as_str()),
                ],
            ))
        );
        let _ = writeln!(o, "  {}", calibration_note(c, lang, &r.applied));
    }
    if v.set_aside > 0 {
        let count = v.set_aside.to_string();
        let _ = writeln!(
            o,
            "\n{}",
            c.fill(lang, "calibration.setAside", [("count", count.as_str())])
        );
    }
    o.trim_end().to_owned()
}

#[cfg(test)]
mod pct_tests {
    #[test]
    fn a_factor_reads_as_a_signed_percentage_and_nothing_as_zero() {
        // (factor, shown, why)
        let cases = [
            (1.36, "+36%", "slower than estimated"),
            (0.9, "-10%", "faster"),
            (0.998, "0%", "rounds to nothing: no minus sign"),
            (1.004, "0%", "rounds to nothing: no plus sign"),
        ];
        for (f, want, why) in cases {
            assert_eq!(super::pct(f), want, "{why}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpuplan_core::correction::{Calibration, Factor};

    #[test]
    fn an_unapplied_correction_says_what_the_runs_suggest_not_that_they_agree() {
        let c = Catalog::bundled().expect("catalog");
        // One class run 3.6x slower than estimated, at half weight: too
        // little to apply, and far from agreeing.
        let k = Calibration {
            own_runs: 0,
            class_runs: 1,
            on_card_runs: 0,
            time: Some(Factor {
                measured: 3.6,
                low: 0.8,
                high: 16.0,
                applied: 1.0,
                capped: false,
            }),
            memory: None,
            memory_evidence_mib: None,
        };
        // (language, must contain, must not contain, why)
        let cases = [
            (
                Lang::En,
                "+260%",
                "agree with the estimate",
                "the suggestion is said, not agreement",
            ),
            (
                Lang::En,
                "not yet sure enough",
                "+0%",
                "why nothing was applied, not the 1 it applied",
            ),
            (
                Lang::Zh,
                "+260%",
                "; ",
                "Chinese joins with its own punctuation",
            ),
        ];
        for (lang, has, lacks, why) in cases {
            let note = calibration_note(&c, lang, &k);
            assert!(note.contains(has) && !note.contains(lacks), "{why}: {note}");
        }
        let none = Calibration { time: None, ..k };
        assert!(
            calibration_note(&c, Lang::En, &none).contains("no measured run compares"),
            "no factor at all: nothing was comparable"
        );
        // A capped factor says what it applied and what the runs measured,
        // the range being the runs' own.
        let capped = Calibration {
            own_runs: 2,
            on_card_runs: 2,
            time: Some(Factor {
                measured: 1.8,
                low: 1.59,
                high: 2.12,
                applied: 1.52,
                capped: true,
            }),
            ..k
        };
        for (lang, has, why) in [
            (
                Lang::En,
                "time +52%, capped (the runs measured +80%, 90% range +59% to +112%",
                "en",
            ),
            (
                Lang::En,
                "2 of them on this card",
                "the runs on the card are counted apart",
            ),
            (Lang::Zh, "时间 +52%，已封顶（实测为 +80%", "zh"),
        ] {
            let note = calibration_note(&c, lang, &capped);
            assert!(note.contains(has), "{why}: {note}");
        }
    }
}
