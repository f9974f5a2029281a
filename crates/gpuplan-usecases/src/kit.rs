//! Use case: the before-you-rent kit (shutdown wrapper, Slurm scripts,
//! launchers, probe, offline install, resume template, checklist).

use gpuplan_core::job::Precision;
use gpuplan_core::parallel::Engine;
use gpuplan_core::plan::Plan;
use gpuplan_core::platform::{PlatformKind, PlatformSet};
use gpuplan_core::scripts::{self, LaunchSpec, Script, ShutdownSpec, SlurmSpec, StopMechanism};
use gpuplan_core::Message;
use rust_decimal::prelude::ToPrimitive;

use crate::planning::{checkpoint_every, hours_arg, ShutdownRequest, SlurmRequest};
use crate::views::{KitView, ScriptView};
use crate::{defaults, userdata, AppError, Planner, Result};

impl Planner {
    /// The auto-shutdown wrapper.
    pub fn shutdown_script(&mut self, r: &ShutdownRequest<'_>) -> Result<String> {
        same_platform(r.platform, r.plan)?;
        let platforms = self.platforms()?;
        let p = platforms.get(r.platform)?;
        let mechanism = StopMechanism::for_platform(p).ok_or_else(|| {
            AppError::input(
                "platform",
                format!(
                    "{} has no instance to stop (sessions or Slurm jobs end by themselves)",
                    p.id
                ),
                "a container cloud or marketplace",
            )
            .said(
                Message::new("error.noInstance").with_both("platform", &p.name.zh, &p.name.en),
                Some(Message::new("allowed.stoppable")),
            )
        })?;
        if r.destroy && mechanism != StopMechanism::VastCli {
            return Err(AppError::input(
                "destroy",
                format!("--destroy applies to Vast.ai instances, not {}", p.id),
                "omit --destroy, or --platform vast",
            )
            .said(
                Message::new("error.destroyVast"),
                Some(Message::new("allowed.destroyVast")),
            ));
        }
        if r.max_hours.is_some() && r.plan.is_some() {
            return Err(AppError::input(
                "max_hours",
                "--max-hours and --plan both set the maximum runtime",
                "one of them",
            )
            .said(
                Message::new("error.keepOne")
                    .with("a", "--max-hours")
                    .with("b", "--plan"),
                None,
            ));
        }
        let max_runtime_seconds = match (hours_arg("max_hours", r.max_hours, true)?, r.plan) {
            (Some(h), _) => (h * 3600.0).ceil() as u64,
            (None, Some(plan)) => scripts::with_margin(self.longest_run_hours(plan)?),
            (None, None) => defaults::SHUTDOWN_MAX_HOURS * 3600,
        };
        Ok(scripts::shutdown_wrapper(&ShutdownSpec {
            platform: p.id.clone(),
            mechanism,
            // The app's kit names the job as a plan's own does (its model).
            job_name: match (r.job_name, r.plan) {
                (Some(name), _) => name.to_owned(),
                (None, Some(plan)) => kit_job_name(plan),
                (None, None) => defaults::JOB_NAME.to_owned(),
            },
            command: r.command.to_owned(),
            max_runtime_seconds,
            destroy: r.destroy || r.plan.is_some_and(|plan| spot_only_released(plan, p)),
            poll_seconds: defaults::WATCHDOG_POLL_SECONDS as u32,
            plan: r.plan.map(|p| p.name.clone()).unwrap_or_default(),
            plan_job: r.plan.map(Plan::job_digest).unwrap_or_default(),
        })?)
    }

    /// The walltime cap of the campus cluster profile, if any.
    fn campus_cap(platforms: &PlatformSet) -> Option<f64> {
        platforms
            .platforms
            .iter()
            .find(|p| p.kind == PlatformKind::CampusHpc)
            .and_then(walltime_cap)
    }

