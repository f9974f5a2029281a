//! Planning use cases: what the app's six steps and the CLI's `estimate`,
//! `recommend`, `quote`, `script` and `pack export` do, once for both shells.

use std::path::Path;

use gpuplan_core::estimate::{estimate_with, EstimateReport};
use gpuplan_core::job::{DatasetKind, JobSpec, Mode, Optimizer, Precision};
use gpuplan_core::pack::{CoursePack, PackInfo, Preset, PresetName};
use gpuplan_core::parallel::Engine;
use gpuplan_core::plan::Plan;
use gpuplan_core::platform::{PlatformKind, PlatformSet};
use gpuplan_core::quote::{quote_with, Quote};
use gpuplan_core::recommend::{recommend_with, Recommendation, Situation, Stage};
use gpuplan_core::scripts::{self, LaunchSpec, Script, ShutdownSpec, SlurmSpec, StopMechanism};
use gpuplan_core::zoo::{from_hf_config, Model, ZooEntry};
use gpuplan_core::Message;
use rust_decimal::prelude::ToPrimitive;
use rust_decimal::Decimal;

use crate::views::{
    AppInfo, Choices, CourseInfo, EstimateView, GpuInfo, KitView, ModelInfo, PlatformInfo,
    PresetView, PriceAge, QuoteView, RecommendationView, RunPartRow, ScriptView,
};
use crate::{defaults, files, userdata, AppError, Planner, Result};

/// The keys of the kit's scripts (`before.scripts.<key>` in the catalog).
pub const SCRIPT_KEYS: [&str; 11] = [
    "shutdown",
    "slurm",
    "slurm-requeue",
    "probe",
    "offline",
    "resume",
    "report",
    "launch",
    "accelerate",
    "deepspeed",
    "slurm-multigpu",
];

/// Options the app's options screen lists.
pub const APP_OPTIONS: usize = gpuplan_core::recommend::SHORTLIST;
/// Largest accepted custom `config.json`, bytes.
pub const MAX_CONFIG_BYTES: u64 = 1_000_000;

/// A custom transformer's `config.json`, read by the shell.
pub struct CustomConfig<'a> {
    /// Where it came from (for messages and the report's model id).
    pub name: &'a str,
    /// Its text.
    pub text: &'a str,
}

/// What `gpuplan script shutdown` asks for.
pub struct ShutdownRequest<'a> {
    /// Platform id.
    pub platform: &'a str,
    /// Job name (default [`defaults::JOB_NAME`]).
    pub job_name: Option<&'a str>,
    /// The training command.
    pub command: &'a str,
    /// A hard maximum in hours; else from the plan, else the default.
    pub max_hours: Option<f64>,
    /// A plan whose longest run sets the maximum.
    pub plan: Option<&'a Plan>,
    /// Vast.ai: destroy instead of stop.
    pub destroy: bool,
}

/// What `gpuplan script slurm` asks for; `None` takes the defaults.
#[derive(Default)]
pub struct SlurmRequest<'a> {
    /// Job name.
    pub job_name: &'a str,
    /// Partition.
    pub partition: Option<&'a str>,
    /// GPUs.
    pub gpus: Option<u32>,
    /// CPU cores.
    pub cpus: Option<u32>,
    /// Memory, GB.
    pub mem_gb: Option<u32>,
    /// Hours of the run, or
    pub hours: Option<f64>,
    /// a plan whose longest run sets them.
    pub plan: Option<&'a Plan>,
    /// The cluster's walltime cap (default: the campus profile's).
    pub cap_hours: Option<f64>,
    /// Log path.
    pub output: Option<&'a str>,
    /// `conda:ENV` / `module:NAME` lines.
    pub activate: Vec<String>,
    /// The training command.
    pub command: &'a str,
    /// Requeue variant.
    pub requeue: bool,
}

/// What `gpuplan pack export` asks for.
pub struct PackExport<'a> {
    /// Course name.
    pub name: &'a str,
    /// Instructor.
    pub instructor: &'a str,
    /// Platform ids to include (with the exporter's overrides applied).
    pub platforms: &'a [String],
    /// Plans whose jobs become presets.
    pub presets: Vec<Plan>,
    /// Budget cap per student, CNY (decimal text).
    pub budget_cap: Option<&'a str>,
    /// The class's measured runs, anonymised, from the files students
    /// handed in (`gpuplan ledger runs --export`).
    pub measured_runs: Vec<gpuplan_core::correction::MeasuredRun>,
}

