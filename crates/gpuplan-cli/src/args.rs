//! The command line: clap definitions and their translation into the use
//! cases' inputs. Numbers arrive as text and are parsed here, so "-1", "NaN"
//! or "1e9" get the same field-naming message as every other bad value.

use std::path::PathBuf;
use std::str::FromStr;

use clap::{Args, Parser, Subcommand, ValueEnum};
use gpuplan_core::job::{DatasetKind, JobSpec, LoraTarget, Mode, Optimizer, Precision};
use gpuplan_core::parallel::Engine;
use gpuplan_core::plan::Plan;
use gpuplan_core::recommend::{Situation, Stage};
use gpuplan_core::zoo::AttentionImpl;
use gpuplan_usecases::planning::SlurmRequest;
use gpuplan_usecases::{AppError, Lang};
use rust_decimal::Decimal;

/// Output language.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LangArg {
    /// 简体中文 (also zh-CN, zh_CN, zh-Hans: the locale spellings)
    #[value(aliases = ["zh-cn", "zh_cn", "zh-hans", "zh-sg"])]
    Zh,
    /// English (also en-US, en-GB)
    #[value(aliases = ["en-us", "en_us", "en-gb", "en_gb"])]
    En,
}

impl From<LangArg> for Lang {
    fn from(l: LangArg) -> Self {
        match l {
            LangArg::Zh => Lang::Zh,
            LangArg::En => Lang::En,
        }
    }
}

