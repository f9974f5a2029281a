//! Published training throughput of real cards: the check on how step time is
//! carried from the calibration card to every other card.
//!
//! The file (`data/benchmarks/published-training.toml`) is reviewed like the
//! catalog: unknown fields are rejected and every number carries its source,
//! date and confidence. Each run becomes a [`JobSpec`] the estimator times, so
//! the check goes through the same code a student's job does.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::error::DataError;
use crate::job::{JobSpec, Optimizer, Precision};
use crate::sourced::{valid_observed, Sourced};

/// One published single-GPU training run.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PublishedRun {
    /// Catalog id of the card.
    pub gpu: String,
    /// Model zoo id.
    pub model: String,
    /// Precision the run used.
    pub precision: Precision,
    /// Image side in pixels (vision models).
    #[serde(default)]
    pub resolution: Option<u32>,
    /// Tokens per sequence (transformers).
    #[serde(default)]
    pub seq_len: Option<u32>,
    /// Optimizer.
    pub optimizer: Optimizer,
    /// Whether FP32 matmuls ran as TF32.
    #[serde(default)]
    pub tf32: bool,
    /// Samples per step.
    pub batch: Sourced<u32>,
    /// Published training throughput, samples (images or sequences) per second.
    pub samples_per_s: Sourced<f64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PublishedFile {
    run: Vec<PublishedRun>,
}

impl PublishedRun {
    /// The run as a job the estimator takes.
    pub fn job(&self) -> JobSpec {
        JobSpec {
            model: Some(self.model.clone()),
            batch: Some(f64::from(self.batch.value)),
            resolution: self.resolution.map(f64::from),
            seq_len: self.seq_len.map(f64::from),
            precision: Some(self.precision),
            optimizer: Some(self.optimizer),
            tf32: self.tf32.then_some(true),
            ..JobSpec::default()
        }
    }

    /// Published seconds per step.
    pub fn step_seconds(&self) -> f64 {
        f64::from(self.batch.value) / self.samples_per_s.value
    }
}

/// Parses and checks a published-throughput file. `file` names it in errors.
pub fn parse(file: &str, text: &str) -> Result<Vec<PublishedRun>, DataError> {
    let parsed: PublishedFile =
        toml::from_str(text).map_err(|e| DataError::from_toml(file, text, &e))?;
    let mut seen = BTreeMap::new();
    for (i, run) in parsed.run.iter().enumerate() {
        let table = format!("run[{i}]");
        let bad = |key: &str, why: String| {
            DataError::invalid(file, text, "run", key, format!("{table}: {why}"))
        };
        if !(run.samples_per_s.value.is_finite() && run.samples_per_s.value > 0.0) {
            return Err(bad("samples_per_s", "must be a positive number".into()));
        }
        if run.batch.value == 0 {
            return Err(bad("batch", "must be at least 1".into()));
        }
        for (key, source, observed) in [
            ("batch", &run.batch.source, &run.batch.observed),
            (
                "samples_per_s",
                &run.samples_per_s.source,
                &run.samples_per_s.observed,
            ),
        ] {
            if source.trim().is_empty() {
                return Err(bad(key, "source must not be empty".into()));
            }
            if !valid_observed(observed) {
                return Err(bad(
                    key,
                    format!("observed `{observed}` is not YYYY-MM or YYYY-MM-DD"),
                ));
            }
        }
        let key = (
            run.gpu.clone(),
            run.model.clone(),
            run.precision.to_string(),
            run.batch.value,
        );
        if let Some(other) = seen.insert(key, i) {
            return Err(bad(
                "gpu",
                format!("repeats run[{other}] (same card, model, precision and batch)"),
            ));
        }
    }
    Ok(parsed.run)
}