    /// A Slurm sbatch script.
    pub fn slurm_script(&mut self, r: &SlurmRequest<'_>) -> Result<Script> {
        if r.hours.is_some() && r.plan.is_some() {
            return Err(AppError::input(
                "hours",
                "--hours and --plan both set the run's length",
                "one of them",
            )
            .said(
                Message::new("error.keepOne")
                    .with("a", "--hours")
                    .with("b", "--plan"),
                None,
            ));
        }
        let hours = match (hours_arg("hours", r.hours, false)?, r.plan) {
            (Some(h), _) => h,
            (None, Some(plan)) => self.longest_run_hours(plan)?,
            (None, None) => {
                return Err(
                    AppError::input("hours", "give --hours or --plan", "hours of one run").said(
                        Message::new("error.hoursOrPlan"),
                        Some(Message::new("allowed.hoursOrPlan")),
                    ),
                )
            }
        };
        let cap = match hours_arg("cap_hours", r.cap_hours, true)? {
            Some(c) => Some(c),
            None => Self::campus_cap(&*self.platforms()?),
        };
        Ok(scripts::slurm(&SlurmSpec {
            job_name: r.job_name.to_owned(),
            partition: r.partition.unwrap_or(defaults::SLURM_PARTITION).to_owned(),
            gpus: Self::slurm_gpus(r)?,
            cpus: r.cpus.unwrap_or(defaults::SLURM_CPUS),
            mem_gb: r.mem_gb.unwrap_or(defaults::SLURM_MEM_GB),
            hours,
            cap_hours: cap,
            output: r.output.unwrap_or(defaults::SLURM_OUTPUT).to_owned(),
            activate: r.activate.clone(),
            command: r.command.to_owned(),
            requeue: r.requeue,
            plan: r.plan.map(|p| p.name.clone()).unwrap_or_default(),
            plan_job: r.plan.map(Plan::job_digest).unwrap_or_default(),
            platform: match r.plan {
                Some(p) => p.platform.clone(),
                None => self
                    .platforms()?
                    .platforms
                    .iter()
                    .find(|p| p.kind == PlatformKind::CampusHpc)
                    .map_or_else(|| defaults::CAMPUS_PLATFORM.to_owned(), |p| p.id.clone()),
            },
        })?)
    }

    /// GPUs the job asks Slurm for: `--gpus`, else the plan's job's (a plan
    /// priced and timed on two GPUs got a one-GPU job). Both, disagreeing,
    /// are refused: the run would not be the plan's job.
    fn slurm_gpus(r: &SlurmRequest<'_>) -> Result<u32> {
        let planned = match r.plan.and_then(|p| p.job.gpus) {
            Some(g) => Some(gpuplan_core::job::gpu_count(g)?),
            None => None,
        };
        match (r.gpus, planned) {
            (Some(g), Some(p)) if g != p => Err(AppError::input(
                "gpus",
                format!("--gpus {g}, but the plan's job trains on {p} GPUs"),
                format!("{p}, as the plan, or no --gpus"),
            )
            .said(
                Message::new("error.gpusNotPlans")
                    .with("gpus", g)
                    .with("planned", p),
                None,
            )),
            (Some(g), _) => Ok(g),
            (None, p) => Ok(p.unwrap_or(1)),
        }
    }

    /// The resumable training template: every `every` epochs, or the plan's
    /// spot checkpoint interval (so the quote and the script agree).
    pub fn resume_script(&mut self, every: Option<u32>, plan: Option<&Plan>) -> Result<Script> {
        if every.is_some() && plan.is_some() {
            return Err(AppError::input(
                "every",
                "--every and --plan both set the checkpoint interval",
                "one of them",
            )
            .said(
                Message::new("error.keepOne")
                    .with("a", "--every")
                    .with("b", "--plan"),
                None,
            ));
        }
        use scripts::IntervalSource;
        let spot = plan.and_then(|p| p.spot.as_ref());
        let (n, source) = match (every, spot, plan) {
            (Some(n), ..) => (n, IntervalSource::Chosen),
            (None, Some(s), _) if s.checkpoint_every_epochs.is_some() => {
                (checkpoint_every(plan)?, IntervalSource::SpotPlan)
            }
            (None, Some(s), Some(p)) => match (s.checkpoint_every_hours, p.job.epochs) {
                // Hours between checkpoints as epochs of this job's run.
                (Some(h), Some(epochs)) => {
                    let run = self.longest_run_hours(p)?.max(1e-6);
                    let per_hour = epochs.to_f64().unwrap_or(0.0) / run;
                    let n = (h.to_f64().unwrap_or(0.0) * per_hour)
                        .floor()
                        .clamp(1.0, 1000.0);
                    (n as u32, IntervalSource::SpotPlan)
                }
                _ => (defaults::CHECKPOINT_EVERY_EPOCHS, IntervalSource::Chosen),
            },
            _ => (defaults::CHECKPOINT_EVERY_EPOCHS, IntervalSource::Chosen),
        };
        let epochs = plan
            .and_then(|p| p.job.epochs)
            .and_then(|e| e.round().to_u32())
            .unwrap_or(defaults::RESUME_EPOCHS);
        Ok(scripts::resume_template(n, epochs, source)?)
    }

