//! How close the step time comes to published training runs no constant was
//! fitted on (issue 25): the card classes the bar is stated for, every
//! published row timed as a student's job is timed, and the medians that
//! `docs/accuracy.md`, the README and the app quote.
//!
//! Pure: the rows, the zoo and the catalog are handed in. The figures are
//! computed from the model in the running binary, never stored, so the app
//! cannot quote a figure the model no longer earns;
//! `tests/tests/published_throughput.rs` holds them to the bar.

use serde::Serialize;

use crate::catalog::{Generation, Gpu, GpuCatalog};
use crate::error::InputError;
use crate::job::Mode;
use crate::message::Message;
use crate::parallel::Layout;
use crate::pipeline::{DiskKind, Host};
use crate::published::{PublishedMemory, PublishedRow, PublishedRun, Set};
use crate::zoo::{ModelZoo, ZooEntry};
use crate::{calibration, estimate, vram, Job};

/// The bar (issue 25): a held-out group's median |error| of step time.
pub const BAR_MEDIAN_ABS: f64 = 0.10;

/// The bar (issue 25): a held-out group's median signed error, either way.
pub const BAR_MEDIAN_SIGNED: f64 = 0.05;

/// The classes of card the accuracy is stated for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub enum CardClass {
    /// P100, V100.
    PascalVolta,
    /// T4, RTX 20xx.
    Turing,
    /// RTX 30xx and the RTX A-series workstation cards.
    AmpereConsumer,
    /// A100, A10, A40, A30.
    AmpereDatacenter,
    /// RTX 40xx, L20, L40S.
    Ada,
    /// H100, H800, H20, H200.
    Hopper,
    /// RTX 50xx.
    BlackwellConsumer,
}

impl CardClass {
    /// Every class, oldest first.
    pub const VALUES: [CardClass; 7] = [
        CardClass::PascalVolta,
        CardClass::Turing,
        CardClass::AmpereConsumer,
        CardClass::AmpereDatacenter,
        CardClass::Ada,
        CardClass::Hopper,
        CardClass::BlackwellConsumer,
    ];

    /// The class of `gpu`, from its generation and (for Ampere) whether it
    /// is a GeForce or RTX card.
    pub fn of(gpu: &Gpu) -> Self {
        let consumer = gpu.spec.name.contains("GeForce") || gpu.spec.name.contains("RTX");
        match gpu.spec.generation {
            Generation::Pascal | Generation::Volta => Self::PascalVolta,
            Generation::Turing => Self::Turing,
            Generation::Ampere if consumer => Self::AmpereConsumer,
            Generation::Ampere => Self::AmpereDatacenter,
            Generation::Ada => Self::Ada,
            Generation::Hopper => Self::Hopper,
            Generation::Blackwell => Self::BlackwellConsumer,
        }
    }

    /// The class as its catalog value (`ampere-consumer`), as serde writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::PascalVolta => "pascal-volta",
            Self::Turing => "turing",
            Self::AmpereConsumer => "ampere-consumer",
            Self::AmpereDatacenter => "ampere-datacenter",
            Self::Ada => "ada",
            Self::Hopper => "hopper",
            Self::BlackwellConsumer => "blackwell-consumer",
        }
    }

    /// The class as `docs/accuracy.md`'s tables name it.
    pub fn doc_label(self) -> &'static str {
        match self {
            Self::PascalVolta => "pascal/volta",
            Self::Turing => "turing",
            Self::AmpereConsumer => "ampere consumer",
            Self::AmpereDatacenter => "ampere datacenter",
            Self::Ada => "ada",
            Self::Hopper => "hopper",
            Self::BlackwellConsumer => "blackwell consumer",
        }
    }
}

/// How many GPUs a published run used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Scale {
    /// One GPU.
    OneGpu,
    /// Several GPUs in one node.
    OneNode,
    /// Several nodes.
    SeveralNodes,
}

impl Scale {
    /// The scale as `docs/accuracy.md`'s tables name it.
    pub fn doc_label(self) -> &'static str {
        match self {
            Self::OneGpu => "1 GPU",
            Self::OneNode => "several GPUs, one node",
            Self::SeveralNodes => "several nodes",
        }
    }
}