fn hours_arg(field: &str, h: Option<f64>) -> Result<Option<f64>> {
    match h {
        Some(v) if !(v.is_finite() && v > 0.0 && v <= 24.0 * 60.0) => Err(AppError::input(
            field,
            format!("{v} is out of range"),
            "hours in (0, 1440]",
        )),
        v => Ok(v),
    }
}

/// The checkpoint interval a plan's resumable template uses: the spot
/// interval the quote assumed, else the default. The template counts whole
/// epochs, so a fractional interval is refused rather than silently changed
/// (the quote would then assume a different interval than the script runs).
fn checkpoint_every(plan: Option<&Plan>) -> Result<u32> {
    match plan
        .and_then(|p| p.spot.as_ref())
        .and_then(|s| s.checkpoint_every_epochs)
    {
        None => Ok(defaults::CHECKPOINT_EVERY_EPOCHS),
        Some(e) => {
            if e.fract() != Decimal::ZERO {
                return Err(AppError::input(
                    "spot.checkpoint_every_epochs",
                    format!("{e} is not a whole number of epochs"),
                    "a whole number of epochs for the resumable template",
                ));
            }
            e.to_u32().ok_or_else(|| {
                AppError::input(
                    "spot.checkpoint_every_epochs",
                    format!("{e} is out of range"),
                    "1..=1000 epochs",
                )
            })
        }
    }
}

impl Planner {
    /// Everything the app needs at start.
    pub fn info(&mut self) -> Result<AppInfo> {
        let packs = self.loaded_packs()?;
        let b = &self.bundled;
        let models = b
            .zoo
            .entries()
            .iter()
            .map(|e| ModelInfo {
                id: e.id.clone(),
                name: e.model.name().to_owned(),
                family: e.model.family().to_owned(),
                max_positions: match &e.model {
                    Model::Vision(_) => None,
                    Model::Transformer(t) => Some(t.max_positions),
                },
                params_m: match &e.model {
                    Model::Vision(v) => v.params(v.default_classes) as f64 / 1e6,
                    Model::Transformer(t) => t.params() as f64 / 1e6,
                },
            })
            .collect();
        let gpus = b
            .catalog
            .gpus()
            .iter()
            .map(|g| GpuInfo {
                id: g.id.clone(),
                name: g.spec.name.clone(),
                vram_gib: g.vram_gib(),
                bf16: g.supports_bf16(),
            })
            .collect();
        let mut presets = preset_views(&b.presets, &b.zoo, |i, p| {
            p.id.clone().unwrap_or_else(|| format!("preset-{i}"))
        });
        let first_job = presets.first().map(|p| p.job.clone()).unwrap_or_default();
        let course = packs.last().map(|p| {
            presets.extend(preset_views(p, &b.zoo, |i, _| format!("course-{i}")));
            CourseInfo {
                name: p.pack.name.clone(),
                instructor: p.pack.instructor.clone(),
                budget_cap: p.pack.budget_cap,
                default_platform: p.pack.default_platform.clone(),
            }
        });
        let platforms = self
            .course_platforms()?
            .platforms
            .iter()
            .map(|p| PlatformInfo {
                id: p.id.clone(),
                name: p.name.clone(),
                kind: p.kind,
                gpus: p.offers.iter().map(|o| o.gpu.clone()).collect(),
                spot_gpus: p
                    .offers
                    .iter()
                    .filter(|o| o.spot_per_hour.is_some())
                    .map(|o| o.gpu.clone())
                    .collect(),
                facts: p.facts(),
                newcomer_terms: p.student.newcomer_terms.clone(),
            })
            .collect();
        let mut defaults = defaults::for_app(first_job);
        if let Some(c) = &course {
            if let Some(cap) = c.budget_cap {
                defaults.situation.budget = Some(cap);
                defaults.plan.budget = Some(cap);
            }
            if let Some(p) = &c.default_platform {
                defaults.plan.platform = p.clone();
            }
        }
        Ok(AppInfo {
            models,
            gpus,
            platforms,
            presets,
            course,
            defaults,
            choices: Choices {
                stage: Stage::VALUES.to_vec(),
                precision: Precision::VALUES.to_vec(),
                optimizer: Optimizer::VALUES.to_vec(),
                mode: Mode::VALUES.to_vec(),
                dataset: DatasetKind::VALUES.to_vec(),
                attention: gpuplan_core::zoo::AttentionImpl::VALUES.to_vec(),
                engine: gpuplan_core::parallel::Engine::VALUES.to_vec(),
            },
            limits: gpuplan_core::limits::ALL.to_vec(),
            notice: self.notice.clone().filter(|_| self.read_only().is_none()),
            read_only: self.read_only().map(str::to_owned),
        })
    }