/// `gpuplan`.
#[derive(Parser)]
#[command(
    name = "gpuplan",
    version,
    about = "Plan where and how to rent a GPU for a deep-learning job / 租卡规划"
)]
pub struct Cli {
    /// Output language (default: from the locale).
    #[arg(long, global = true, value_enum, ignore_case = true)]
    pub lang: Option<LangArg>,
    /// The command.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Subcommand)]
pub enum Command {
    /// Estimate peak GPU memory and step time of a job on every catalog GPU.
    Estimate(Box<EstimateArgs>),
    /// List the model zoo.
    Models {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// List the GPU catalog.
    Gpus {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// List the platform profiles (bundled, imported packs, your overrides).
    Platforms {
        /// One platform's every figure, with its grade and source.
        id: Option<String>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// The plans the app saved: list, show, export, import.
    Plans {
        #[command(subcommand)]
        action: PlansAction,
    },
    /// Price a plan file (format: docs/plans.md, examples/*.toml).
    Quote {
        /// The plan file.
        plan: PathBuf,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Rank platform x GPU options for your situation and job.
    Recommend(Box<RecommendArgs>),
    /// Your own prices, kept apart from the bundled data (shared with the app).
    Override {
        /// What to do.
        #[command(subcommand)]
        action: OverrideAction,
    },
    /// The ledger of real bills: import the run reports the kit's wrapper writes.
    Ledger {
        /// What to do.
        #[command(subcommand)]
        action: LedgerAction,
    },
    /// What your measured runs (and your course's) taught the estimator; turn it on or off.
    Calibration {
        /// Turn calibration off: estimates ignore measured runs.
        #[arg(long, conflicts_with = "on")]
        off: bool,
        /// Turn calibration back on.
        #[arg(long)]
        on: bool,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Course packs: export one for a class, import, list or remove them.
    Pack {
        /// What to do.
        #[command(subcommand)]
        action: PackAction,
    },
    /// Before-you-rent scripts: shutdown wrapper, Slurm, probe, offline install, resume template, checklist.
    Script {
        /// Which script.
        #[command(subcommand)]
        kind: ScriptKind,
    },
}

/// The job, the same flags wherever a job is described.
#[derive(Args, Default)]
pub struct JobArgs {
    /// Model id from `gpuplan models` (estimate also takes `custom` with --config).
    #[arg(long)]
    pub model: Option<String>,
    /// Hours of one run on an RTX 3090 when known from experience (recommend; instead of a model; other cards scaled by speed).
    #[arg(long, allow_hyphen_values = true)]
    pub hours: Option<String>,
    /// Samples (sequences) per step.
    #[arg(long, allow_hyphen_values = true)]
    pub batch: Option<String>,
    /// Image size in pixels (vision models): a side, or WIDTHxHEIGHT such as 512x256.
    #[arg(long, allow_hyphen_values = true)]
    pub resolution: Option<String>,
    /// Tokens per sequence (transformers).
    #[arg(long, allow_hyphen_values = true)]
    pub seq_len: Option<String>,
    /// Output classes.
    #[arg(long, allow_hyphen_values = true)]
    pub classes: Option<String>,
    /// fp32, fp16-amp, bf16-amp or bf16.
    #[arg(long)]
    pub precision: Option<String>,
    /// sgd, sgd-plain (no momentum), rmsprop, adam, adamw, paged-adamw-32bit, adamw-8bit, paged-adamw-8bit or adafactor.
    #[arg(long)]
    pub optimizer: Option<String>,
    /// train, lora, qlora or infer.
    #[arg(long)]
    pub mode: Option<String>,
    /// LoRA rank (with --mode lora or qlora).
    #[arg(long, allow_hyphen_values = true)]
    pub lora_rank: Option<String>,
    /// LoRA targets, e.g. `q,v` (default) or `all`.
    #[arg(long)]
    pub lora_targets: Option<String>,
    /// Gradient checkpointing (on by default for QLoRA, as PEFT does).
    #[arg(long, conflicts_with = "no_grad_checkpointing")]
    pub grad_checkpointing: bool,
    /// No gradient checkpointing (turns off QLoRA's default).
    #[arg(long)]
    pub no_grad_checkpointing: bool,
    /// Samples in the dataset (for time per epoch).
    #[arg(long, allow_hyphen_values = true)]
    pub dataset_samples: Option<String>,
    /// Epochs (for time per run).
    #[arg(long, allow_hyphen_values = true)]
    pub epochs: Option<String>,
    /// How the data is stored: in-memory (CIFAR-style arrays), jpeg-folder, text or packed.
    #[arg(long)]
    pub dataset: Option<String>,
    /// DataLoader worker processes (default 4; 0 loads in the training process).
    #[arg(long, allow_hyphen_values = true)]
    pub num_workers: Option<String>,
    /// Epochs between evaluation passes (default 1; 0: never).
    #[arg(long, allow_hyphen_values = true)]
    pub eval_every_epochs: Option<String>,
    /// Validation samples (default a fifth of the dataset, at most 50,000).
    #[arg(long, allow_hyphen_values = true)]
    pub val_samples: Option<String>,
    /// Epochs between checkpoint saves (default 1; 0: never).
    #[arg(long, allow_hyphen_values = true)]
    pub save_every_epochs: Option<String>,
    /// torch.compile (a minute or two of compilation, faster steps after).
    #[arg(long)]
    pub compile: bool,
    /// Vision models in channels_last memory format (no layout transposes around tensor-core convolutions).
    #[arg(long)]
    pub channels_last: bool,
    /// Selective activation checkpointing of transformer blocks (torchtitan's op policy).
    #[arg(long)]
    pub selective_checkpointing: bool,
    /// The optimizer steps each parameter inside backward (torchtune's optimizer_in_bwd).
    #[arg(long)]
    pub optimizer_in_backward: bool,
    /// Saved activations kept in host memory (torch.autograd.graph.save_on_cpu).
    #[arg(long)]
    pub activation_offload: bool,
    /// QLoRA without the FP32 upcast of embeddings, head and norms (LitGPT's way).
    #[arg(long)]
    pub no_qlora_upcast: bool,
    /// LoRA's base loaded in FP32 while computing in 16 bits (from_pretrained without torch_dtype).
    #[arg(long)]
    pub base_fp32: bool,
    /// TF32 matmuls in FP32 (torch.backends.cuda.matmul.allow_tf32; Ampere and newer).
    #[arg(long)]
    pub tf32: bool,
    /// Attention kernel: eager, sdpa or flash for transformers (default: what Transformers
    /// picks); eager or sdpa for vision transformers (default sdpa); none for CNNs.
    #[arg(long)]
    pub attention: Option<String>,
    /// Gradients kept allocated between steps (zero_grad(set_to_none=False)).
    #[arg(long)]
    pub keep_grads: bool,
    /// An FP32 EMA copy of the weights on the GPU.
    #[arg(long)]
    pub ema: bool,
    /// A chunked (fused linear) cross-entropy (Liger, Unsloth).
    #[arg(long)]
    pub chunked_loss: bool,
    /// LoRA on a base loaded in 8 bits (bitsandbytes LLM.int8).
    #[arg(long)]
    pub load_in_8bit: bool,
    /// QLoRA without double quantisation of the NF4 scales.
    #[arg(long)]
    pub no_double_quant: bool,
    /// GPUs to train on (data parallel; --batch is per GPU). Default 1.
    #[arg(long, allow_hyphen_values = true)]
    pub gpus: Option<String>,
    /// Multi-GPU engine: ddp, fsdp, fsdp-grad-op, hsdp (shard per node), zero1, zero2 or zero3 (default ddp).
    #[arg(long)]
    pub engine: Option<String>,
    /// Optimizer states on the CPU (zero2, zero3, fsdp).
    #[arg(long)]
    pub offload: bool,
    /// The PCIe link your board gives each GPU, GB/s each way (7.9 for PCIe 3.0 x8, 15.8 for 3.0 x16 or 4.0 x8, 31.5 for 4.0 x16); default the platform's, else a typical host's.
    #[arg(long, allow_hyphen_values = true)]
    pub pcie_gbps: Option<String>,
}

/// What `field` takes, in words and as a catalog key: its range where the
/// forms check one (`a whole number from 1 to 65536` for a batch), else "a
/// number".
fn a_number(field: &str) -> (String, gpuplan_core::Message) {
    gpuplan_core::limits::ALL
        .iter()
        .find(|l| l.field == field)
        .map_or_else(
            || {
                (
                    "a number such as 12.5".into(),
                    gpuplan_core::Message::new("allowed.number"),
                )
            },
            gpuplan_core::limits::FieldLimit::allowed,
        )
}

/// A number the user typed.
pub fn number(field: &str, s: Option<&str>) -> Result<Option<f64>, AppError> {
    s.map(|text| {
        typed(field, text)
            .parse::<f64>()
            .map_err(|_| AppError::not_a_number(field, text, a_number(field)))
    })
    .transpose()
}

/// A decimal the user typed.
pub fn decimal(field: &str, s: Option<&str>) -> Result<Option<Decimal>, AppError> {
    s.map(|t| {
        Decimal::from_str(&typed(field, t))
            .map_err(|_| AppError::not_a_number(field, t, a_number(field)))
    })
    .transpose()
}

/// `text` as people type it, with the units `field` may carry.
fn typed(field: &str, text: &str) -> String {
    use gpuplan_usecases::userdata::{as_typed, units_of};
    as_typed(text, units_of(field))
}

impl JobArgs {
    /// Flags that describe a job for the estimator: with `--hours` and no
    /// `--model` nothing would read them, so giving them is an error rather
    /// than a silently ignored flag.
    fn estimator_flags(&self) -> Vec<&'static str> {
        let given = [
            ("--batch", self.batch.is_some()),
            ("--resolution", self.resolution.is_some()),
            ("--seq-len", self.seq_len.is_some()),
            ("--classes", self.classes.is_some()),
            ("--precision", self.precision.is_some()),
            ("--optimizer", self.optimizer.is_some()),
            ("--mode", self.mode.is_some()),
            ("--lora-rank", self.lora_rank.is_some()),
            ("--lora-targets", self.lora_targets.is_some()),
            ("--grad-checkpointing", self.grad_checkpointing),
            ("--no-grad-checkpointing", self.no_grad_checkpointing),
            ("--dataset-samples", self.dataset_samples.is_some()),
            ("--dataset", self.dataset.is_some()),
            ("--num-workers", self.num_workers.is_some()),
            ("--eval-every-epochs", self.eval_every_epochs.is_some()),
            ("--val-samples", self.val_samples.is_some()),
            ("--save-every-epochs", self.save_every_epochs.is_some()),
            ("--compile", self.compile),
            ("--channels-last", self.channels_last),
            ("--selective-checkpointing", self.selective_checkpointing),
            ("--optimizer-in-backward", self.optimizer_in_backward),
            ("--activation-offload", self.activation_offload),
            ("--no-qlora-upcast", self.no_qlora_upcast),
            ("--base-fp32", self.base_fp32),
            ("--tf32", self.tf32),
            ("--attention", self.attention.is_some()),
            ("--keep-grads", self.keep_grads),
            ("--ema", self.ema),
            ("--chunked-loss", self.chunked_loss),
            ("--engine", self.engine.is_some()),
            ("--load-in-8bit", self.load_in_8bit),
            ("--no-double-quant", self.no_double_quant),
            ("--offload", self.offload),
            ("--pcie-gbps", self.pcie_gbps.is_some()),
        ];
        given
            .iter()
            .filter(|(_, on)| *on)
            .map(|(f, _)| *f)
            .collect()
    }

    /// The job these flags describe.
    pub fn spec(&self) -> Result<JobSpec, AppError> {
        if self.hours.is_some() && self.model.is_none() {
            if let Some(flag) = self.estimator_flags().first() {
                return Err(AppError::input(
                    flag,
                    format!("describes a job for the estimator, but --hours without --model estimates nothing, so {flag} would be ignored"),
                    format!("omit {flag}, or give --model (with --hours, the model is checked for memory)"),
                ).said(gpuplan_core::Message::new("error.ignoredWithHours").with("flag", flag), Some(gpuplan_core::Message::new("allowed.ignoredWithHours").with("flag", flag))));
            }
        }
        // `--resolution 512x256` is width x height (also written 512×256,
        // 512*256 or in full-width letters, with or without px); a single
        // number is square.
        let resolution = match self.resolution.as_deref().map(|r| {
            r.trim()
                .to_lowercase()
                .replace("px", "")
                .replace("像素", "")
                .replace(['×', '*', 'ｘ', '＊'], "x")
        }) {
            Some(r) if r.contains('x') => {
                let (w, h) = r.split_once('x').unwrap_or(("", ""));
                (
                    number("resolution", Some(w.trim()))?,
                    number("image_height", Some(h.trim()))?,
                )
            }
            Some(r) => (number("resolution", Some(r.trim()))?, None),
            None => (None, None),
        };
        Ok(JobSpec {
            model: self.model.clone(),
            hours: decimal("hours", self.hours.as_deref())?,
            batch: number("batch", self.batch.as_deref())?,
            resolution: resolution.0,
            image_height: resolution.1,
            seq_len: number("seq_len", self.seq_len.as_deref())?,
            classes: number("classes", self.classes.as_deref())?,
            precision: self
                .precision
                .as_deref()
                .map(Precision::parse)
                .transpose()?,
            optimizer: self
                .optimizer
                .as_deref()
                .map(Optimizer::parse)
                .transpose()?,
            mode: self.mode.as_deref().map(Mode::parse).transpose()?,
            lora_rank: number("lora_rank", self.lora_rank.as_deref())?,
            lora_targets: self
                .lora_targets
                .as_deref()
                .map(LoraTarget::parse_list)
                .transpose()?,
            grad_checkpointing: match (self.grad_checkpointing, self.no_grad_checkpointing) {
                (true, _) => Some(true),
                (_, true) => Some(false),
                _ => None,
            },
            dataset_samples: number("dataset_samples", self.dataset_samples.as_deref())?,
            epochs: number("epochs", self.epochs.as_deref())?,
            dataset: self
                .dataset
                .as_deref()
                .map(DatasetKind::parse)
                .transpose()?,
            num_workers: number("num_workers", self.num_workers.as_deref())?,
            eval_every_epochs: number("eval_every_epochs", self.eval_every_epochs.as_deref())?,
            val_samples: number("val_samples", self.val_samples.as_deref())?,
            save_every_epochs: number("save_every_epochs", self.save_every_epochs.as_deref())?,
            compile: self.compile.then_some(true),
            channels_last: self.channels_last.then_some(true),
            selective_checkpointing: self.selective_checkpointing.then_some(true),
            optimizer_in_backward: self.optimizer_in_backward.then_some(true),
            activation_offload: self.activation_offload.then_some(true),
            qlora_upcast: self.no_qlora_upcast.then_some(false),
            base_fp32: self.base_fp32.then_some(true),
            tf32: self.tf32.then_some(true),
            attention: self
                .attention
                .as_deref()
                .map(AttentionImpl::parse)
                .transpose()?,
            keep_grads: self.keep_grads.then_some(true),
            ema: self.ema.then_some(true),
            chunked_loss: self.chunked_loss.then_some(true),
            load_in_8bit: self.load_in_8bit.then_some(true),
            double_quant: self.no_double_quant.then_some(false),
            gpus: number("gpus", self.gpus.as_deref())?,
            engine: self.engine.as_deref().map(Engine::parse).transpose()?,
            offload: self.offload.then_some(true),
            pcie_gbps: number("pcie_gbps", self.pcie_gbps.as_deref())?,
        })
    }
}

/// `gpuplan estimate`.
#[derive(Args)]
pub struct EstimateArgs {
    /// The job.
    #[command(flatten)]
    pub job: JobArgs,
    /// A Hugging Face config.json for a custom transformer (with --model custom).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// A GPU id to report on (and target fixes at).
    #[arg(long)]
    pub gpu: Option<String>,
    /// A platform id: time the run on its host (CPU cores, disk); default a
    /// typical 8-vCPU instance with a local SSD.
    #[arg(long)]
    pub platform: Option<String>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// `gpuplan recommend`.
#[derive(Args)]
pub struct RecommendArgs {
    /// first-demo, course-project, thesis-research or competition-sprint.
    #[arg(long)]
    pub stage: String,
    /// Budget, CNY.
    #[arg(long, allow_hyphen_values = true)]
    pub budget: Option<String>,
    /// Hours until results are needed.
    #[arg(long, allow_hyphen_values = true)]
    pub deadline_hours: Option<String>,
    /// The job: --hours of one run on an RTX 3090, or a --model to estimate.
    #[command(flatten)]
    pub job: JobArgs,
    /// How many runs (default 1).
    #[arg(long, default_value = "1", allow_hyphen_values = true)]
    pub runs: String,
    /// GB of data and checkpoints kept.
    #[arg(long, allow_hyphen_values = true)]
    pub storage_gb: Option<String>,
    /// Comfortable with Linux and SSH.
    #[arg(long)]
    pub linux: bool,
    /// Can write Slurm sbatch scripts.
    #[arg(long)]
    pub slurm: bool,
    /// Has a campus cluster account.
    #[arg(long)]
    pub campus: bool,
    /// Working from outside mainland China.
    #[arg(long)]
    pub abroad: bool,
    /// Needs data to persist between sessions.
    #[arg(long)]
    pub persistence: bool,
    /// The work tolerates interruption (spot instances are an option).
    #[arg(long)]
    pub interruptible: bool,
    /// Not certified as a student: list prices, no student discount or credit (the default assumes certification, as the app does).
    #[arg(long)]
    pub no_student: bool,
    /// How many options to show (default 10).
    #[arg(long, default_value_t = gpuplan_core::recommend::SHORTLIST as u64, value_parser = top)]
    pub top: u64,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// The most options `--top` lists.
pub const MAX_TOP: u64 = 10_000;

/// An hours flag of a script (`--max-hours 6h`, `--hours 2 小时`): read
/// as people type it, as every other hours field is.
fn typed_hours(s: &str) -> Result<f64, std::num::ParseFloatError> {
    typed("hours", s).parse()
}

/// `--top`: a whole number from 1 to [`MAX_TOP`]; a value outside says
/// the range ([`crate::usage::Range`]).
fn top(s: &str) -> Result<u64, crate::usage::Range> {
    let range = crate::usage::Range {
        min: 1,
        max: MAX_TOP,
    };
    match s.parse::<u64>() {
        Ok(n) if (range.min..=range.max).contains(&n) => Ok(n),
        _ => Err(range),
    }
}

impl RecommendArgs {
    /// The situation these flags describe.
    pub fn situation(&self) -> Result<Situation, AppError> {
        // With both, the model checks the memory on each card and the hours
        // (for an RTX 3090) set the run's length.
        let job = self.job.spec()?;
        let runs = number("runs", Some(&self.runs))?.unwrap_or(1.0);
        let max = gpuplan_core::plan::MAX_RUNS;
        if !(runs.is_finite() && runs >= 1.0 && runs <= f64::from(max) && runs.fract() == 0.0) {
            return Err(AppError::out_of_range(
                "runs",
                runs,
                (
                    format!("a whole number from 1 to {max}"),
                    gpuplan_core::Message::new("allowed.whole")
                        .with("min", 1)
                        .with("max", max),
                ),
            ));
        }
        // Each number to its own field's largest value (hours to a plan's
        // longest span, money and gigabytes to theirs).
        let amount = |field: &str, v: Option<&str>| -> Result<Option<Decimal>, AppError> {
            let max = if field == "deadline_hours" {
                u32::try_from(gpuplan_core::limits::MAX_HOURS).unwrap_or(u32::MAX)
            } else {
                10_000_000
            };
            v.map(|t| {
                gpuplan_usecases::userdata::parse_amount(
                    field,
                    t,
                    max,
                    gpuplan_usecases::userdata::MONEY_PLACES,
                )
            })
            .transpose()
        };
        Ok(Situation {
            stage: Stage::parse(&self.stage)?,
            budget: amount("budget", self.budget.as_deref())?,
            deadline_hours: amount("deadline_hours", self.deadline_hours.as_deref())?,
            linux: self.linux,
            slurm: self.slurm,
            mainland_china: !self.abroad,
            needs_persistence: self.persistence,
            campus_access: self.campus,
            interruptible: self.interruptible,
            student: !self.no_student,
            job,
            runs: runs as u32,
            storage_gb: amount("storage_gb", self.storage_gb.as_deref())?.unwrap_or_default(),
        })
    }
}

/// `gpuplan override`.
#[derive(Subcommand)]
pub enum OverrideAction {
    /// Set your price for a GPU on a platform.
    Set {
        /// Platform id.
        #[arg(long)]
        platform: String,
        /// GPU id.
        #[arg(long)]
        gpu: String,
        /// CNY per GPU-hour, the platform's list price (a student plan gets its discount on it).
        #[arg(long, allow_hyphen_values = true)]
        price: String,
        /// Where or when you saw it.
        #[arg(long, default_value = "")]
        note: String,
    },
    /// List your overrides.
    List {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Remove all your overrides.
    Clear,
}

/// `gpuplan pack`.
#[derive(Subcommand)]
pub enum PackAction {
    /// Write a course pack for a class.
    Export {
        /// Course name.
        #[arg(long)]
        name: String,
        /// Instructor.
        #[arg(long, default_value = "")]
        instructor: String,
        /// Platforms to include (ids; your overrides are applied). Repeatable.
        #[arg(long = "platform", required = true)]
        platforms: Vec<String>,
        /// Plan files whose jobs become presets. Repeatable.
        #[arg(long = "preset")]
        presets: Vec<PathBuf>,
        /// Budget cap per student, CNY.
        #[arg(long, allow_hyphen_values = true)]
        budget_cap: Option<String>,
        /// Measured runs students handed in (`gpuplan ledger runs --out`): the class's calibration. Takes several files (`--runs handed-in/*.json`) and repeats; a run handed in twice counts once.
        #[arg(long = "runs", num_args = 1..)]
        runs: Vec<PathBuf>,
        /// Output file.
        #[arg(long)]
        out: PathBuf,
        /// Replace the output file if it exists already.
        #[arg(long)]
        force: bool,
    },
    /// Validate and import a course pack.
    Import {
        /// The pack file.
        file: PathBuf,
    },
    /// List imported packs (a pack that no longer loads is shown with its error).
    List {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Remove an imported pack by its course name.
    Remove {
        /// The course name, as `pack list` shows it.
        name: String,
    },
}

/// `gpuplan plans`: the plans the app saves, in the same database.
#[derive(Subcommand)]
pub enum PlansAction {
    /// List the saved plans (the app's saved-plans screen), newest first.
    List {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Print a saved plan as a plan file (`gpuplan quote` reads it).
    Show {
        /// The plan's id (from `gpuplan plans list`).
        #[arg(value_parser = listed_id)]
        id: i64,
    },
    /// Write a saved plan to a plan file.
    Export {
        /// The plan's id (from `gpuplan plans list`).
        #[arg(value_parser = listed_id)]
        id: i64,
        /// Output file.
        #[arg(long)]
        out: PathBuf,
        /// Replace the output file if it exists already.
        #[arg(long)]
        force: bool,
    },
    /// Save a plan file as a new saved plan (the app lists it).
    Import {
        /// The plan file.
        file: PathBuf,
    },
    /// Delete a saved plan (its bills stay in the ledger).
    Delete {
        /// The plan's id (from `gpuplan plans list`).
        #[arg(value_parser = listed_id)]
        id: i64,
    },
}

/// `gpuplan ledger`.
#[derive(Subcommand)]
pub enum LedgerAction {
    /// List the bills in the ledger (the app's ledger screen), newest first, with the total.
    List {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Delete a bill (with its run report and measured run).
    Delete {
        /// The bill's id (from `gpuplan ledger list`).
        #[arg(value_parser = listed_id)]
        id: i64,
    },
    /// Import run reports (gpuplan-run-*.json) as ledger entries, matched to the saved plan they name.
    Import {
        /// Report files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// The real bill in CNY (one report only); without it the cost is the billing window at the platform's price.
        #[arg(long, allow_hyphen_values = true)]
        cost: Option<String>,
        /// The plan file the run came from (else the saved plan of the report's name): plan versus actual, and calibration.
        #[arg(long)]
        plan: Option<PathBuf>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Write your measured runs, anonymised (job, card, platform, time, memory; no names, paths or hosts), for your instructor's course pack.
    Runs {
        /// Output file.
        #[arg(long)]
        out: PathBuf,
        /// Replace the output file if it exists already.
        #[arg(long)]
        force: bool,
    },
}

/// `gpuplan script`.
#[derive(Subcommand)]
pub enum ScriptKind {
    /// Auto-shutdown wrapper: stops the instance when training ends, fails, times out or its shell dies.
    Shutdown {
        /// Platform id (decides the stop mechanism).
        #[arg(long)]
        platform: String,
        /// Job name (default: the --plan's model, else train).
        #[arg(long)]
        job_name: Option<String>,
        /// The training command.
        #[arg(long)]
        command: String,
        /// Hard maximum runtime in hours (default: from --plan with margin, else 12).
        #[arg(long, allow_hyphen_values = true, value_parser = typed_hours)]
        max_hours: Option<f64>,
        /// A plan file whose longest run sets the maximum runtime (with 50% + 30 min margin).
        #[arg(long)]
        plan: Option<PathBuf>,
        /// Vast.ai: destroy instead of stop (deletes the disk).
        #[arg(long)]
        destroy: bool,
    },
    /// Slurm sbatch script (with --requeue: resume after the walltime).
    Slurm(Box<SlurmArgs>),
    /// Environment probe and install order.
    Probe,
    /// Offline wheel bundle: download where the network is good, install on the instance.
    OfflineInstall {
        /// Python version of the instance (default 3.10).
        #[arg(long)]
        python: Option<String>,
    },
    /// Resumable PyTorch training template.
    Resume {
        /// Checkpoint every N epochs (default 5).
        #[arg(long)]
        every: Option<u32>,
        /// A plan file: its spot checkpoint interval (spot.checkpoint_every_epochs), so the quote and the script agree.
        #[arg(long)]
        plan: Option<PathBuf>,
    },
    /// Multi-GPU launch configs for a plan whose job has `gpus` of 2 or more.
    Launch {
        /// The plan file.
        #[arg(long)]
        plan: PathBuf,
        /// The training command as run on one GPU.
        #[arg(long)]
        command: String,
        /// Which file: launch (torchrun/accelerate script, the default), accelerate
        /// (config), deepspeed (ZeRO JSON) or slurm (multi-GPU sbatch).
        #[arg(long, default_value = "launch")]
        config: String,
    },
    /// The run-report module, gpuplan_report.py: a notebook's run report, and PyTorch's memory for a wrapped job.
    Report {
        /// A plan file: its name and job, so the report matches the plan on import.
        #[arg(long)]
        plan: Option<PathBuf>,
        /// Platform id (default: the --plan's).
        #[arg(long)]
        platform: Option<String>,
    },
    /// Pre-rental checklist for a platform (and a plan).
    Checklist {
        /// Platform id.
        #[arg(long)]
        platform: String,
        /// A plan file to tailor it to.
        #[arg(long)]
        plan: Option<PathBuf>,
    },
}

/// `gpuplan script slurm`; omitted options take the use cases' defaults.
#[derive(Args)]
pub struct SlurmArgs {
    /// Job name.
    #[arg(long)]
    pub job_name: String,
    /// Partition (default: gpu).
    #[arg(long)]
    pub partition: Option<String>,
    /// GPUs (default: the plan's, else 1).
    #[arg(long)]
    pub gpus: Option<u32>,
    /// CPU cores (default 8).
    #[arg(long)]
    pub cpus: Option<u32>,
    /// Memory, GB (default 32).
    #[arg(long)]
    pub mem_gb: Option<u32>,
    /// Estimated hours of the run (walltime adds margin); or --plan.
    #[arg(long, allow_hyphen_values = true, value_parser = typed_hours)]
    pub hours: Option<f64>,
    /// A plan file whose longest run sets the walltime.
    #[arg(long)]
    pub plan: Option<PathBuf>,
    /// The cluster's walltime cap in hours (default: the campus profile's).
    #[arg(long, allow_hyphen_values = true, value_parser = typed_hours)]
    pub cap_hours: Option<f64>,
    /// Log path (default: %x-%j.out, in the folder sbatch runs from; Slurm creates no folders).
    #[arg(long)]
    pub output: Option<String>,
    /// conda:ENV or module:NAME, repeatable, in order.
    #[arg(long)]
    pub activate: Vec<String>,
    /// The training command.
    #[arg(long)]
    pub command: String,
    /// Requeue-on-timeout variant.
    #[arg(long)]
    pub requeue: bool,
}

impl SlurmArgs {
    /// The use case's request, with the plan file already read.
    pub fn request<'a>(&'a self, plan: Option<&'a Plan>) -> SlurmRequest<'a> {
        SlurmRequest {
            job_name: &self.job_name,
            partition: self.partition.as_deref(),
            gpus: self.gpus,
            cpus: self.cpus,
            mem_gb: self.mem_gb,
            hours: self.hours,
            plan,
            cap_hours: self.cap_hours,
            output: self.output.as_deref(),
            activate: self.activate.clone(),
            command: &self.command,
            requeue: self.requeue,
        }
    }
}

/// An id as a list prints it: `4` or `#4`.
fn listed_id(s: &str) -> Result<i64, std::num::ParseIntError> {
    s.trim().trim_start_matches('#').parse()
}