/// One published run and the step time the estimator gives it.
#[derive(Debug, Clone, PartialEq)]
pub struct Scored {
    /// Row id (`NV-13`; `L-1` for Lambda's runs).
    pub id: String,
    /// Who published it.
    pub publisher: String,
    /// Fit or held out.
    pub set: Set,
    /// Catalog id of the card.
    pub gpu: String,
    /// Zoo id of the model.
    pub model: String,
    /// Mode, as its catalog value (`train`, `lora`, `qlora`).
    pub mode: String,
    /// Precision, as its catalog value.
    pub precision: String,
    /// TF32 on.
    pub tf32: bool,
    /// Samples per step on one GPU.
    pub batch: u32,
    /// GPUs in all.
    pub gpus: u32,
    /// Nodes.
    pub nodes: u32,
    /// Published samples per second per GPU.
    pub samples_per_s: f64,
    /// The card's class.
    pub class: CardClass,
    /// The row ran a stack older than any the constants were fitted on
    /// (`PublishedRow::older_stack`, by metadata).
    pub older: bool,
    /// Published seconds per step.
    pub published_s: f64,
    /// Estimated seconds per step.
    pub predicted_s: f64,
}

impl Scored {
    /// Estimated over published step time, less one (+0.1: 10% too slow).
    pub fn error(&self) -> f64 {
        self.predicted_s / self.published_s - 1.0
    }

    /// One GPU, one node or several.
    pub fn scale(&self) -> Scale {
        match (self.gpus > 1, self.nodes > 1) {
            (false, _) => Scale::OneGpu,
            (true, false) => Scale::OneNode,
            (true, true) => Scale::SeveralNodes,
        }
    }
}

/// Seconds per step the estimator gives `job` on `gpu`, as a student's job
/// is billed: the single-GPU step on the card, then the layout's
/// communication over the row's interconnect (else the card's usual one),
/// with `torch.compile`'s speed-up once compiled (as pipeline.rs bills it).
fn predicted(entry: &ZooEntry, job: &Job, gpu: &Gpu, row: Option<&PublishedRow>) -> f64 {
    let single = vram::estimate(&entry.model, job);
    let host = Host {
        vcpus: 16,
        ram_gb: 128.0,
        disk: DiskKind::LocalNvme,
        interconnect: row.and_then(|r| r.interconnect),
        inter_node_gbps: row.and_then(|r| r.inter_node_gbps),
        gpus_per_node: row.and_then(|r| r.gpus_per_node),
        pcie_gbps: None,
    };
    let compiled = if job.compile {
        calibration::COMPILE_SPEEDUP
    } else {
        1.0
    };
    estimate::step_on(&entry.model, job, &single, gpu, &host).seconds * compiled
}

/// A row the parser let through without a model or card (it refuses that
/// for rows it times), said as an input error rather than a panic.
fn missing(row: &PublishedRow, field: &str) -> InputError {
    InputError {
        field: format!("run.{}.{field}", row.id),
        message: "a row the estimator times names none".into(),
        allowed: "a zoo model and a catalog card".into(),
        said: None,
    }
}

/// Times one row the estimator can express.
pub fn time_row(
    row: &PublishedRow,
    zoo: &ModelZoo,
    catalog: &GpuCatalog,
) -> Result<Scored, InputError> {
    let model = row.model.as_deref().ok_or_else(|| missing(row, "model"))?;
    let entry = zoo.get(model)?;
    let gpu = catalog.get(row.gpu.as_deref().ok_or_else(|| missing(row, "gpu"))?)?;
    let job = row.job()?.resolve(entry)?;
    Ok(Scored {
        id: row.id.clone(),
        publisher: row.publisher.clone(),
        set: row.set,
        gpu: gpu.id.clone(),
        model: model.to_owned(),
        mode: row.mode.to_string(),
        precision: row.precision.to_string(),
        tf32: row.tf32,
        batch: row.batch,
        gpus: row.gpus,
        nodes: row.nodes.unwrap_or(1),
        samples_per_s: row.samples_per_s,
        class: CardClass::of(gpu),
        older: row.older_stack(),
        published_s: row.step_seconds(),
        predicted_s: predicted(entry, &job, gpu, Some(row)),
    })
}

