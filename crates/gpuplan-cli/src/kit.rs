//! `gpuplan script KIND`: the before-you-rent kit on the command line.

use std::path::PathBuf;

use clap::Subcommand;
use gpuplan_core::plan::Plan;
use gpuplan_core::quote::quote as price;
use gpuplan_core::scripts::{self, ShutdownSpec, SlurmSpec, StopMechanism};
use gpuplan_core::{GpuCatalog, InputError, ModelZoo};
use rust_decimal::prelude::ToPrimitive;

use crate::i18n::Lang;
use crate::{userdata, Failure};

#[derive(Subcommand)]
pub enum ScriptKind {
    /// Auto-shutdown wrapper: stops the instance when training ends, fails, times out or its shell dies.
    Shutdown {
        /// Platform id (decides the stop mechanism).
        #[arg(long)]
        platform: String,
        /// Job name.
        #[arg(long, default_value = "train")]
        job_name: String,
        /// The training command.
        #[arg(long)]
        command: String,
        /// Hard maximum runtime in hours (default: from --plan with margin, else 12).
        #[arg(long, allow_hyphen_values = true)]
        max_hours: Option<f64>,
        /// A plan file whose longest run sets the maximum runtime (with 50% + 30 min margin).
        #[arg(long)]
        plan: Option<PathBuf>,
        /// Vast.ai: destroy instead of stop (deletes the disk).
        #[arg(long)]
        destroy: bool,
    },
    /// Slurm sbatch script (with --requeue: resume after the walltime).
    Slurm {
        /// Job name.
        #[arg(long)]
        job_name: String,
        /// Partition.
        #[arg(long, default_value = "gpu")]
        partition: String,
        /// GPUs.
        #[arg(long, default_value_t = 1)]
        gpus: u32,
        /// CPU cores.
        #[arg(long, default_value_t = 8)]
        cpus: u32,
        /// Memory, GB.
        #[arg(long, default_value_t = 32)]
        mem_gb: u32,
        /// Estimated hours of the run (walltime adds margin); or --plan.
        #[arg(long, allow_hyphen_values = true)]
        hours: Option<f64>,
        /// A plan file whose longest run sets the walltime.
        #[arg(long)]
        plan: Option<PathBuf>,
        /// The cluster's walltime cap in hours (default: the campus profile's).
        #[arg(long, allow_hyphen_values = true)]
        cap_hours: Option<f64>,
        /// Log path.
        #[arg(long, default_value = "logs/%x-%j.out")]
        output: String,
        /// conda:ENV or module:NAME, repeatable, in order.
        #[arg(long)]
        activate: Vec<String>,
        /// The training command.
        #[arg(long)]
        command: String,
        /// Requeue-on-timeout variant.
        #[arg(long)]
        requeue: bool,
    },
    /// Environment probe and install order.
    Probe,
    /// Offline wheel bundle: download where the network is good, install on the instance.
    OfflineInstall {
        /// Python version of the instance.
        #[arg(long, default_value = "3.10")]
        python: String,
    },
    /// Resumable PyTorch training template.
    Resume {
        /// Checkpoint every N epochs.
        #[arg(long, default_value_t = 5)]
        every: u32,
        /// A plan file: its spot checkpoint interval (spot.checkpoint_every_epochs) wins, so the quote and the script agree.
        #[arg(long)]
        plan: Option<PathBuf>,
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

fn load_plan(
    path: &PathBuf,
    catalog: &GpuCatalog,
    zoo: &ModelZoo,
) -> Result<gpuplan_core::quote::Quote, Failure> {
    let text = std::fs::read_to_string(path).map_err(|e| Failure {
        code: 2,
        message: format!("plan: cannot read {}: {e}", path.display()),
    })?;
    let plan = Plan::from_toml(&path.display().to_string(), &text)?;
    let (set, _) = userdata::platforms(catalog)?;
    Ok(price(&plan, set.get(&plan.platform)?, catalog, zoo)?)
}

fn hours(field: &str, h: Option<f64>) -> Result<Option<f64>, Failure> {
    match h {
        Some(v) if !(v.is_finite() && v > 0.0 && v <= 24.0 * 60.0) => {
            Err(InputError::new(field, format!("{v} is out of range"), "hours in (0, 1440]").into())
        }
        v => Ok(v),
    }
}

pub fn script(
    kind: &ScriptKind,
    lang: Lang,
    catalog: &GpuCatalog,
    zoo: &ModelZoo,
) -> Result<String, Failure> {
    let notes = |n: &[gpuplan_core::platform::Localized]| {
        for x in n {
            eprintln!(
                "gpuplan: note: {}",
                if lang == Lang::Zh { &x.zh } else { &x.en }
            );
        }
    };
    match kind {
        ScriptKind::Shutdown {
            platform,
            job_name,
            command,
            max_hours,
            plan,
            destroy,
        } => {
            let (set, _) = userdata::platforms(catalog)?;
            let p = set.get(platform)?;
            let mechanism = StopMechanism::for_platform(p).ok_or_else(|| {
                InputError::new(
                    "platform",
                    format!(
                        "{} has no instance to stop (sessions or Slurm jobs end by themselves)",
                        p.id
                    ),
                    "a container cloud or marketplace",
                )
            })?;
            let max_runtime_seconds = match (hours("max_hours", *max_hours)?, plan) {
                (Some(h), _) => (h * 3600.0).ceil() as u64,
                (None, Some(path)) => scripts::with_margin(
                    load_plan(path, catalog, zoo)?
                        .longest_run_hours
                        .to_f64()
                        .unwrap_or(1.0),
                ),
                (None, None) => 12 * 3600,
            };
            Ok(scripts::shutdown_wrapper(&ShutdownSpec {
                platform: p.id.clone(),
                mechanism,
                job_name: job_name.clone(),
                command: command.clone(),
                max_runtime_seconds,
                destroy: *destroy,
                poll_seconds: 30,
            })?)
        }
        ScriptKind::Slurm {
            job_name,
            partition,
            gpus,
            cpus,
            mem_gb,
            hours: h,
            plan,
            cap_hours,
            output,
            activate,
            command,
            requeue,
        } => {
            let run_hours = match (hours("hours", *h)?, plan) {
                (Some(h), _) => h,
                (None, Some(path)) => load_plan(path, catalog, zoo)?
                    .longest_run_hours
                    .to_f64()
                    .unwrap_or(1.0),
                (None, None) => {
                    return Err(InputError::new(
                        "hours",
                        "give --hours or --plan",
                        "hours of one run",
                    )
                    .into())
                }
            };
            let cap = match hours("cap_hours", *cap_hours)? {
                Some(c) => Some(c),
                None => {
                    let (set, _) = userdata::platforms(catalog)?;
                    set.platforms
                        .iter()
                        .find(|p| p.kind == gpuplan_core::platform::PlatformKind::CampusHpc)
                        .and_then(|p| p.quota.walltime_max_hours.as_ref())
                        .and_then(|c| c.value.to_f64())
                }
            };
            let s = scripts::slurm(&SlurmSpec {
                job_name: job_name.clone(),
                partition: partition.clone(),
                gpus: *gpus,
                cpus: *cpus,
                mem_gb: *mem_gb,
                hours: run_hours,
                cap_hours: cap,
                output: output.clone(),
                activate: activate.clone(),
                command: command.clone(),
                requeue: *requeue,
            })?;
            notes(&s.notes);
            Ok(s.text)
        }
        ScriptKind::Probe => Ok(scripts::env_probe().text),
        ScriptKind::OfflineInstall { python } => Ok(scripts::offline_install(python)?.text),
        ScriptKind::Resume { every, plan } => {
            let mut n = *every;
            if let Some(path) = plan {
                let text = std::fs::read_to_string(path).map_err(|e| Failure {
                    code: 2,
                    message: format!("plan: cannot read {}: {e}", path.display()),
                })?;
                let p = Plan::from_toml(&path.display().to_string(), &text)?;
                if let Some(e) = p
                    .spot
                    .and_then(|s| s.checkpoint_every_epochs)
                    .and_then(|e| e.to_u32())
                {
                    n = e;
                }
            }
            Ok(scripts::resume_template(n)?.text)
        }
        ScriptKind::Checklist { platform, plan } => {
            let (set, _) = userdata::platforms(catalog)?;
            let p = set.get(platform)?;
            let q = plan
                .as_ref()
                .map(|path| load_plan(path, catalog, zoo))
                .transpose()?;
            let items = scripts::checklist(p, q.as_ref());
            Ok(items
                .iter()
                .map(|i| format!("[ ] {}", if lang == Lang::Zh { &i.zh } else { &i.en }))
                .collect::<Vec<_>>()
                .join("\n"))
        }
    }
}