    /// Peak memory and time of a job on every card, fixes for `gpu` (or the
    /// default target). A custom `config.json` stands in for a zoo model.
    pub fn estimate(
        &mut self,
        job: &JobSpec,
        gpu: Option<&str>,
        config: Option<CustomConfig<'_>>,
        platform: Option<&str>,
    ) -> Result<EstimateReport> {
        let corrections = self.corrections()?;
        self.estimate_with(job, gpu, config, platform, &corrections)
    }

    /// [`Planner::estimate`] with the given corrections (none: the model's
    /// own answer, as plan versus actual compares).
    pub(crate) fn estimate_with(
        &mut self,
        job: &JobSpec,
        gpu: Option<&str>,
        config: Option<CustomConfig<'_>>,
        platform: Option<&str>,
        corrections: &gpuplan_core::correction::Corrections,
    ) -> Result<EstimateReport> {
        // The run is timed on the platform's host (CPU cores for the input
        // pipeline, its disk, and the interconnect of its offer of the
        // target card), or a typical one.
        let host = match platform.map(str::trim).filter(|p| !p.is_empty()) {
            Some(id) => {
                let platforms = self.platforms()?;
                let profile = platforms.get(id)?;
                let offer = gpu.and_then(|g| profile.offer(g, &self.bundled.catalog).ok());
                offer.map_or_else(|| profile.host(), |o| profile.host_for(o))
            }
            None => gpuplan_core::pipeline::Host::TYPICAL,
        };
        let b = &self.bundled;
        if job.hours.is_some() {
            return Err(AppError::input(
                "hours",
                "the estimator times a model; hours of a run belong in a plan",
                "omit it, or give a model",
            ));
        }
        let custom;
        let entry: &ZooEntry = match (config, job.model.as_deref()) {
            (Some(c), None | Some("custom")) => {
                if c.text.len() as u64 > MAX_CONFIG_BYTES {
                    return Err(AppError::input(
                        "config",
                        "file is larger than 1 MB",
                        "a Hugging Face config.json",
                    ));
                }
                custom = ZooEntry {
                    id: "custom".into(),
                    model: Model::Transformer(from_hf_config(c.text)?),
                };
                &custom
            }
            (Some(_), Some(other)) => {
                return Err(AppError::input(
                    "model",
                    format!("`{other}` and --config both name the model"),
                    "--model custom with --config, or a zoo id without it",
                ))
            }
            (None, Some(id)) => b.zoo.get(id)?,
            (None, None) => {
                return Err(AppError::input(
                    "model",
                    "no model given",
                    "a zoo id (`gpuplan models`)",
                ))
            }
        };
        let j = job.resolve(entry)?;
        let target = gpu
            .map(str::trim)
            .filter(|g| !g.is_empty())
            .map(|g| b.catalog.get(g))
            .transpose()?;
        if let Some(g) = target {
            if j.precision.needs_bf16() && !g.supports_bf16() {
                return Err(AppError::input(
                    "precision",
                    format!("{} needs bfloat16, which {} lacks", j.precision, g.id),
                    format!(
                        "{} or {} on this GPU; bf16 needs an Ampere or newer card",
                        Precision::Fp32,
                        Precision::Fp16Amp
                    ),
                )
                .said(
                    gpuplan_core::Message::new("error.noBf16")
                        .with("precision", j.precision)
                        .with("gpu", &g.id),
                    Some(gpuplan_core::Message::new("allowed.noBf16")),
                ));
            }
        }
        let est = estimate_with(entry, &j, &b.catalog, target, &host, corrections);
        Ok(est.report(entry.model.name(), target.map(|g| g.id.as_str())))
    }