/// Lambda's runs (`published-training.toml`) keep the split fixed before
/// the first fit (issue 11): cards at even positions in the sorted ids were
/// fitted on, the others held out.
pub fn time_lambda(
    runs: &[PublishedRun],
    zoo: &ModelZoo,
    catalog: &GpuCatalog,
) -> Result<Vec<Scored>, InputError> {
    let mut cards: Vec<&str> = runs.iter().map(|r| r.gpu.as_str()).collect();
    cards.sort_unstable();
    cards.dedup();
    let mut out = Vec::with_capacity(runs.len());
    for (i, run) in runs.iter().enumerate() {
        let entry = zoo.get(&run.model)?;
        let gpu = catalog.get(&run.gpu)?;
        let job = run.job().resolve(entry)?;
        let position = cards.iter().position(|c| *c == run.gpu).unwrap_or(0);
        out.push(Scored {
            id: format!("L-{}", i.saturating_add(1)),
            publisher: "lambda".into(),
            set: if position % 2 == 1 {
                Set::HeldOut
            } else {
                Set::Fit
            },
            gpu: gpu.id.clone(),
            model: run.model.clone(),
            mode: "train".into(),
            precision: run.precision.to_string(),
            tf32: run.tf32,
            batch: run.batch.value,
            gpus: 1,
            nodes: 1,
            samples_per_s: run.samples_per_s.value,
            class: CardClass::of(gpu),
            // Lambda's NGC containers of 2025.
            older: false,
            published_s: run.step_seconds(),
            predicted_s: predicted(entry, &job, gpu, None),
        });
    }
    Ok(out)
}

/// Every row the estimator can time, from both files.
pub fn score(
    rows: &[PublishedRow],
    lambda: &[PublishedRun],
    zoo: &ModelZoo,
    catalog: &GpuCatalog,
) -> Result<Vec<Scored>, InputError> {
    let mut out = rows
        .iter()
        .filter(|r| r.expressible())
        .map(|r| time_row(r, zoo, catalog))
        .collect::<Result<Vec<_>, _>>()?;
    out.extend(time_lambda(lambda, zoo, catalog)?);
    Ok(out)
}

/// One published fine-tuning run's peak memory and the estimate of it.
#[derive(Debug, Clone, PartialEq)]
pub struct MemoryScored {
    /// Zoo id of the model.
    pub model: String,
    /// LoRA, QLoRA or full training.
    pub mode: Mode,
    /// GPUs the run used.
    pub gpus: u32,
    /// `torch.cuda.max_memory_allocated` of one GPU, bytes.
    pub published_bytes: f64,
    /// The estimate of the same quantity (the estimate's CUDA context and
    /// allocator reserve left out, as the published figure leaves them).
    pub estimated_bytes: f64,
}

impl MemoryScored {
    /// Estimated over published memory, less one (-0.1: 10% too little).
    pub fn error(&self) -> f64 {
        self.estimated_bytes / self.published_bytes - 1.0
    }
}

/// Every published fine-tuning run's peak memory, estimated as a student's
/// job is (per GPU for several GPUs).
pub fn score_memory(
    runs: &[PublishedMemory],
    zoo: &ModelZoo,
) -> Result<Vec<MemoryScored>, InputError> {
    runs.iter()
        .map(|r| {
            let entry = zoo.get(&r.model)?;
            let job = r.job()?.resolve(entry)?;
            let v = estimate::job_peak(&entry.model, &job);
            Ok(MemoryScored {
                model: r.model.clone(),
                mode: r.mode,
                gpus: r.gpus.unwrap_or(1),
                published_bytes: r.peak_alloc_bytes.value,
                estimated_bytes: v.peak_bytes - v.components.context - v.components.allocator,
            })
        })
        .collect()
}

/// The median of `v` (NaN when empty).
pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    let mid = n / 2;
    match (n, v.get(mid), mid.checked_sub(1).and_then(|i| v.get(i))) {
        (0, _, _) => f64::NAN,
        (_, Some(m), _) if n % 2 == 1 => *m,
        (_, Some(m), Some(below)) => (below + m) / 2.0,
        _ => f64::NAN,
    }
}

/// A group of held-out runs, summed up.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Figures {
    /// Published runs in the group.
    pub runs: u32,
    /// Median |estimated / published - 1| of step time (0.073: 7.3%).
    pub median_abs_error: f64,
    /// Median signed error (+: estimates too slow, so too many hours).
    pub median_signed_error: f64,
    /// Whether the group meets the bar ([`BAR_MEDIAN_ABS`],
    /// [`BAR_MEDIAN_SIGNED`]).
    pub meets_bar: bool,
}

impl Figures {
    /// The figures of `group`; none for an empty one (no median).
    pub fn of(group: &[&Scored]) -> Option<Self> {
        if group.is_empty() {
            return None;
        }
        let errors: Vec<f64> = group.iter().map(|s| s.error()).collect();
        let abs = median(errors.iter().map(|e| e.abs()).collect());
        let signed = median(errors);
        Some(Self {
            runs: u32::try_from(group.len()).unwrap_or(u32::MAX),
            median_abs_error: abs,
            median_signed_error: signed,
            meets_bar: abs <= BAR_MEDIAN_ABS && signed.abs() <= BAR_MEDIAN_SIGNED,
        })
    }
}

