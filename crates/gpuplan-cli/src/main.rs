//! `gpuplan`: the command line over gpuplan-core.
//!
//! Subcommands: `estimate` (will a job fit each rentable GPU, and how long will
//! it take), `models` and `gpus` (what the bundled zoo and catalog hold),
//! `platforms`, `quote` (price a plan file), `recommend` (rank platform x GPU
//! options), `override` (the user's own prices) and `pack` (course packs). Human
//! output is a table in Chinese or English; `--json` prints the stable schema
//! documented in `docs/cli.md`. Bad input exits with code 2 and a message that
//! names the field and its allowed range.

mod i18n;
mod kit;
mod plans;
mod render;
mod userdata;

use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use gpuplan_core::job::{LoraTarget, Mode, Optimizer, Precision};
use gpuplan_core::zoo::{from_hf_config, Model, ZooEntry};
use gpuplan_core::{estimate, GpuCatalog, InputError, JobRequest, ModelZoo};

use crate::i18n::Lang;

#[derive(Parser)]
#[command(
    name = "gpuplan",
    version,
    about = "Plan where and how to rent a GPU for a deep-learning job / 租卡规划"
)]
struct Cli {
    /// Output language (default: from the locale).
    #[arg(long, global = true, value_enum)]
    lang: Option<Lang>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
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
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Price a plan file (format: docs/plans.md, examples/*.toml).
    Quote {
        /// The plan file.
        plan: std::path::PathBuf,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Rank platform x GPU options for your situation and job.
    Recommend(Box<plans::RecommendArgs>),
    /// Your own prices, kept apart from the bundled data.
    Override {
        #[command(subcommand)]
        action: plans::OverrideAction,
    },
    /// Course packs: export one for a class, or import one.
    Pack {
        #[command(subcommand)]
        action: plans::PackAction,
    },
    /// Before-you-rent scripts: shutdown wrapper, Slurm, probe, offline install, resume template, checklist.
    Script {
        #[command(subcommand)]
        kind: kit::ScriptKind,
    },
}

// Numbers are taken as text and parsed by the core so that "-1", "NaN" or
// "1e9" get the same clear, field-naming message as every other bad value.
#[derive(Args)]
struct EstimateArgs {
    /// Model id from `gpuplan models` (or `custom` with --config).
    #[arg(long)]
    model: String,
    /// A Hugging Face config.json for a custom transformer (with --model custom).
    #[arg(long)]
    config: Option<std::path::PathBuf>,
    /// Samples (sequences) per step.
    #[arg(long, allow_hyphen_values = true)]
    batch: Option<String>,
    /// Image side in pixels (vision models).
    #[arg(long, allow_hyphen_values = true)]
    resolution: Option<String>,
    /// Tokens per sequence (transformers).
    #[arg(long, allow_hyphen_values = true)]
    seq_len: Option<String>,
    /// Output classes.
    #[arg(long, allow_hyphen_values = true)]
    classes: Option<String>,
    /// fp32, fp16-amp, bf16-amp or bf16.
    #[arg(long)]
    precision: Option<String>,
    /// sgd, adam, adamw or adamw-8bit.
    #[arg(long)]
    optimizer: Option<String>,
    /// train, lora, qlora or infer.
    #[arg(long)]
    mode: Option<String>,
    /// LoRA rank (with --mode lora or qlora).
    #[arg(long, allow_hyphen_values = true)]
    lora_rank: Option<String>,
    /// LoRA targets, e.g. `q,v` (default) or `all`.
    #[arg(long)]
    lora_targets: Option<String>,
    /// Gradient checkpointing.
    #[arg(long)]
    grad_checkpointing: bool,
    /// Samples in the dataset (for time per epoch).
    #[arg(long, allow_hyphen_values = true)]
    dataset_samples: Option<String>,
    /// Epochs (for time per run).
    #[arg(long, allow_hyphen_values = true)]
    epochs: Option<String>,
    /// A GPU id to report on (and target fixes at).
    #[arg(long)]
    gpu: Option<String>,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

pub(crate) fn number(field: &str, s: &Option<String>) -> Result<Option<f64>, InputError> {
    match s {
        None => Ok(None),
        Some(text) => {
            text.trim().parse::<f64>().map(Some).map_err(|_| {
                InputError::new(field, format!("`{text}` is not a number"), "a number")
            })
        }
    }
}

fn bundled() -> Result<(GpuCatalog, ModelZoo), gpuplan_core::DataError> {
    let catalog = GpuCatalog::from_toml("data/gpus.toml", gpuplan_data::GPUS_TOML)?;
    let zoo = ModelZoo::from_toml(
        ("data/models/vision.toml", gpuplan_data::VISION_MODELS_TOML),
        (
            "data/models/transformers.toml",
            gpuplan_data::TRANSFORMER_MODELS_TOML,
        ),
    )?;
    Ok((catalog, zoo))
}

/// A failure and its exit code: 2 for bad input, 1 for anything else.
pub(crate) struct Failure {
    pub(crate) code: u8,
    pub(crate) message: String,
}

impl From<gpuplan_core::DataError> for Failure {
    fn from(e: gpuplan_core::DataError) -> Self {
        Failure {
            code: 2,
            message: e.to_string(),
        }
    }
}

impl From<InputError> for Failure {
    fn from(e: InputError) -> Self {
        Failure {
            code: 2,
            message: e.to_string(),
        }
    }
}

fn run_estimate(
    a: &EstimateArgs,
    lang: Lang,
    catalog: &GpuCatalog,
    zoo: &ModelZoo,
) -> Result<String, Failure> {
    let custom;
    let entry: &ZooEntry = match (&a.config, a.model.as_str()) {
        (Some(path), _) => {
            let text = std::fs::read_to_string(path).map_err(|e| Failure {
                code: 2,
                message: format!("config: cannot read {}: {e}", path.display()),
            })?;
            if text.len() > 1_000_000 {
                return Err(InputError::new(
                    "config",
                    "file is larger than 1 MB",
                    "a Hugging Face config.json",
                )
                .into());
            }
            custom = ZooEntry {
                id: a.model.to_ascii_lowercase(),
                model: Model::Transformer(from_hf_config(&text)?),
            };
            &custom
        }
        (None, id) => zoo.get(id)?,
    };
    let req = JobRequest {
        batch: number("batch", &a.batch)?,
        resolution: number("resolution", &a.resolution)?,
        seq_len: number("seq_len", &a.seq_len)?,
        classes: number("classes", &a.classes)?,
        precision: a.precision.as_deref().map(Precision::parse).transpose()?,
        optimizer: a.optimizer.as_deref().map(Optimizer::parse).transpose()?,
        mode: a.mode.as_deref().map(Mode::parse).transpose()?,
        lora_rank: number("lora_rank", &a.lora_rank)?,
        lora_targets: a
            .lora_targets
            .as_deref()
            .map(LoraTarget::parse_list)
            .transpose()?,
        grad_checkpointing: Some(a.grad_checkpointing),
        dataset_samples: number("dataset_samples", &a.dataset_samples)?,
        epochs: number("epochs", &a.epochs)?,
    };
    let job = req.resolve(entry)?;
    let gpu = a.gpu.as_deref().map(|id| catalog.get(id)).transpose()?;
    if let Some(g) = gpu {
        if job.precision.needs_bf16() && !g.supports_bf16() {
            return Err(InputError::new(
                "precision",
                format!(
                    "{} needs bfloat16, which {} ({:?}) lacks",
                    precision_name(job.precision),
                    g.id,
                    g.spec.generation
                ),
                "fp32 or fp16-amp on this GPU; bf16 needs an Ampere or newer card",
            )
            .into());
        }
    }
    let est = estimate(entry, &job, catalog, gpu);
    let report = est.report(entry.model.name(), gpu.map(|g| g.id.as_str()));
    if a.json {
        serde_json::to_string_pretty(&report).map_err(|e| Failure {
            code: 1,
            message: e.to_string(),
        })
    } else {
        Ok(render::estimate(&report, lang))
    }
}

fn precision_name(p: Precision) -> &'static str {
    match p {
        Precision::Fp32 => "fp32",
        Precision::Fp16Amp => "fp16-amp",
        Precision::Bf16Amp => "bf16-amp",
        Precision::Bf16 => "bf16",
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let lang = cli.lang.unwrap_or_else(Lang::from_locale);
    let (catalog, zoo) = match bundled() {
        Ok(d) => d,
        Err(e) => {
            eprintln!("gpuplan: bundled data is invalid: {e}");
            return ExitCode::from(1);
        }
    };
    let result = match &cli.command {
        Command::Estimate(a) => run_estimate(a, lang, &catalog, &zoo),
        Command::Models { json } => Ok(if *json {
            render::json(&zoo)
        } else {
            render::models(&zoo, lang)
        }),
        Command::Gpus { json } => Ok(if *json {
            render::json(&catalog)
        } else {
            render::gpus(&catalog, lang)
        }),
        Command::Platforms { json } => plans::platforms(*json, lang, &catalog),
        Command::Quote { plan, json } => plans::quote(plan, *json, lang, &catalog, &zoo),
        Command::Recommend(a) => plans::recommend(a, lang, &catalog, &zoo),
        Command::Override { action } => plans::override_cmd(action, &catalog),
        Command::Pack { action } => plans::pack_cmd(action, &catalog),
        Command::Script { kind } => kit::script(kind, lang, &catalog, &zoo),
    };
    match result {
        Ok(out) => {
            println!("{out}");
            ExitCode::SUCCESS
        }
        Err(f) => {
            eprintln!(
                "gpuplan: {}: {}",
                i18n::t(lang, i18n::Msg::ErrorPrefix),
                f.message
            );
            ExitCode::from(f.code)
        }
    }
}