    /// The environment probe.
    pub fn probe_script(&self) -> Script {
        scripts::env_probe()
    }

    /// The run-report module (`gpuplan_report.py`) for a plan's notebook or
    /// wrapped job: its name and job digest, so its report matches the plan
    /// on import; the platform is the plan's unless one is given (the same
    /// one, as every kit script asks).
    pub fn report_module(&mut self, platform: Option<&str>, plan: Option<&Plan>) -> Result<Script> {
        if let Some(id) = platform {
            same_platform(id, plan)?;
            self.platforms()?.get(id)?;
        }
        let platform = platform
            .or(plan.map(|p| p.platform.as_str()))
            .unwrap_or_default();
        Ok(scripts::notebook_report(
            platform,
            plan.map_or("", |p| p.name.as_str()),
            &plan.map(Plan::job_digest).unwrap_or_default(),
        )?)
    }

    /// The offline wheel bundle for a Python version (default 3.10).
    pub fn offline_script(&self, python: Option<&str>) -> Result<Script> {
        Ok(scripts::offline_install(
            python.unwrap_or(defaults::PYTHON),
        )?)
    }

    /// The checklist for a platform, tailored to a plan when one is given.
    pub fn checklist(&mut self, platform: &str, plan: Option<&Plan>) -> Result<Vec<Message>> {
        same_platform(platform, plan)?;
        let platforms = self.platforms()?;
        let p = platforms.get(platform)?;
        let q = plan.map(|plan| self.quote(plan)).transpose()?;
        Ok(scripts::checklist(p, q.as_ref()))
    }

    /// The before-you-rent screen for a plan: checklist and every script that
    /// applies to its platform.
    pub fn kit(&mut self, plan: &Plan, command: &str) -> Result<KitView> {
        let platforms = self.platforms()?;
        let profile = platforms.get(&plan.platform)?;
        let q = self.quote(plan)?;
        let longest = q.longest_run_hours.to_f64().unwrap_or(1.0);
        let job_name = kit_job_name(plan);
        if command.trim().is_empty() {
            return Err(AppError::input(
                "command",
                "is empty",
                "the command that starts training, e.g. python train.py",
            )
            .said(
                Message::new("error.emptyCommand"),
                Some(Message::new("allowed.trainingCommand")),
            ));
        }
        let mut out = Vec::new();
        if let Some(mechanism) = StopMechanism::for_platform(profile) {
            let text = scripts::shutdown_wrapper(&ShutdownSpec {
                platform: profile.id.clone(),
                mechanism,
                job_name: job_name.clone(),
                command: command.to_owned(),
                max_runtime_seconds: scripts::with_margin(longest),
                destroy: spot_only_released(plan, profile),
                poll_seconds: defaults::WATCHDOG_POLL_SECONDS as u32,
                plan: plan.name.clone(),
                plan_job: plan.job_digest(),
            })?;
            out.push(ScriptView {
                key: "shutdown".into(),
                file_name: "gpuplan-run.sh".into(),
                text,
                notes: Vec::new(),
            });
        }
        if profile.kind == PlatformKind::CampusHpc {
            out.extend(self.kit_slurm(plan, profile, &job_name, command)?);
        }
        out.extend(self.kit_multi_gpu(plan, profile, &job_name, command, longest)?);
        out.push(script_view("probe", self.probe_script()));
        out.push(script_view("offline", self.offline_script(None)?));
        out.push(script_view("resume", self.resume_script(None, Some(plan))?));
        // Notebooks run no wrapper: the report comes from a module the
        // notebook imports.
        out.push(script_view(
            "report",
            scripts::notebook_report(&profile.id, &plan.name, &plan.job_digest())?,
        ));
        Ok(KitView {
            checklist: scripts::checklist(profile, Some(&q)),
            scripts: out,
        })
    }