    /// The memory screen: the estimate (timed on `platform`'s host) and its chart.
    pub fn estimate_view(
        &mut self,
        job: &JobSpec,
        gpu: Option<&str>,
        platform: Option<&str>,
    ) -> Result<EstimateView> {
        let report = self.estimate(job, gpu, None, platform)?;
        let chart = self.vram_chart(&report)?;
        let run_chart = match &report.run {
            Some(r) => Some(self.run_chart(&report.target_gpu, r)?),
            None => None,
        };
        let run_parts = RunPartRow::all(report.run.as_ref());
        Ok(EstimateView {
            report,
            chart,
            run_chart,
            run_parts,
        })
    }

    /// Ranked platform x GPU options for a situation.
    pub fn recommend(&mut self, s: &Situation) -> Result<Recommendation> {
        let platforms = self.course_platforms()?;
        let corrections = self.corrections()?;
        Ok(recommend_with(
            s,
            &platforms,
            &self.bundled.catalog,
            &self.bundled.zoo,
            &corrections,
        )?)
    }

    /// The options screen: the first options and their cost chart.
    pub fn recommend_view(&mut self, s: &Situation) -> Result<RecommendationView> {
        let mut recommendation = self.recommend(s)?;
        recommendation.options.truncate(APP_OPTIONS);
        let chart = self.cost_chart(&recommendation.options)?;
        Ok(RecommendationView {
            recommendation,
            chart,
        })
    }

    /// A plan file's text, parsed and validated (`file` names it in errors).
    pub fn parse_plan(&self, file: &str, text: &str) -> Result<Plan> {
        Ok(Plan::from_toml(file, text)?)
    }

    /// Reads and parses a plan file.
    pub fn read_plan(&self, path: &Path) -> Result<Plan> {
        let text = files::read_text(path, "plan", files::MAX_USER_FILE_BYTES)?;
        self.parse_plan(&path.display().to_string(), &text)
    }

    /// Prices a plan on its platform (with the user's overrides and packs).
    pub fn quote(&mut self, plan: &Plan) -> Result<Quote> {
        let corrections = self.corrections()?;
        self.quote_with(plan, &corrections)
    }

    /// [`Planner::quote`] with the given corrections.
    pub(crate) fn quote_with(
        &mut self,
        plan: &Plan,
        corrections: &gpuplan_core::correction::Corrections,
    ) -> Result<Quote> {
        let platforms = self.platforms()?;
        let profile = platforms.get(&plan.platform)?;
        Ok(quote_with(
            plan,
            profile,
            &self.bundled.catalog,
            &self.bundled.zoo,
            corrections,
        )?)
    }

    /// The plan screen: the bill and the spend chart.
    pub fn quote_view(&mut self, plan: &Plan) -> Result<QuoteView> {
        let quote = self.quote(plan)?;
        let chart = self.spend_chart(&quote, plan.budget.and_then(|b| b.to_f64()))?;
        let warnings = quote.warnings.iter().map(|w| w.message()).collect();
        let run_parts = RunPartRow::all(quote.run_parts.as_ref());
        let prices = self.price_age(&quote);
        Ok(QuoteView {
            quote,
            warnings,
            chart,
            run_parts,
            prices,
        })
    }

    /// How old the prices behind `quote` are, today.
    pub fn price_age(&self, quote: &Quote) -> PriceAge {
        PriceAge::of(quote.prices_observed.as_deref(), self.today())
    }

    fn longest_run_hours(&mut self, plan: &Plan) -> Result<f64> {
        Ok(self.quote(plan)?.longest_run_hours.to_f64().unwrap_or(1.0))
    }