/// One published fine-tuning run's peak memory, with its settings.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PublishedMemory {
    /// Catalog id of the card it ran on.
    pub gpu: String,
    /// Model zoo id.
    pub model: String,
    /// Training mode.
    pub mode: crate::job::Mode,
    /// Precision.
    pub precision: Precision,
    /// Samples per step.
    pub batch: u32,
    /// Tokens per sequence.
    pub seq_len: u32,
    /// LoRA rank, for LoRA and QLoRA.
    #[serde(default)]
    pub lora_rank: Option<u32>,
    /// LoRA targets (`q,k,v,o`).
    #[serde(default)]
    pub lora_targets: Option<String>,
    /// Gradient checkpointing.
    pub grad_checkpointing: bool,
    /// GPUs the run used (default 1).
    #[serde(default)]
    pub gpus: Option<u32>,
    /// Its multi-GPU engine.
    #[serde(default)]
    pub engine: Option<crate::parallel::Engine>,
    /// `torch.cuda.max_memory_allocated` of one GPU, bytes.
    pub peak_alloc_bytes: Sourced<f64>,
    /// What nvidia-smi (or the allocator's reserve) showed, MiB, when published.
    #[serde(default)]
    pub reserved_mib: Option<Sourced<f64>>,
}

impl PublishedMemory {
    /// The run as a job the estimator takes.
    pub fn job(&self) -> Result<JobSpec, crate::error::InputError> {
        Ok(JobSpec {
            model: Some(self.model.clone()),
            batch: Some(f64::from(self.batch)),
            seq_len: Some(f64::from(self.seq_len)),
            precision: Some(self.precision),
            mode: Some(self.mode),
            lora_rank: self.lora_rank.map(f64::from),
            lora_targets: self
                .lora_targets
                .as_deref()
                .map(crate::job::LoraTarget::parse_list)
                .transpose()?,
            grad_checkpointing: Some(self.grad_checkpointing),
            optimizer: Some(Optimizer::Adamw),
            gpus: self.gpus.map(f64::from),
            engine: self.engine,
            ..JobSpec::default()
        })
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MemoryFile {
    run: Vec<PublishedMemory>,
}

/// Parses and checks a published-memory file. `file` names it in errors.
pub fn parse_memory(file: &str, text: &str) -> Result<Vec<PublishedMemory>, DataError> {
    let parsed: MemoryFile =
        toml::from_str(text).map_err(|e| DataError::from_toml(file, text, &e))?;
    for (i, run) in parsed.run.iter().enumerate() {
        let bad = |key: &str, why: &str| {
            DataError::invalid(file, text, "run", key, format!("run[{i}]: {why}"))
        };
        if !(run.peak_alloc_bytes.value.is_finite() && run.peak_alloc_bytes.value > 0.0) {
            return Err(bad("peak_alloc_bytes", "must be a positive number"));
        }
        for s in std::iter::once(&run.peak_alloc_bytes).chain(run.reserved_mib.iter()) {
            if s.source.trim().is_empty() || !valid_observed(&s.observed) {
                return Err(bad(
                    "peak_alloc_bytes",
                    "every number needs a source and a YYYY-MM date",
                ));
            }
        }
        if run.batch == 0 || run.seq_len == 0 {
            return Err(bad("batch", "batch and seq_len must be at least 1"));
        }
    }
    Ok(parsed.run)
}

/// Which side of the fit a published row is on, fixed by publisher and card
/// before any constant was fitted (`data/benchmarks/published-training-2.toml`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Set {
    /// The constants of `calibration.rs` may be fitted on it.
    Fit,
    /// Never fitted on: the accuracy the docs state is measured on these.
    HeldOut,
}

/// One published training-throughput row from any publisher, single- or
/// multi-GPU, with everything needed to review it: the figure as printed,
/// what was measured, how the setup differs from a plain PyTorch loop, and
/// the per-GPU samples per second derived from it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PublishedRow {
    /// Row id in the research notes (`NV-1`, `AA-12`).
    pub id: String,
    /// Who published it (one organisation or person).
    pub publisher: String,
    /// Fit or held out.
    pub set: Set,
    /// Repository, path and commit (or paper and table).
    pub source: String,
    /// When it was published or measured, `YYYY-MM`.
    pub observed: String,
    /// How far the row maps onto a job the estimator takes.
    pub confidence: crate::sourced::Confidence,
    /// The card as the source names it.
    pub card: String,
    /// Catalog id of the card, when the catalog has it.
    #[serde(default)]
    pub gpu: Option<String>,
    /// The model as the source names it.
    pub model_as_published: String,
    /// Zoo id, when the zoo has the model.
    #[serde(default)]
    pub model: Option<String>,
    /// The figure exactly as printed.
    pub quoted: String,
    /// Its unit as printed.
    pub unit: String,
    /// What was measured (and over what).
    pub measured: String,
    /// How the setup differs from a plain PyTorch training loop.
    pub setup: String,
    /// Samples per second per GPU derived from the quoted figure.
    pub samples_per_s: f64,
    /// How `samples_per_s` was derived.
    pub derivation: String,
    /// Training mode.
    pub mode: crate::job::Mode,
    /// Precision.
    pub precision: Precision,
    /// FP32 matmuls as TF32.
    #[serde(default)]
    pub tf32: bool,
    /// Image side (vision).
    #[serde(default)]
    pub resolution: Option<u32>,
    /// Tokens per sequence (transformers).
    #[serde(default)]
    pub seq_len: Option<u32>,
    /// Optimizer (the nearest the job shape has; `setup` says when it differs).
    pub optimizer: Optimizer,
    /// Samples per step per GPU.
    pub batch: u32,
    /// Gradient (activation) checkpointing.
    #[serde(default)]
    pub grad_checkpointing: bool,
    /// LoRA rank.
    #[serde(default)]
    pub lora_rank: Option<u32>,
    /// LoRA targets (`q,k,v,o`).
    #[serde(default)]
    pub lora_targets: Option<String>,
    /// Attention kernel.
    #[serde(default)]
    pub attention: Option<crate::zoo::AttentionImpl>,
    /// channels_last memory format (vision).
    #[serde(default)]
    pub channels_last: bool,
    /// Selective (per-operator) activation checkpointing.
    #[serde(default)]
    pub selective_checkpointing: bool,
    /// `torch.compile`.
    #[serde(default)]
    pub compile: bool,
    /// GPUs in all.
    pub gpus: u32,
    /// Nodes they span (default 1).
    #[serde(default)]
    pub nodes: Option<u32>,
    /// Multi-GPU engine.
    #[serde(default)]
    pub engine: Option<crate::parallel::Engine>,
    /// Link between the GPUs of a node, when the source says.
    #[serde(default)]
    pub interconnect: Option<crate::parallel::Interconnect>,
    /// CPU offload (FSDP: parameters, gradients and optimizer).
    #[serde(default)]
    pub offload: bool,
    /// Network bandwidth of each node to the others, Gb/s, when the source
    /// says (multi-node rows).
    #[serde(default)]
    pub inter_node_gbps: Option<f64>,
    /// GPUs in one node when more than 8 (a DGX-2's 16).
    #[serde(default)]
    pub gpus_per_node: Option<u32>,
    /// The PCIe link the source's board gives each GPU, GB/s each way, when
    /// the source states its lanes (`setup` quotes the words and says how
    /// the figure follows from them).
    #[serde(default)]
    pub pcie_gbps: Option<f64>,
    /// When the row's deep-learning framework (or the container bundling
    /// it) was released, `YYYY-MM`, where the source names it (NGC
    /// `pytorch:20.06` is 2020-06, PyTorch 1.13.0 2022-10); else the row's
    /// `observed` date bounds it. Decides [`PublishedRow::older_stack`].
    #[serde(default)]
    pub stack_released: Option<String>,
    /// Why the estimator cannot express the row yet; such rows are loaded
    /// and reported, never scored.
    #[serde(default)]
    pub not_expressible: Option<String>,
}

