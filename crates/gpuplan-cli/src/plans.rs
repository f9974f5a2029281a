//! The planning commands: platforms, quote, recommend, override, pack.

use std::path::PathBuf;

use clap::{Args, Subcommand};
use gpuplan_core::pack::{CoursePack, PackInfo, Preset, PriceOverride};
use gpuplan_core::plan::{Plan, PlanJob};
use gpuplan_core::quote::quote as price;
use gpuplan_core::recommend::{recommend as rank, Situation, Stage};
use gpuplan_core::{GpuCatalog, InputError, ModelZoo};
use rust_decimal::Decimal;

use crate::i18n::Lang;
use crate::{number, render, userdata, Failure};

fn io(message: String) -> Failure {
    Failure { code: 1, message }
}

fn money(field: &str, s: &Option<String>) -> Result<Option<Decimal>, Failure> {
    s.as_ref()
        .map(|t| {
            t.trim().parse::<Decimal>().map_err(|_| {
                InputError::new(
                    field,
                    format!("`{t}` is not a number"),
                    "a decimal number such as 2.5",
                )
                .into()
            })
        })
        .transpose()
}

pub fn platforms(json: bool, lang: Lang, catalog: &GpuCatalog) -> Result<String, Failure> {
    let (set, _) = userdata::platforms(catalog)?;
    Ok(if json {
        render::json(&set)
    } else {
        render::platforms(&set, lang)
    })
}

pub fn quote(
    path: &PathBuf,
    json: bool,
    lang: Lang,
    catalog: &GpuCatalog,
    zoo: &ModelZoo,
) -> Result<String, Failure> {
    let text = std::fs::read_to_string(path).map_err(|e| Failure {
        code: 2,
        message: format!("plan: cannot read {}: {e}", path.display()),
    })?;
    if text.len() > 1_048_576 {
        return Err(InputError::new("plan", "the file is larger than 1 MB", "a plan file").into());
    }
    let plan = Plan::from_toml(&path.display().to_string(), &text)?;
    let (set, _) = userdata::platforms(catalog)?;
    let profile = set.get(&plan.platform)?;
    let q = price(&plan, profile, catalog, zoo)?;
    Ok(if json {
        render::json(&q)
    } else {
        render::quote(&q, lang)
    })
}