    /// A cluster's single-GPU job scripts: plain and requeueing, each
    /// within the cluster's walltime.
    fn kit_slurm(
        &mut self,
        plan: &Plan,
        profile: &gpuplan_core::platform::PlatformProfile,
        job_name: &str,
        command: &str,
    ) -> Result<Vec<ScriptView>> {
        let cap = walltime_cap(profile);
        let mut out = Vec::new();
        for requeue in [false, true] {
            let s = self.slurm_script(&SlurmRequest {
                job_name,
                // The plan sets the hours and names the run report.
                plan: Some(plan),
                cap_hours: cap,
                command,
                requeue,
                ..SlurmRequest::default()
            })?;
            out.push(script_view(
                if requeue { "slurm-requeue" } else { "slurm" },
                s,
            ));
        }
        Ok(out)
    }

    /// Several GPUs: the launcher, its configs, and on a cluster the
    /// multi-GPU job script. Launchers start Python themselves, so a command
    /// that is not `python …` gets none (the single-GPU scripts still apply).
    fn kit_multi_gpu(
        &mut self,
        plan: &Plan,
        profile: &gpuplan_core::platform::PlatformProfile,
        job_name: &str,
        command: &str,
        longest: f64,
    ) -> Result<Vec<ScriptView>> {
        let mut out = Vec::new();
        let Some(spec) = self.launch_spec(plan, job_name, command)? else {
            return Ok(out);
        };
        let Ok(s) = scripts::launch_script(&spec) else {
            return Ok(out);
        };
        out.push(script_view("launch", s));
        out.push(script_view(
            "accelerate",
            scripts::accelerate_config(&spec)?,
        ));
        // A DeepSpeed config only for the DeepSpeed engines.
        if matches!(spec.engine, Engine::Zero1 | Engine::Zero2 | Engine::Zero3) {
            out.push(script_view("deepspeed", scripts::deepspeed_config(&spec)?));
        }
        if profile.kind == PlatformKind::CampusHpc {
            out.push(script_view(
                "slurm-multigpu",
                scripts::slurm_multigpu(
                    &spec,
                    defaults::SLURM_PARTITION,
                    longest.clamp(0.01, 1440.0),
                    defaults::SLURM_CPUS,
                    walltime_cap(profile),
                )?,
            ));
        }
        Ok(out)
    }

    /// One multi-GPU launch config of `plan`: `launch`, `accelerate`,
    /// `deepspeed` or `slurm`.
    pub fn launch_config(&mut self, plan: &Plan, command: &str, which: &str) -> Result<Script> {
        let spec = self
            .launch_spec(plan, defaults::JOB_NAME, command)?
            .ok_or_else(|| {
                AppError::input(
                    "job.gpus",
                    "the plan's job runs on one GPU",
                    "gpus = 2 or more in the plan's [job]",
                )
                .said(
                    Message::new("error.planOneGpu"),
                    Some(Message::new("allowed.planGpus")),
                )
            })?;
        let longest = self.quote(plan)?.longest_run_hours.to_f64().unwrap_or(1.0);
        let cap = walltime_cap(self.platforms()?.get(&plan.platform)?);
        Ok(match which {
            "launch" => scripts::launch_script(&spec)?,
            "accelerate" => scripts::accelerate_config(&spec)?,
            "deepspeed" => scripts::deepspeed_config(&spec)?,
            "slurm" => scripts::slurm_multigpu(
                &spec,
                defaults::SLURM_PARTITION,
                longest.clamp(0.01, 1440.0),
                defaults::SLURM_CPUS,
                cap,
            )?,
            other => {
                return Err(AppError::input(
                    "config",
                    format!("unknown launch config `{}`", userdata::excerpt(other)),
                    "launch, accelerate, deepspeed or slurm",
                )
                .said(
                    Message::new("error.unknownChoice").with("value", userdata::excerpt(other)),
                    Some(
                        Message::new("error.oneOf")
                            .with("list", "launch, accelerate, deepspeed, slurm"),
                    ),
                ))
            }
        })
    }