/// Stacks released before this month are older than any the step-time
/// constants were fitted on: the oldest in the fit set is NVIDIA's NGC
/// `pytorch-21.03` container (DeepLearningExamples' ResNet-50 and
/// EfficientNet rows); the H200 jobs ran PyTorch 2.11, Lambda's NGC
/// containers of 2025, timm's rows PyTorch 1.12. A rule on the rows'
/// metadata, fixed before comparing (never on a row's error).
pub const OLDER_STACK_BEFORE: &str = "2021-03";

impl PublishedRow {
    /// Whether the row ran a software stack older than any the estimator
    /// was fitted on ([`OLDER_STACK_BEFORE`]): such rows are reported apart
    /// as well as with the others (`docs/accuracy.md`).
    pub fn older_stack(&self) -> bool {
        let released = self.stack_released.as_deref().unwrap_or(&self.observed);
        released < OLDER_STACK_BEFORE
    }

    /// Whether the estimator can time the row.
    pub fn expressible(&self) -> bool {
        self.not_expressible.is_none()
    }

    /// The row as a job the estimator takes.
    pub fn job(&self) -> Result<JobSpec, crate::error::InputError> {
        let multi = self.gpus > 1;
        Ok(JobSpec {
            model: self.model.clone(),
            batch: Some(f64::from(self.batch)),
            resolution: self.resolution.map(f64::from),
            seq_len: self.seq_len.map(f64::from),
            precision: Some(self.precision),
            optimizer: Some(self.optimizer),
            mode: Some(self.mode),
            lora_rank: self.lora_rank.map(f64::from),
            lora_targets: self
                .lora_targets
                .as_deref()
                .map(crate::job::LoraTarget::parse_list)
                .transpose()?,
            grad_checkpointing: Some(self.grad_checkpointing),
            tf32: self.tf32.then_some(true),
            attention: self.attention,
            channels_last: self.channels_last.then_some(true),
            selective_checkpointing: self.selective_checkpointing.then_some(true),
            compile: self.compile.then_some(true),
            gpus: multi.then_some(f64::from(self.gpus)),
            engine: if multi { self.engine } else { None },
            offload: (multi && self.offload).then_some(true),
            pcie_gbps: if multi { self.pcie_gbps } else { None },
            ..JobSpec::default()
        })
    }