/// One card class's held-out figures.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct ClassFigures {
    /// The class.
    pub class: CardClass,
    /// Every held-out run on its cards.
    pub figures: Figures,
}

impl Figures {
    /// `key`'s line with these figures, as catalog keys (the app and the
    /// CLI word the same message).
    fn note(&self, key: &str) -> Message {
        Message::new(key)
            .with("runs", self.runs)
            .with("error", format!("{:.1}", self.median_abs_error * 100.0))
            .with("bias", format!("{:+.1}", self.median_signed_error * 100.0))
            .with("reading", bias_reading(self.median_signed_error))
            .with(
                "verdict",
                if self.meets_bar {
                    "enum.bar.meets"
                } else {
                    "enum.bar.misses"
                },
            )
    }
}

/// Which way a median signed step-time error leans, as a catalog key: a
/// student reads "real runs took longer" more surely than a minus sign.
/// Under 1% as printed (one decimal of a percent) it leans neither way;
/// within the bar's ±5% (as the verdict decides it) a little.
fn bias_reading(signed: f64) -> &'static str {
    let printed = (signed * 1000.0).round() / 10.0;
    let within_bar = signed.abs() <= BAR_MEDIAN_SIGNED;
    match (printed.abs() < 1.0, within_bar, signed > 0.0) {
        (true, _, _) => "enum.bias.even",
        (false, true, true) => "enum.bias.slightly-slow",
        (false, true, false) => "enum.bias.slightly-fast",
        (false, false, true) => "enum.bias.slow",
        (false, false, false) => "enum.bias.fast",
    }
}

impl ClassFigures {
    /// The line under an estimate on a card of this class.
    pub fn note(&self) -> Message {
        self.figures
            .note("accuracy.line")
            .with("class", format!("enum.card-class.{}", self.class.as_str()))
    }
}

/// Peak memory of a group of published runs against the estimate.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct MemoryFigures {
    /// Published runs in the group.
    pub runs: u32,
    /// Median signed error (+: the estimate asks for more memory).
    pub median_error: f64,
    /// Median |error|.
    pub median_abs_error: f64,
    /// The most negative error (the worst under-estimate; positive when
    /// every run was over-estimated).
    pub worst_error: f64,
}

impl MemoryFigures {
    /// The figures of `group`; none for an empty one.
    pub fn of(group: &[&MemoryScored]) -> Option<Self> {
        if group.is_empty() {
            return None;
        }
        let errors: Vec<f64> = group.iter().map(|m| m.error()).collect();
        Some(Self {
            runs: u32::try_from(group.len()).unwrap_or(u32::MAX),
            median_error: median(errors.clone()),
            median_abs_error: median(errors.iter().map(|e| e.abs()).collect()),
            worst_error: errors.iter().copied().fold(f64::INFINITY, f64::min),
        })
    }
}

/// One mode's memory figures.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct ModeMemory {
    /// LoRA, QLoRA, ...
    pub mode: Mode,
    /// Its published runs, one GPU and several.
    pub figures: MemoryFigures,
}

/// Step time against published runs held out from fitting: what the app's
/// about text and the CLI quote.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct HeldOutAccuracy {
    /// Each card class with held-out runs, oldest first.
    pub classes: Vec<ClassFigures>,
    /// Runs on several GPUs of one node.
    pub one_node: Option<Figures>,
    /// Runs over several nodes.
    pub several_nodes: Option<Figures>,
    /// Every held-out run.
    pub all: Option<Figures>,
    /// Publishers of the held-out runs.
    pub publishers: u32,
    /// Peak memory of published fine-tuning runs, by mode.
    pub memory: Vec<ModeMemory>,
    /// Per-GPU peak memory of the published multi-GPU runs.
    pub multi_gpu_memory: Option<MemoryFigures>,
}