#[derive(Args)]
pub struct RecommendArgs {
    /// first-demo, course-project, thesis-research or competition-sprint.
    #[arg(long)]
    stage: String,
    /// Budget, CNY.
    #[arg(long, allow_hyphen_values = true)]
    budget: Option<String>,
    /// Hours until results are needed.
    #[arg(long, allow_hyphen_values = true)]
    deadline_hours: Option<String>,
    /// Hours of one run on an RTX 3090 (or give --model with --dataset-samples and --epochs).
    #[arg(long, allow_hyphen_values = true)]
    hours: Option<String>,
    /// Zoo model id, to estimate the time on each card.
    #[arg(long)]
    model: Option<String>,
    /// Samples per step (with --model).
    #[arg(long, allow_hyphen_values = true)]
    batch: Option<String>,
    /// Tokens per sequence (with --model).
    #[arg(long, allow_hyphen_values = true)]
    seq_len: Option<String>,
    /// Image side (with --model).
    #[arg(long, allow_hyphen_values = true)]
    resolution: Option<String>,
    /// Output classes (with --model).
    #[arg(long, allow_hyphen_values = true)]
    classes: Option<String>,
    /// sgd, adam, adamw or adamw-8bit (with --model).
    #[arg(long)]
    optimizer: Option<String>,
    /// LoRA rank (with --mode lora or qlora).
    #[arg(long, allow_hyphen_values = true)]
    lora_rank: Option<String>,
    /// train, lora, qlora or infer (with --model).
    #[arg(long)]
    mode: Option<String>,
    /// fp32, fp16-amp, bf16-amp or bf16 (with --model).
    #[arg(long)]
    precision: Option<String>,
    /// Samples per epoch (with --model).
    #[arg(long, allow_hyphen_values = true)]
    dataset_samples: Option<String>,
    /// Epochs per run (with --model).
    #[arg(long, allow_hyphen_values = true)]
    epochs: Option<String>,
    /// How many runs.
    #[arg(long, default_value = "1", allow_hyphen_values = true)]
    runs: String,
    /// GB of data and checkpoints kept.
    #[arg(long, allow_hyphen_values = true)]
    storage_gb: Option<String>,
    /// Comfortable with Linux and SSH.
    #[arg(long)]
    linux: bool,
    /// Can write Slurm sbatch scripts.
    #[arg(long)]
    slurm: bool,
    /// Has a campus cluster account.
    #[arg(long)]
    campus: bool,
    /// Working from outside mainland China.
    #[arg(long)]
    abroad: bool,
    /// Needs data to persist between sessions.
    #[arg(long)]
    persistence: bool,
    /// The work tolerates interruption (spot instances are an option).
    #[arg(long)]
    interruptible: bool,
    /// How many options to show.
    #[arg(long, default_value_t = 8)]
    top: usize,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

pub fn recommend(
    a: &RecommendArgs,
    lang: Lang,
    catalog: &GpuCatalog,
    zoo: &ModelZoo,
) -> Result<String, Failure> {
    let runs = number("runs", &Some(a.runs.clone()))?.unwrap_or(1.0);
    if !(runs.is_finite() && (1.0..=100_000.0).contains(&runs) && runs.fract() == 0.0) {
        return Err(InputError::new(
            "runs",
            format!("{runs} is out of range"),
            "a whole number in 1..=100000",
        )
        .into());
    }
    let job = PlanJob {
        hours: money("hours", &a.hours)?,
        model: a.model.clone(),
        batch: number("batch", &a.batch)?,
        seq_len: number("seq_len", &a.seq_len)?,
        resolution: number("resolution", &a.resolution)?,
        classes: number("classes", &a.classes)?,
        optimizer: a
            .optimizer
            .as_deref()
            .map(gpuplan_core::Optimizer::parse)
            .transpose()?,
        lora_rank: number("lora_rank", &a.lora_rank)?,
        grad_checkpointing: Some(false),
        mode: a
            .mode
            .as_deref()
            .map(gpuplan_core::Mode::parse)
            .transpose()?,
        precision: a
            .precision
            .as_deref()
            .map(gpuplan_core::Precision::parse)
            .transpose()?,
        dataset_samples: number("dataset_samples", &a.dataset_samples)?,
        epochs: number("epochs", &a.epochs)?,
    };
    if let Some(h) = job.hours {
        if h <= Decimal::ZERO || h > Decimal::from(87_600) {
            return Err(InputError::new(
                "hours",
                format!("{h} is out of range"),
                "a number of hours in (0, 87600]",
            )
            .into());
        }
    }
    for (field, v) in [
        ("budget", money("budget", &a.budget)?),
        (
            "deadline_hours",
            money("deadline_hours", &a.deadline_hours)?,
        ),
        ("storage_gb", money("storage_gb", &a.storage_gb)?),
    ] {
        if v.is_some_and(|v| v < Decimal::ZERO || v > Decimal::from(10_000_000)) {
            return Err(
                InputError::new(field, "is out of range", "a number in 0..=10000000").into(),
            );
        }
    }
    let s = Situation {
        stage: Stage::parse(&a.stage)?,
        budget: money("budget", &a.budget)?,
        deadline_hours: money("deadline_hours", &a.deadline_hours)?,
        linux: a.linux,
        slurm: a.slurm,
        mainland_china: !a.abroad,
        needs_persistence: a.persistence,
        campus_access: a.campus,
        interruptible: a.interruptible,
        student: true,
        job,
        runs: runs as u32,
        storage_gb: money("storage_gb", &a.storage_gb)?.unwrap_or(Decimal::ZERO),
    };
    let (set, _) = userdata::platforms(catalog)?;
    let mut r = rank(&s, &set, catalog, zoo)?;
    r.options.truncate(a.top.max(1));
    Ok(if a.json {
        render::json(&r)
    } else {
        render::recommendation(&r, lang)
    })
}

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
        /// CNY per GPU-hour.
        #[arg(long, allow_hyphen_values = true)]
        price: String,
        /// Where or when you saw it.
        #[arg(long, default_value = "")]
        note: String,
    },
    /// List your overrides.
    List,
    /// Remove all your overrides.
    Clear,
}

