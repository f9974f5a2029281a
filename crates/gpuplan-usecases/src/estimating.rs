//! Use case: will the job fit, and how long will it take (memory and time
//! on every card, fixes, the whole run).

use gpuplan_core::estimate::{estimate_with, EstimateReport};
use gpuplan_core::job::{JobSpec, Precision};
use gpuplan_core::zoo::{from_hf_config_named, Model, ZooEntry};

use crate::planning::{CustomConfig, MAX_CONFIG_BYTES};
use crate::views::{EstimateView, RunPartRow};
use crate::{AppError, Planner, Result, Snapshot};

impl Planner {
    /// Peak memory and time of a job on every card, fixes for `gpu` (or the
    /// default target). A custom `config.json` stands in for a zoo model.
    pub fn estimate(
        &mut self,
        job: &JobSpec,
        gpu: Option<&str>,
        config: Option<CustomConfig<'_>>,
        platform: Option<&str>,
    ) -> Result<EstimateReport> {
        self.snapshot()?.estimate(job, gpu, config, platform)
    }

    /// [`Snapshot::estimate_with`]: the estimate with the given corrections.
    pub(crate) fn estimate_with(
        &mut self,
        job: &JobSpec,
        gpu: Option<&str>,
        config: Option<CustomConfig<'_>>,
        platform: Option<&str>,
        corrections: &gpuplan_core::correction::Corrections,
    ) -> Result<EstimateReport> {
        self.snapshot()?
            .estimate_with(job, gpu, config, platform, corrections)
    }

    /// The memory screen: the estimate and its charts.
    pub fn estimate_view(
        &mut self,
        job: &JobSpec,
        gpu: Option<&str>,
        platform: Option<&str>,
    ) -> Result<EstimateView> {
        self.snapshot()?.estimate_view(job, gpu, platform)
    }
}

impl Snapshot {
    /// Peak memory and time of a job on every card, fixes for `gpu` (or the
    /// default target). A custom `config.json` stands in for a zoo model.
    pub fn estimate(
        &self,
        job: &JobSpec,
        gpu: Option<&str>,
        config: Option<CustomConfig<'_>>,
        platform: Option<&str>,
    ) -> Result<EstimateReport> {
        self.estimate_with(job, gpu, config, platform, &self.corrections)
    }

    /// [`Snapshot::estimate`] with the given corrections (none: the model's
    /// own answer, as plan versus actual compares).
    pub(crate) fn estimate_with(
        &self,
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
                let profile = self.platforms.get(id)?;
                let offer = gpu.and_then(|g| profile.offer(g, &self.bundled.catalog).ok());
                offer.map_or_else(|| profile.host(), |o| profile.host_for(o))
            }
            None => gpuplan_core::pipeline::Host::TYPICAL,
        };
        let b = &self.bundled;
        let custom;
        let entry: &ZooEntry = match model_of(job, config)? {
            Chosen::Zoo(id) => b.zoo.get(id)?,
            Chosen::Custom(m) => {
                custom = *m;
                &custom
            }
        };
        let target = gpu
            .map(str::trim)
            .filter(|g| !g.is_empty())
            .map(|g| b.catalog.get(g))
            .transpose()?;
        // A precision the student left to the default is one the card has:
        // a card without bfloat16 (Turing, Volta) runs the model's 16-bit
        // default as fp16 mixed precision, as its students would.
        let defaulted;
        let job = match target {
            Some(g) if job.precision.is_none() && !g.supports_bf16() => {
                let j = job.resolve(entry)?;
                if j.precision.needs_bf16() {
                    defaulted = JobSpec {
                        precision: Some(Precision::Fp16Amp),
                        ..job.clone()
                    };
                    &defaulted
                } else {
                    job
                }
            }
            _ => job,
        };
        let j = job.resolve(entry)?;
        if let Some(g) = target {
            if j.precision.needs_bf16() && !g.supports_bf16() {
                return Err(AppError::input(
                    "precision",
                    format!(
                        "{} needs bfloat16, which {} lacks",
                        j.precision, g.spec.name
                    ),
                    format!(
                        "{} or {} on this GPU; bf16 needs an Ampere or newer card",
                        Precision::Fp32,
                        Precision::Fp16Amp
                    ),
                )
                .said(
                    gpuplan_core::Message::new("error.noBf16")
                        .with("precision", j.precision)
                        .with("gpu", &g.spec.name),
                    Some(gpuplan_core::Message::new("allowed.noBf16")),
                ));
            }
        }
        let est = estimate_with(entry, &j, &b.catalog, target, &host, corrections);
        Ok(est.report(entry.model.name(), target.map(|g| g.id.as_str())))
    }

    /// The memory screen: the estimate (timed on `platform`'s host) and its chart.
    pub fn estimate_view(
        &self,
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
        let accuracy = self.bundled.held_out_note(&report)?;
        Ok(EstimateView {
            report,
            chart,
            run_chart,
            run_parts,
            accuracy,
        })
    }
}