    /// What the multi-GPU launch configs of `plan` are generated for; `None`
    /// on one GPU.
    fn launch_spec(
        &self,
        plan: &Plan,
        job_name: &str,
        command: &str,
    ) -> Result<Option<LaunchSpec>> {
        let gpus = match plan.job.gpus {
            Some(g) if g >= 2.0 => g,
            _ => return Ok(None),
        };
        let (batch, precision, engine, offload) = match plan
            .job
            .model
            .as_deref()
            .and_then(|m| self.bundled.zoo.get(m).ok())
        {
            Some(entry) => {
                let j = plan.job.resolve(entry)?;
                (j.batch, j.precision, j.engine, j.offload)
            }
            None => (
                plan.job
                    .batch
                    .filter(|b| *b >= 1.0 && *b <= 1e6)
                    .map_or(1, |b| b as u32),
                plan.job.precision.unwrap_or(Precision::Bf16Amp),
                plan.job.engine.unwrap_or(Engine::Ddp),
                plan.job.offload.unwrap_or(false),
            ),
        };
        Ok(Some(LaunchSpec {
            job_name: job_name.to_owned(),
            command: command.to_owned(),
            gpus: gpus.min(f64::from(gpuplan_core::parallel::MAX_GPUS)) as u32,
            engine,
            offload,
            batch,
            precision,
        }))
    }
}

/// A script as the kit's view shows it, under `key`.
fn script_view(key: &str, s: Script) -> ScriptView {
    ScriptView {
        key: key.into(),
        file_name: s.file_name,
        text: s.text,
        notes: s.notes,
    }
}

/// The job's name in the kit's scripts: the model id, kept to letters,
/// digits and dashes (it names files and Slurm jobs), else the default.
fn kit_job_name(plan: &Plan) -> String {
    let name: String = plan
        .job
        .model
        .as_deref()
        .unwrap_or(defaults::JOB_NAME)
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-')
        .take(40)
        .collect();
    if name.is_empty() {
        defaults::JOB_NAME.to_owned()
    } else {
        name
    }
}

/// A platform's walltime cap, hours (a campus cluster's), if it has one.
fn walltime_cap(profile: &gpuplan_core::platform::PlatformProfile) -> Option<f64> {
    profile
        .quota
        .walltime_max_hours
        .as_ref()
        .and_then(|c| c.value.to_f64())
}

/// A script or checklist for one platform with a plan for another would mix
/// their rules (Kaggle's time cap on an AutoDL list, a Kaggle plan's runtime
/// in a Vast.ai wrapper): refused, naming both.
fn same_platform(platform: &str, plan: Option<&Plan>) -> Result<()> {
    match plan {
        Some(p) if !p.platform.eq_ignore_ascii_case(platform.trim()) => Err(AppError::input(
            "platform",
            format!(
                "the plan is for {}, not {}",
                userdata::excerpt(&p.platform),
                userdata::excerpt(platform)
            ),
            "the plan's own platform, or no --platform",
        )
        .said(
            Message::new("error.planPlatform")
                .with("plan", userdata::excerpt(&p.platform))
                .with("platform", userdata::excerpt(platform)),
            None,
        )),
        _ => Ok(()),
    }
}

/// A spot plan on a platform whose spot instances cannot be stopped, only
/// released (优云智算): the wrapper's stop is a release.
fn spot_only_released(plan: &Plan, p: &gpuplan_core::platform::PlatformProfile) -> bool {
    plan.payment == gpuplan_core::plan::Payment::Spot && p.lifecycle.spot_only_released()
}