pub fn override_cmd(action: &OverrideAction, catalog: &GpuCatalog) -> Result<String, Failure> {
    let path = userdata::overrides_path();
    match action {
        OverrideAction::Set {
            platform,
            gpu,
            price: p,
            note,
        } => {
            let price = money("price", &Some(p.clone()))?.unwrap_or_default();
            if price < Decimal::ZERO || price > Decimal::from(10_000) {
                return Err(InputError::new(
                    "price",
                    format!("{price} is out of range"),
                    "0..=10000 CNY per hour",
                )
                .into());
            }
            let (set, _) = userdata::platforms(catalog)?;
            let offer = set.get(platform)?.offer(gpu, catalog)?;
            let mut o = userdata::read_overrides()?;
            o.set(PriceOverride {
                platform: platform.to_ascii_lowercase(),
                gpu: offer.gpu.clone(),
                price_per_hour: price,
                note: note.chars().take(200).collect(),
            });
            userdata::write_atomic(&path, &o.to_toml())?;
            Ok(format!(
                "{} / {} = {price} CNY/h ({})",
                platform,
                offer.gpu,
                path.display()
            ))
        }
        OverrideAction::List => Ok(userdata::read_overrides()?.to_toml()),
        OverrideAction::Clear => {
            if path.exists() {
                std::fs::remove_file(&path).map_err(|e| io(format!("{}: {e}", path.display())))?;
            }
            Ok(String::new())
        }
    }
}

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
        /// Output file.
        #[arg(long)]
        out: PathBuf,
    },
    /// Validate and import a course pack.
    Import {
        /// The pack file.
        file: PathBuf,
    },
    /// List imported packs.
    List,
}

pub fn pack_cmd(action: &PackAction, catalog: &GpuCatalog) -> Result<String, Failure> {
    match action {
        PackAction::Export {
            name,
            instructor,
            platforms,
            presets,
            budget_cap,
            out,
        } => {
            let (set, _) = userdata::platforms(catalog)?;
            let profiles = platforms
                .iter()
                .map(|id| set.get(id).cloned())
                .collect::<Result<Vec<_>, _>>()?;
            let mut preset_list = Vec::new();
            for path in presets {
                let text = std::fs::read_to_string(path).map_err(|e| Failure {
                    code: 2,
                    message: format!("preset: cannot read {}: {e}", path.display()),
                })?;
                let plan = Plan::from_toml(&path.display().to_string(), &text)?;
                let runs = plan.runs.iter().map(|r| r.count).sum::<u32>().max(1);
                preset_list.push(Preset {
                    name: plan.name,
                    job: plan.job,
                    runs,
                });
            }
            let pack = CoursePack {
                pack: PackInfo {
                    name: name.clone(),
                    instructor: instructor.clone(),
                    budget_cap: money("budget_cap", budget_cap)?,
                    default_platform: profiles.first().map(|p| p.id.clone()),
                },
                platforms: profiles,
                presets: preset_list,
            };
            let text = pack.to_toml();
            // Prove the pack imports before handing it to a class.
            CoursePack::from_toml(&out.display().to_string(), &text, catalog)?;
            userdata::write_atomic(out, &text)?;
            Ok(format!("{}", out.display()))
        }
        PackAction::Import { file } => {
            let text = std::fs::read_to_string(file).map_err(|e| Failure {
                code: 2,
                message: format!("pack: cannot read {}: {e}", file.display()),
            })?;
            let pack = CoursePack::from_toml(&file.display().to_string(), &text, catalog)?;
            // The stored name is derived from the course name, never from a path in the pack.
            let slug: String = pack
                .pack
                .name
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() {
                        c.to_ascii_lowercase()
                    } else {
                        '-'
                    }
                })
                .collect::<String>()
                .trim_matches('-')
                .chars()
                .take(60)
                .collect();
            let slug = if slug.is_empty() {
                "pack".to_owned()
            } else {
                slug
            };
            let dest = userdata::packs_dir().join(format!("{slug}.toml"));
            userdata::write_atomic(&dest, &text)?;
            Ok(format!(
                "{} -> {} ({} platforms, {} presets)",
                pack.pack.name,
                dest.display(),
                pack.platforms.len(),
                pack.presets.len()
            ))
        }
        PackAction::List => {
            let packs = userdata::read_packs(catalog)?;
            Ok(packs
                .iter()
                .map(|p| {
                    format!(
                        "{} ({} platforms, {} presets)",
                        p.pack.name,
                        p.platforms.len(),
                        p.presets.len()
                    )
                })
                .collect::<Vec<_>>()
                .join("\n"))
        }
    }
}
