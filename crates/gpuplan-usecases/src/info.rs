//! Use case: everything the app needs at start (models, cards, platforms,
//! presets, the course, defaults, choices and limits).

use gpuplan_core::job::{DatasetKind, JobSpec, Mode, Optimizer, Precision};
use gpuplan_core::pack::{CoursePack, Preset};
use gpuplan_core::recommend::Stage;
use gpuplan_core::zoo::Model;

use crate::views::{AppInfo, Choices, CourseInfo, GpuInfo, ModelInfo, PlatformInfo, PresetView};
use crate::{defaults, Planner, Result};

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
                family: e.model.family(),
                max_positions: match &e.model {
                    Model::Vision(_) => None,
                    Model::Transformer(t) => Some(t.max_positions),
                },
                params_m: match &e.model {
                    Model::Vision(v) => v.params(v.default_classes) as f64 / 1e6,
                    Model::Transformer(t) => t.params() as f64 / 1e6,
                },
                attention: e.model.attention_kernels().to_vec(),
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
                platforms: p.platforms.len(),
                presets: p.presets.len(),
                measured_runs: p.measured_runs.len(),
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
            limits: gpuplan_core::limits::ALL
                .iter()
                .copied()
                .chain(Planner::bill_limits())
                .collect(),
            memory_parts: gpuplan_core::vram::Components::KEYS.to_vec(),
            notices: self.notices.clone(),
            read_only: self.read_only().map(str::to_owned),
            accuracy: self.bundled.held_out()?.clone(),
        })
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