    /// Published seconds per step of one GPU.
    pub fn step_seconds(&self) -> f64 {
        f64::from(self.batch) / self.samples_per_s
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RowFile {
    run: Vec<PublishedRow>,
}

/// Parses and checks a file of [`PublishedRow`]s. `file` names it in errors.
pub fn parse_rows(file: &str, text: &str) -> Result<Vec<PublishedRow>, DataError> {
    let parsed: RowFile = toml::from_str(text).map_err(|e| DataError::from_toml(file, text, &e))?;
    let mut seen = BTreeMap::new();
    for (i, row) in parsed.run.iter().enumerate() {
        let bad = |key: &str, why: String| {
            DataError::invalid(
                file,
                text,
                "run",
                key,
                format!("run[{i}] ({}): {why}", row.id),
            )
        };
        if let Some(other) = seen.insert(row.id.clone(), i) {
            return Err(bad("id", format!("repeats run[{other}]")));
        }
        for (key, value) in [
            ("source", &row.source),
            ("publisher", &row.publisher),
            ("quoted", &row.quoted),
            ("unit", &row.unit),
            ("measured", &row.measured),
            ("setup", &row.setup),
            ("derivation", &row.derivation),
        ] {
            if value.trim().is_empty() {
                return Err(bad(key, "must not be empty".into()));
            }
        }
        if !valid_observed(&row.observed) {
            return Err(bad(
                "observed",
                format!("`{}` is not YYYY-MM or YYYY-MM-DD", row.observed),
            ));
        }
        if let Some(released) = row
            .stack_released
            .as_ref()
            .filter(|r| !valid_observed(r) || r.as_str() > row.observed.as_str())
        {
            return Err(bad(
                "stack_released",
                format!("`{released}` is not a YYYY-MM month on or before the row's observed date"),
            ));
        }
        if row.batch == 0 || row.gpus == 0 || row.nodes == Some(0) {
            return Err(bad(
                "batch",
                "batch, gpus and nodes must be at least 1".into(),
            ));
        }
        if row.expressible() {
            if !(row.samples_per_s.is_finite() && row.samples_per_s > 0.0) {
                return Err(bad("samples_per_s", "must be a positive number".into()));
            }
            if row.gpu.is_none() || row.model.is_none() {
                return Err(bad(
                    "gpu",
                    "a row the estimator times needs a catalog card and a zoo model".into(),
                ));
            }
        }
    }
    Ok(parsed.run)
}