    /// The auto-shutdown wrapper.
    pub fn shutdown_script(&mut self, r: &ShutdownRequest<'_>) -> Result<String> {
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
        })?;
        if r.destroy && mechanism != StopMechanism::VastCli {
            return Err(AppError::input(
                "destroy",
                format!("--destroy applies to Vast.ai instances, not {}", p.id),
                "omit --destroy, or --platform vast",
            ));
        }
        if r.max_hours.is_some() && r.plan.is_some() {
            return Err(AppError::input(
                "max_hours",
                "--max-hours and --plan both set the maximum runtime",
                "one of them",
            ));
        }
        let max_runtime_seconds = match (hours_arg("max_hours", r.max_hours)?, r.plan) {
            (Some(h), _) => (h * 3600.0).ceil() as u64,
            (None, Some(plan)) => scripts::with_margin(self.longest_run_hours(plan)?),
            (None, None) => defaults::SHUTDOWN_MAX_HOURS * 3600,
        };
        Ok(scripts::shutdown_wrapper(&ShutdownSpec {
            platform: p.id.clone(),
            mechanism,
            job_name: r.job_name.unwrap_or(defaults::JOB_NAME).to_owned(),
            command: r.command.to_owned(),
            max_runtime_seconds,
            destroy: r.destroy,
            poll_seconds: defaults::WATCHDOG_POLL_SECONDS as u32,
            plan: r.plan.map(|p| p.name.clone()).unwrap_or_default(),
        })?)
    }

    /// The walltime cap of the campus cluster profile, if any.
    fn campus_cap(platforms: &PlatformSet) -> Option<f64> {
        platforms
            .platforms
            .iter()
            .find(|p| p.kind == PlatformKind::CampusHpc)
            .and_then(|p| p.quota.walltime_max_hours.as_ref())
            .and_then(|c| c.value.to_f64())
    }

    /// A Slurm sbatch script.
    pub fn slurm_script(&mut self, r: &SlurmRequest<'_>) -> Result<Script> {
        if r.hours.is_some() && r.plan.is_some() {
            return Err(AppError::input(
                "hours",
                "--hours and --plan both set the run's length",
                "one of them",
            ));
        }
        let hours = match (hours_arg("hours", r.hours)?, r.plan) {
            (Some(h), _) => h,
            (None, Some(plan)) => self.longest_run_hours(plan)?,
            (None, None) => {
                return Err(AppError::input(
                    "hours",
                    "give --hours or --plan",
                    "hours of one run",
                ))
            }
        };
        let cap = match hours_arg("cap_hours", r.cap_hours)? {
            Some(c) => Some(c),
            None => Self::campus_cap(&*self.platforms()?),
        };
        Ok(scripts::slurm(&SlurmSpec {
            job_name: r.job_name.to_owned(),
            partition: r.partition.unwrap_or(defaults::SLURM_PARTITION).to_owned(),
            gpus: r.gpus.unwrap_or(1),
            cpus: r.cpus.unwrap_or(defaults::SLURM_CPUS),
            mem_gb: r.mem_gb.unwrap_or(defaults::SLURM_MEM_GB),
            hours,
            cap_hours: cap,
            output: r.output.unwrap_or(defaults::SLURM_OUTPUT).to_owned(),
            activate: r.activate.clone(),
            command: r.command.to_owned(),
            requeue: r.requeue,
            plan: r.plan.map(|p| p.name.clone()).unwrap_or_default(),
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

    /// The resumable training template: every `every` epochs, or the plan's
    /// spot checkpoint interval (so the quote and the script agree).
    pub fn resume_script(&self, every: Option<u32>, plan: Option<&Plan>) -> Result<Script> {
        if every.is_some() && plan.is_some() {
            return Err(AppError::input(
                "every",
                "--every and --plan both set the checkpoint interval",
                "one of them",
            ));
        }
        let n = match every {
            Some(n) => n,
            None => checkpoint_every(plan)?,
        };
        Ok(scripts::resume_template(n)?)
    }

    /// The environment probe.
    pub fn probe_script(&self) -> Script {
        scripts::env_probe()
    }

    /// The offline wheel bundle for a Python version (default 3.10).
    pub fn offline_script(&self, python: Option<&str>) -> Result<Script> {
        Ok(scripts::offline_install(
            python.unwrap_or(defaults::PYTHON),
        )?)
    }

    /// The checklist for a platform, tailored to a plan when one is given.
    pub fn checklist(&mut self, platform: &str, plan: Option<&Plan>) -> Result<Vec<Message>> {
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
                destroy: false,
                poll_seconds: defaults::WATCHDOG_POLL_SECONDS as u32,
                plan: plan.name.clone(),
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
            scripts::notebook_report(&profile.id, &plan.name)?,
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
        let cap = profile
            .quota
            .walltime_max_hours
            .as_ref()
            .and_then(|c| c.value.to_f64());
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
            })?;
        let longest = self.quote(plan)?.longest_run_hours.to_f64().unwrap_or(1.0);
        Ok(match which {
            "launch" => scripts::launch_script(&spec)?,
            "accelerate" => scripts::accelerate_config(&spec)?,
            "deepspeed" => scripts::deepspeed_config(&spec)?,
            "slurm" => scripts::slurm_multigpu(
                &spec,
                defaults::SLURM_PARTITION,
                longest.clamp(0.01, 1440.0),
                defaults::SLURM_CPUS,
            )?,
            other => {
                return Err(AppError::input(
                    "config",
                    format!("unknown launch config `{}`", userdata::excerpt(other)),
                    "launch, accelerate, deepspeed or slurm",
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

    /// A course pack's text for a class: the named platforms as this user
    /// sees them (overrides applied), plans' jobs as presets, a budget cap.
    /// The text is validated by importing it before it is returned.
    pub fn export_pack(&mut self, e: &PackExport<'_>) -> Result<String> {
        let set = self.platforms()?;
        let profiles = e
            .platforms
            .iter()
            .map(|id| set.get(id).cloned())
            .collect::<std::result::Result<Vec<_>, _>>()?;
        let budget_cap = e
            .budget_cap
            .map(|t| crate::userdata::parse_amount("budget_cap", t, 1_000_000))
            .transpose()?;
        // Each plan is checked whole before it becomes a preset, so its run
        // count is within the plan format's bounds.
        let mut presets = Vec::with_capacity(e.presets.len());
        for plan in &e.presets {
            plan.check()?;
            let runs = plan
                .runs
                .iter()
                .try_fold(0u32, |n, r| n.checked_add(r.count))
                .ok_or_else(|| {
                    AppError::input(
                        "run.count",
                        "the runs add up past any count",
                        format!("1..={}", gpuplan_core::plan::MAX_RUNS),
                    )
                })?;
            // A plan that gives hours on its runs rather than on its job
            // hands its first run's length to the preset.
            let mut job = plan.job.clone();
            if job.model.is_none() && job.hours.is_none() {
                job.hours = plan.runs.iter().find_map(|r| {
                    r.hours.or_else(|| {
                        r.minutes
                            .and_then(|m| m.checked_div(Decimal::from(60)))
                            .map(|h| h.round_dp(4))
                    })
                });
            }
            presets.push(Preset {
                id: None,
                name: PresetName::Text(plan.name.clone()),
                job,
                runs: runs.max(1),
            });
        }
        let pack = CoursePack {
            pack: PackInfo {
                name: e.name.to_owned(),
                instructor: e.instructor.to_owned(),
                budget_cap,
                default_platform: profiles.first().map(|p| p.id.clone()),
            },
            platforms: profiles,
            presets,
            measured_runs: gpuplan_core::correction::unique(e.measured_runs.clone()),
        };
        let text = pack.to_toml();
        CoursePack::from_toml(
            "exported pack",
            &text,
            &self.bundled.catalog,
            &self.bundled.zoo,
        )?;
        Ok(text)
    }
}

/// The presets of `pack` as the app shows them. Each sets every choice the
/// form shows (mode, precision, optimizer, batch, size), filled in from the
/// resolved job, so picking one never leaves a field on "default".
fn preset_views(
    pack: &CoursePack,
    zoo: &gpuplan_core::zoo::ModelZoo,
    key: impl Fn(usize, &Preset) -> String,
) -> Vec<PresetView> {
    pack.presets
        .iter()
        .enumerate()
        .map(|(i, p)| PresetView {
            key: key(i, p),
            name: p.name.localized(),
            job: filled(&p.job, zoo),
            runs: p.runs,
        })
        .collect()
}

/// `spec` with the choices its model's defaults make written out.
fn filled(spec: &JobSpec, zoo: &gpuplan_core::zoo::ModelZoo) -> JobSpec {
    let Some(job) = spec
        .model
        .as_deref()
        .and_then(|m| zoo.get(m).ok())
        .and_then(|e| spec.resolve(e).ok())
    else {
        return spec.clone();
    };
    JobSpec {
        mode: Some(job.mode),
        precision: Some(job.precision),
        optimizer: Some(job.optimizer),
        batch: Some(f64::from(job.batch)),
        resolution: spec
            .resolution
            .or((job.resolution > 0).then(|| f64::from(job.resolution))),
        seq_len: spec
            .seq_len
            .or((job.seq_len > 0).then(|| f64::from(job.seq_len))),
        // A vision model's head size; a transformer's stays the default.
        classes: spec
            .classes
            .or((job.resolution > 0).then(|| f64::from(job.classes))),
        ..spec.clone()
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