/// What a custom model is called when its config names none: the folder
/// of a `config.json` (a Hugging Face snapshot's folder is the model's
/// name, `Qwen2-7B/config.json`), else the file's name; words that are the
/// same in every language.
fn config_name(path: &str) -> String {
    // `config.json` read from inside its folder names the folder too.
    let p = std::path::absolute(path).unwrap_or_else(|_| std::path::PathBuf::from(path));
    let file = p.file_name().map(|f| f.to_string_lossy().into_owned());
    let folder = p
        .parent()
        .and_then(|d| d.file_name())
        .map(|f| f.to_string_lossy().into_owned());
    let stem = p.file_stem().map(|f| f.to_string_lossy().into_owned());
    match (file, folder, stem) {
        (Some(f), Some(d), _) if f.eq_ignore_ascii_case("config.json") => d,
        (Some(_), _, Some(stem)) => stem,
        _ => path.to_owned(),
    }
}

/// The model a job names: a zoo id, or a pasted `config.json`.
enum Chosen<'a> {
    /// A zoo id.
    Zoo(&'a str),
    /// Built from a pasted Hugging Face `config.json`.
    Custom(Box<ZooEntry>),
}

/// Which model the estimate times, or why there is none to time.
fn model_of<'a>(job: &'a JobSpec, config: Option<CustomConfig<'_>>) -> Result<Chosen<'a>> {
    if job.hours.is_some() {
        return Err(AppError::input(
            "hours",
            "the estimator times a model; hours of a run belong in a plan",
            "omit it, or give a model",
        )
        .said(
            gpuplan_core::Message::new("error.hoursNotEstimated"),
            Some(gpuplan_core::Message::new("allowed.omitHours")),
        ));
    }
    match (config, job.model.as_deref()) {
        (Some(c), None | Some("custom")) => {
            if c.text.len() as u64 > MAX_CONFIG_BYTES {
                return Err(AppError::input(
                    "config",
                    "file is larger than 1 MB",
                    "a Hugging Face config.json",
                )
                .said(
                    gpuplan_core::Message::new("error.fileTooLarge").with("path", c.name),
                    Some(
                        gpuplan_core::Message::new("allowed.fileBytes")
                            .with("max", MAX_CONFIG_BYTES),
                    ),
                ));
            }
            Ok(Chosen::Custom(Box::new(ZooEntry {
                id: "custom".into(),
                model: Model::Transformer(
                    from_hf_config_named(c.text, &config_name(c.name))
                        .map_err(|e| AppError::from(e).in_file(c.name))?,
                ),
            })))
        }
        (Some(_), Some(other)) => Err(AppError::input(
            "model",
            format!("`{other}` and --config both name the model"),
            "--model custom with --config, or a zoo id without it",
        )
        .said(
            gpuplan_core::Message::new("error.modelAndConfig").with("model", other),
            Some(gpuplan_core::Message::new("allowed.modelOrConfig")),
        )),
        (None, Some("custom")) => Err(AppError::input(
            "config",
            "`custom` reads its model from a config file, and none was given",
            "--config FILE (a Hugging Face config.json)",
        )
        .said(
            gpuplan_core::Message::new("error.customNeedsConfig"),
            Some(gpuplan_core::Message::new("allowed.configFile")),
        )),
        (None, Some(id)) => Ok(Chosen::Zoo(id)),
        (None, None) => Err(AppError::input(
            "model",
            "no model given",
            "a zoo id (`gpuplan models`)",
        )
        .said(
            gpuplan_core::Message::new("error.noModel"),
            Some(gpuplan_core::Message::new("error.fromList").with("list", "gpuplan models")),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::config_name;

    #[test]
    fn a_custom_model_without_a_name_is_called_by_where_it_came_from() {
        // (path, name, why)
        let cases = [
            (
                "models/Qwen2-7B/config.json",
                "Qwen2-7B",
                "a snapshot folder names its model",
            ),
            (
                "my-llama.json",
                "my-llama",
                "a file of its own is its own name",
            ),
            (
                "C/CONFIG.JSON",
                "C",
                "case does not matter on the file name",
            ),
            (
                "./Qwen2-7B/../Qwen2-7B/config.json",
                "Qwen2-7B",
                "dots in the path",
            ),
        ];
        for (path, want, why) in cases {
            assert_eq!(config_name(path), want, "{why}");
        }
        // Read from inside its folder: named by the working directory.
        let here = std::env::current_dir().expect("cwd");
        let folder = here.file_name().map(|f| f.to_string_lossy().into_owned());
        assert_eq!(
            Some(config_name("config.json")),
            folder,
            "config.json in the working directory is named by it"
        );
        assert_eq!(
            Some(config_name("./config.json")),
            folder,
            "and with ./ too"
        );
    }
}