impl HeldOutAccuracy {
    /// The held-out figures of `scored` (fit rows are left out) and of the
    /// published memory runs `memory`.
    pub fn of(scored: &[Scored], memory: &[MemoryScored]) -> Self {
        let held: Vec<&Scored> = scored.iter().filter(|s| s.set == Set::HeldOut).collect();
        let pick = |f: &dyn Fn(&Scored) -> bool| -> Vec<&Scored> {
            held.iter().copied().filter(|s| f(s)).collect()
        };
        let classes = CardClass::VALUES
            .iter()
            .filter_map(|&class| {
                Figures::of(&pick(&|s| s.class == class))
                    .map(|figures| ClassFigures { class, figures })
            })
            .collect();
        let mut publishers: Vec<&str> = held.iter().map(|s| s.publisher.as_str()).collect();
        publishers.sort_unstable();
        publishers.dedup();
        Self {
            classes,
            one_node: Figures::of(&pick(&|s| s.scale() == Scale::OneNode)),
            several_nodes: Figures::of(&pick(&|s| s.scale() == Scale::SeveralNodes)),
            all: Figures::of(&held),
            publishers: u32::try_from(publishers.len()).unwrap_or(u32::MAX),
            memory: Mode::VALUES
                .iter()
                .filter_map(|&mode| {
                    let group: Vec<&MemoryScored> =
                        memory.iter().filter(|m| m.mode == mode).collect();
                    MemoryFigures::of(&group).map(|figures| ModeMemory { mode, figures })
                })
                .collect(),
            multi_gpu_memory: MemoryFigures::of(
                &memory.iter().filter(|m| m.gpus > 1).collect::<Vec<_>>(),
            ),
        }
    }

    /// The figures of `gpu`'s class, when it has held-out runs.
    pub fn for_gpu(&self, gpu: &Gpu) -> Option<ClassFigures> {
        let class = CardClass::of(gpu);
        self.classes.iter().copied().find(|c| c.class == class)
    }

    /// The line under an estimate on `gpu`: the figures of several GPUs
    /// in one node, or of several nodes, when `layout` spreads the job over
    /// several GPUs (communication is then part of the step), else those
    /// of the card's class.
    pub fn note_for(&self, gpu: &Gpu, layout: Option<&Layout>) -> Option<Message> {
        match layout.filter(|l| l.gpus > 1) {
            Some(l) => {
                let (figures, scale) = if l.nodes() > 1 {
                    (self.several_nodes, "enum.scale.several-nodes")
                } else {
                    (self.one_node, "enum.scale.one-node")
                };
                figures.map(|f| f.note("accuracy.lineScale").with("scale", scale))
            }
            None => self.for_gpu(gpu).map(|c| c.note()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn class_values_are_spelled_as_serde_writes_them() {
        for c in CardClass::VALUES {
            let json = serde_json::to_string(&c).unwrap_or_default();
            assert_eq!(
                json,
                format!("\"{}\"", c.as_str()),
                "{c:?}: catalog key and IPC value agree"
            );
        }
    }

    #[test]
    fn the_line_says_which_way_the_estimates_lean() {
        // (median signed error, reading, why)
        let cases: [(f64, &str, &str); 8] = [
            (
                -0.132,
                "enum.bias.fast",
                "estimates too fast: real runs took longer",
            ),
            (
                0.063,
                "enum.bias.slow",
                "estimates too slow: real runs took less",
            ),
            (0.004, "enum.bias.even", "under 1%: neither way"),
            (-0.009, "enum.bias.even", "under 1% below zero too"),
            (
                0.0099,
                "enum.bias.slightly-slow",
                "printed as +1.0%: read as printed",
            ),
            (
                -0.031,
                "enum.bias.slightly-fast",
                "within the bar's ±5%: a little",
            ),
            (
                0.05,
                "enum.bias.slightly-slow",
                "5.0% is still within the bar",
            ),
            (
                -0.0504,
                "enum.bias.fast",
                "just outside the bar, as the verdict says",
            ),
        ];
        for (signed, reading, why) in cases {
            let f = Figures {
                runs: 3,
                median_abs_error: signed.abs(),
                median_signed_error: signed,
                meets_bar: false,
            };
            let line = f.note("accuracy.line");
            assert_eq!(
                line.params.get("reading").map(String::as_str),
                Some(reading),
                "{signed}: {why}"
            );
        }
    }

    #[test]
    fn median_of_odd_even_and_empty() {
        // (values, median, why)
        let cases: [(&[f64], f64, &str); 4] = [
            (&[3.0, 1.0, 2.0], 2.0, "odd count: the middle value, sorted"),
            (
                &[4.0, 1.0, 3.0, 2.0],
                2.5,
                "even count: mean of the two middle",
            ),
            (&[-0.2], -0.2, "one value is its own median"),
            (&[], f64::NAN, "empty: no median"),
        ];
        for (v, want, why) in cases {
            let got = median(v.to_vec());
            assert!(
                (got.is_nan() && want.is_nan()) || (got - want).abs() < 1e-12,
                "{why}: got {got}"
            );
        }
    }
}
