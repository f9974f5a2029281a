//! The whole estimate a student sees: peak memory, and for every catalog card
//! whether the job fits, the largest batch that does, the step time and the run
//! time; plus concrete fixes when the job does not fit the target card.

use serde::Serialize;

use crate::calibration as cal;
use crate::catalog::{Gpu, GpuCatalog};
use crate::correction::{Calibration, Corrections, Expected};
use crate::job::{Job, Mode, Optimizer, Precision, MAX_BATCH};
use crate::parallel::{self, Engine, Interconnect, Layout, ParallelEstimate};
use crate::pipeline::{self, Host, RunParts};
use crate::steptime::{self, StepTime};
use crate::vram::{self, VramEstimate};
use crate::zoo::{Model, ZooEntry};
use crate::GIB;

/// Headroom under which a fitting job is called tight: allocator spikes and
/// other processes can push it over.
pub const TIGHT_HEADROOM: f64 = 0.10;

/// Card used for fixes when the user names none: the RTX 4090 (24 GB) is the
/// card most often rented on the bundled domestic platforms.
pub const DEFAULT_TARGET_GPU: &str = "rtx4090";

/// Whether a job fits a card.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub enum Verdict {
    /// Fits with at least 10% headroom.
    Fits,
    /// Fits with under 10% headroom.
    Tight,
    /// Needs more memory than the card has.
    DoesNotFit,
    /// The card cannot run this precision (bf16 before Ampere).
    Unsupported,
}

impl Verdict {
    /// Every verdict.
    pub const ALL: [Self; 4] = [Self::Fits, Self::Tight, Self::DoesNotFit, Self::Unsupported];
}

/// Every kind of [`Fix`], as spelled in JSON and catalog keys.
pub const FIX_KINDS: [&str; 6] = [
    "amp",
    "grad-checkpointing",
    "adamw-8bit",
    "lora",
    "qlora",
    "smaller-batch",
];

/// One card's row.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct GpuFit {
    /// Catalog id.
    pub id: String,
    /// Card name.
    pub name: String,
    /// Card memory, GiB as nvidia-smi shows it.
    pub vram_gib: f64,
    /// Fit verdict at the job's batch.
    pub verdict: Verdict,
    /// The model's own verdict, when calibration changed it (both are
    /// shown: a job that fits only because of measured runs says so).
    pub uncalibrated_verdict: Option<Verdict>,
    /// Largest batch that fits (0 when not even batch 1 fits or unsupported).
    pub max_batch: u32,
    /// Seconds the GPU needs per step at the job's batch.
    pub step_seconds: f64,
    /// Seconds per epoch with the input pipeline, when the dataset size is known.
    pub epoch_seconds: Option<f64>,
    /// Seconds for the whole run (steps, input waits, evaluation,
    /// checkpoints, warm-up), when the dataset size is known.
    pub run_seconds: Option<f64>,
    /// What bounds the steps on this card, when the dataset size is known.
    pub bound: Option<crate::pipeline::Bound>,
}

/// A change to the job that makes it fit the target card.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Fix {
    /// Machine-readable kind: `amp`, `grad-checkpointing`, `lora`, `qlora`,
    /// `adamw-8bit`, `smaller-batch`.
    pub kind: String,
    /// The changed job.
    pub job: Job,
    /// Peak memory after the change, GiB.
    pub peak_gib: f64,
    /// Gradient-accumulation steps that keep the effective batch (smaller-batch only).
    pub accumulation_steps: Option<u32>,
    /// Seconds per effective step on the target card after the change (all
    /// accumulation micro-steps together, so it compares with the original).
    pub step_seconds: f64,
}

impl Fix {
    /// `spec` with this fix applied: the fields the fix changed, set as the
    /// student would type them (precision, optimizer, mode and LoRA rank,
    /// checkpointing, batch).
    pub fn apply(&self, spec: &crate::job::JobSpec) -> crate::job::JobSpec {
        let j = &self.job;
        let lora = matches!(j.mode, Mode::Lora | Mode::Qlora);
        crate::job::JobSpec {
            precision: Some(j.precision),
            optimizer: Some(j.optimizer),
            mode: Some(j.mode),
            lora_rank: if lora {
                Some(f64::from(j.lora_rank))
            } else {
                spec.lora_rank
            },
            grad_checkpointing: Some(j.grad_checkpointing),
            batch: Some(f64::from(j.batch)),
            ..spec.clone()
        }
    }
}

/// Everything `gpuplan estimate` reports.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Estimate {
    /// Model id.
    pub model: String,
    /// The resolved job.
    pub job: Job,
    /// Memory estimate; its peak is calibrated when a memory correction
    /// applies (the breakdown stays the model's).
    pub vram: VramEstimate,
    /// The model's own peak before calibration, bytes.
    pub model_peak_bytes: f64,
    /// What measured runs changed on the target card, when any were
    /// looked at.
    pub calibration: Option<Calibration>,
    /// One row per catalog card.
    pub gpus: Vec<GpuFit>,
    /// Card the fixes are for.
    pub target_gpu: String,
    /// Step time on the target card.
    pub target_step: StepTime,
    /// The whole run on the target card, when the dataset size is known.
    pub target_run: Option<RunParts>,
    /// The host the run was timed on.
    pub host: Host,
    /// Fixes, empty when the job fits the target card.
    pub fixes: Vec<Fix>,
    /// The multi-GPU layout on the target card, when the job asks for several GPUs.
    pub parallel: Option<ParallelEstimate>,
    /// The smallest multi-GPU layout of the target card that fits, when one
    /// GPU does not.
    pub fits_with: Option<ParallelEstimate>,
}

/// The calibration card from the catalog (the first card if it is missing,
/// which only a hand-made catalog can cause; the bundled one is tested).
pub fn reference_gpu(catalog: &GpuCatalog) -> &Gpu {
    catalog
        .gpus()
        .iter()
        .find(|g| g.id == cal::REFERENCE_GPU)
        .unwrap_or(&catalog.gpus()[0])
}

/// Memory a process can use on `gpu`, bytes.
pub fn usable_bytes(gpu: &Gpu) -> f64 {
    (gpu.spec.vram_mib.value - cal::IDLE_DEVICE_MIB) * 1024.0 * 1024.0
}

/// Verdict for a peak on a card.
pub fn verdict(gpu: &Gpu, job: &Job, peak_bytes: f64) -> Verdict {
    verdict_under(gpu, job, peak_bytes, usable_bytes(gpu))
}

/// Verdict for a peak against `usable` bytes of a card.
fn verdict_under(gpu: &Gpu, job: &Job, peak_bytes: f64, usable: f64) -> Verdict {
    if job.precision.needs_bf16() && !gpu.supports_bf16() {
        return Verdict::Unsupported;
    }
    if peak_bytes > usable {
        Verdict::DoesNotFit
    } else if peak_bytes > usable * (1.0 - TIGHT_HEADROOM) {
        Verdict::Tight
    } else {
        Verdict::Fits
    }
}

/// Layers FSDP wraps as units: a transformer's blocks, or a typical count
/// of a CNN's stages and blocks.
fn units(model: &Model) -> u32 {
    match model {
        Model::Transformer(t) => t.layers,
        Model::Vision(_) => cal::VISION_FSDP_UNITS,
    }
}

/// How `gpu`'s multi-GPU instances connect their cards: NVLink on SXM
/// modules (the catalog's `-sxm` cards and the SXM-only H800 and H200),
/// PCIe otherwise. Platform offers may say otherwise (`interconnect`).
pub fn interconnect(gpu: &Gpu) -> Interconnect {
    if gpu.id.contains("sxm") || matches!(gpu.id.as_str(), "h800" | "h200" | "a800") {
        Interconnect::Nvlink
    } else {
        Interconnect::Pcie
    }
}

/// The multi-GPU layout `job` asks for on `gpu` in an instance like `host`.
pub fn layout(job: &Job, gpu: &Gpu, host: &Host) -> Layout {
    Layout {
        gpus: job.gpus,
        engine: job.engine,
        offload: job.offload,
        interconnect: host.interconnect.unwrap_or_else(|| interconnect(gpu)),
        inter_node_gbps: host.inter_node_gbps,
        gpus_per_node: host.gpus_per_node,
    }
}

/// Peak memory of one GPU of `job` (its layout's per-GPU peak on several
/// GPUs); it does not depend on the card.
pub fn job_peak(model: &Model, job: &Job) -> VramEstimate {
    if job.gpus > 1 {
        let layout = Layout {
            gpus: job.gpus,
            engine: job.engine,
            offload: job.offload,
            interconnect: Interconnect::Pcie,
            inter_node_gbps: None,
            gpus_per_node: None,
        };
        parallel::memory(job, &vram::live(model, job), &layout, units(model))
    } else {
        vram::estimate(model, job)
    }
}

/// Step time of `job` on `gpu`: one GPU's, plus the exposed communication
/// and offload work of its layout on several GPUs.
pub fn step_on(
    model: &Model,
    job: &Job,
    single: &VramEstimate,
    gpu: &Gpu,
    host: &Host,
) -> StepTime {
    let step = steptime::estimate(model, job, single, gpu);
    if job.gpus <= 1 {
        return step;
    }
    match parallel::estimate(
        job,
        &vram::live(model, job),
        &step,
        gpu,
        &layout(job, gpu, host),
        units(model),
    ) {
        Ok(p) => StepTime {
            seconds: p.step_seconds,
            ..step
        },
        Err(_) => step,
    }
}

/// The fewest GPUs of `gpu` (2, 4 or 8 on one instance) and the simplest
/// engine that make `job` fit, when one GPU does not: DDP, then ZeRO-2, then
/// ZeRO-3; only if none fits, ZeRO-3 with the optimizer on the CPU. The
/// GPUs talk as in `host` (else as the card's usual form factor does).
pub fn smallest_layout(
    model: &Model,
    job: &Job,
    gpu: &Gpu,
    host: &Host,
) -> Option<ParallelEstimate> {
    if job.mode == Mode::Infer || (job.precision.needs_bf16() && !gpu.supports_bf16()) {
        return None;
    }
    let live = vram::live(model, job);
    let single = vram::finish(live.clone(), job);
    let step = steptime::estimate(model, job, &single, gpu);
    let limit = usable_bytes(gpu);
    // Offloading is a last resort: it runs the optimizer on the CPU and
    // is several times slower, so every instance size is tried without it
    // first.
    for (engine, offload, gpus) in [false, true].into_iter().flat_map(|offload| {
        [2u32, 4, 8].into_iter().flat_map(move |gpus| {
            let engines: &[Engine] = if offload {
                &[Engine::Zero3]
            } else {
                &[Engine::Ddp, Engine::Zero2, Engine::Zero3]
            };
            engines.iter().map(move |e| (*e, offload, gpus))
        })
    }) {
        {
            let l = Layout {
                gpus,
                engine,
                offload,
                interconnect: host.interconnect.unwrap_or_else(|| interconnect(gpu)),
                inter_node_gbps: host.inter_node_gbps,
                gpus_per_node: host.gpus_per_node,
            };
            let j = Job {
                gpus,
                engine,
                offload,
                ..job.clone()
            };
            if parallel::memory(&j, &live, &l, units(model)).peak_bytes
                <= limit * (1.0 - TIGHT_HEADROOM)
            {
                return parallel::estimate(&j, &live, &step, gpu, &l, units(model)).ok();
            }
        }
    }
    None
}

/// Largest batch whose peak fits in `limit` bytes (0 if none). Peak memory never
/// falls as the batch grows, so a binary search is exact.
pub fn max_batch(model: &Model, job: &Job, limit: f64) -> u32 {
    let peak = |b: u32| {
        job_peak(
            model,
            &Job {
                batch: b,
                ..job.clone()
            },
        )
        .peak_bytes
    };
    if peak(1) > limit {
        return 0;
    }
    let (mut lo, mut hi) = (1u32, MAX_BATCH);
    if peak(hi) <= limit {
        return hi;
    }
    // Bisection on 1 <= lo < hi <= MAX_BATCH: the differences never go below zero.
    while hi.saturating_sub(lo) > 1 {
        let mid = lo.saturating_add(hi.saturating_sub(lo) / 2);
        if peak(mid) <= limit {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// Estimates `job` for `entry` on every card of `catalog`; fixes target `target`
/// (an id or alias), or [`DEFAULT_TARGET_GPU`] when it is `None`.
pub fn estimate(
    entry: &ZooEntry,
    job: &Job,
    catalog: &GpuCatalog,
    target: Option<&Gpu>,
    host: &Host,
) -> Estimate {
    estimate_with(entry, job, catalog, target, host, &Corrections::none())
}

/// [`estimate`] with the corrections learnt from measured runs applied:
/// each card's step and run time by its time factor, and the peak by the
/// memory factor (the verdicts, the largest batch and the fixes are judged
/// on the corrected peak; the breakdown stays the model's). The estimate
/// says what was applied in [`Estimate::calibration`].
pub fn estimate_with(
    entry: &ZooEntry,
    job: &Job,
    catalog: &GpuCatalog,
    target: Option<&Gpu>,
    host: &Host,
    corrections: &Corrections,
) -> Estimate {
    let model = &entry.model;
    let family = model.family();
    let calibration_on = |g: &Gpu| corrections.for_job(family, &g.id, job.mode);
    // One GPU's tensors count the step's work; the peak is per GPU.
    let single = vram::estimate(model, job);
    let vram = job_peak(model, job);
    let reference = reference_gpu(catalog);
    // Memory does not depend on the card, so one factor serves every row: a
    // corrected peak `f * peak` fits `usable` exactly when the model's peak
    // fits `usable / f`.
    let memory = calibration_on(target.unwrap_or(reference));
    let memory_factor = memory.map_or(1.0, |c| c.memory_factor());
    let peak = vram.peak_bytes * memory_factor;
    // A correction below 1 may make a job fit only cards as large as one a
    // measured run fitted on; a smaller card keeps the model's own verdict.
    let evidence = memory.and_then(|c| c.memory_evidence_mib);
    let factor_on = |g: &Gpu| {
        if memory_factor < 1.0 && evidence.is_none_or(|m| g.spec.vram_mib.value < m) {
            1.0
        } else {
            memory_factor
        }
    };
    let limit = |g: &Gpu| usable_bytes(g) / factor_on(g);
    let gpus: Vec<GpuFit> = catalog
        .gpus()
        .iter()
        .map(|g| {
            let v = verdict_under(g, job, vram.peak_bytes * factor_on(g), usable_bytes(g));
            let own = verdict_under(g, job, vram.peak_bytes, usable_bytes(g));
            let max_batch = if v == Verdict::Unsupported {
                0
            } else {
                max_batch(model, job, limit(g))
            };
            // The run is laid out on the model's own step, then the whole of
            // it (and the step) scaled once by the card's time factor.
            let time_factor = calibration_on(g).map_or(1.0, |c| c.time_factor());
            let raw = step_on(model, job, &single, g, host);
            let run = pipeline::run(job, model, &single, &raw, host).map(|r| r.scaled(time_factor));
            let step = raw.scaled(time_factor);
            GpuFit {
                id: g.id.clone(),
                name: g.spec.name.clone(),
                vram_gib: g.vram_gib(),
                verdict: v,
                uncalibrated_verdict: (v != own).then_some(own),
                max_batch,
                step_seconds: step.seconds,
                epoch_seconds: run.map(|r| r.epoch_s),
                run_seconds: run.map(|r| r.total_s),
                bound: run.map(|r| r.bound),
            }
        })
        .collect();
    let target = target
        .or_else(|| catalog.gpus().iter().find(|g| g.id == DEFAULT_TARGET_GPU))
        .or_else(|| catalog.gpus().first());
    let target_card = target.unwrap_or(reference);
    let calibration = calibration_on(target_card);
    let time_factor = calibration.map_or(1.0, |c| c.time_factor());
    let raw_step = step_on(model, job, &single, target_card, host);
    let (target_gpu, fixes) = match target {
        Some(g) => (g.id.clone(), fixes_under(model, job, &vram, g, limit(g))),
        None => (String::new(), Vec::new()),
    };
    let target_run =
        pipeline::run(job, model, &single, &raw_step, host).map(|r| r.scaled(time_factor));
    let target_step = raw_step.scaled(time_factor);
    let parallel = (job.gpus > 1)
        .then(|| {
            let step = steptime::estimate(model, job, &single, target_card);
            parallel::estimate(
                job,
                &vram::live(model, job),
                &step,
                target_card,
                &layout(job, target_card, host),
                units(model),
            )
            .ok()
        })
        .flatten();
    let fits_with = (job.gpus == 1 && peak > usable_bytes(target_card))
        .then(|| smallest_layout(model, job, target_card, host))
        .flatten();
    Estimate {
        model: entry.id.clone(),
        job: job.clone(),
        model_peak_bytes: vram.peak_bytes,
        vram: VramEstimate {
            peak_bytes: peak,
            ..vram
        },
        calibration,
        gpus,
        target_gpu,
        target_step,
        target_run,
        host: *host,
        fixes,
        parallel,
        fits_with,
    }
}

/// What the estimator expects of `job` on `card` with `host`, uncalibrated:
/// the same peak and whole run [`estimate`] gives its target card, computed
/// for that card only (a class pack holds up to 2000 runs to compare).
pub fn expected_on(model: &Model, job: &Job, card: &Gpu, host: &Host) -> Expected {
    let single = vram::estimate(model, job);
    let step = step_on(model, job, &single, card, host);
    let peak = job_peak(model, job);
    Expected {
        run_s: pipeline::run(job, model, &single, &step, host).map(|r| r.total_s),
        peak_bytes: peak.peak_bytes,
        live_bytes: peak.peak_bytes - peak.components.allocator - peak.components.context,
        card_mib: card.spec.vram_mib.value,
    }
}

/// Concrete changes that make `job` fit `gpu`, cheapest in accuracy first.
pub fn fixes(model: &Model, job: &Job, current: &VramEstimate, gpu: &Gpu) -> Vec<Fix> {
    fixes_under(model, job, current, gpu, usable_bytes(gpu))
}

/// [`fixes`] against `limit` bytes of the model's peak (the card's usable
/// memory over a calibrated memory factor).
fn fixes_under(
    model: &Model,
    job: &Job,
    current: &VramEstimate,
    gpu: &Gpu,
    limit: f64,
) -> Vec<Fix> {
    if (gpu.supports_bf16() || !job.precision.needs_bf16()) && current.peak_bytes <= limit {
        return Vec::new();
    }
    let half = if gpu.supports_bf16() {
        Precision::Bf16Amp
    } else {
        Precision::Fp16Amp
    };
    let transformer = matches!(model, Model::Transformer(_));
    let mut candidates: Vec<(&str, Job)> = Vec::new();
    if job.precision.needs_bf16() && !gpu.supports_bf16() {
        candidates.push((
            "amp",
            Job {
                precision: Precision::Fp16Amp,
                ..job.clone()
            },
        ));
    }
    if job.precision == Precision::Fp32 && job.mode != Mode::Infer {
        candidates.push((
            "amp",
            Job {
                precision: half,
                ..job.clone()
            },
        ));
    }
    if !job.grad_checkpointing && job.mode != Mode::Infer {
        candidates.push((
            "grad-checkpointing",
            Job {
                grad_checkpointing: true,
                ..job.clone()
            },
        ));
    }
    if matches!(job.optimizer, Optimizer::Adam | Optimizer::Adamw) && job.mode == Mode::Train {
        candidates.push((
            "adamw-8bit",
            Job {
                optimizer: Optimizer::Adamw8bit,
                ..job.clone()
            },
        ));
    }
    if transformer && job.mode == Mode::Train {
        let p = if gpu.supports_bf16() {
            Precision::Bf16
        } else {
            Precision::Fp16Amp
        };
        let lora = Job {
            mode: Mode::Lora,
            precision: p,
            lora_rank: 16,
            lora_targets: vec![crate::job::LoraTarget::Q, crate::job::LoraTarget::V],
            ..job.clone()
        };
        candidates.push(("lora", lora.clone()));
        candidates.push((
            "lora",
            Job {
                grad_checkpointing: true,
                ..lora.clone()
            },
        ));
        candidates.push((
            "qlora",
            Job {
                mode: Mode::Qlora,
                grad_checkpointing: true,
                ..lora
            },
        ));
    }
    if transformer && job.mode == Mode::Lora {
        candidates.push((
            "qlora",
            Job {
                mode: Mode::Qlora,
                grad_checkpointing: true,
                ..job.clone()
            },
        ));
    }
    let mut out = Vec::new();
    let push = |kind: &str, j: Job, accumulation: Option<u32>, out: &mut Vec<Fix>| {
        if j.precision.needs_bf16() && !gpu.supports_bf16() {
            return;
        }
        let v = vram::estimate(model, &j);
        if v.peak_bytes <= limit {
            // Per effective step: accumulation runs the micro-batch several times.
            let step = steptime::estimate(model, &j, &v, gpu).seconds
                * f64::from(accumulation.unwrap_or(1));
            out.push(Fix {
                kind: kind.to_owned(),
                job: j,
                peak_gib: v.peak_bytes / GIB,
                accumulation_steps: accumulation,
                step_seconds: step,
            });
        }
    };
    for (kind, j) in candidates {
        push(kind, j, None, &mut out);
    }
    // A smaller micro-batch with gradient accumulation keeps the effective batch,
    // also combined with the cheapest memory saver that lets some batch fit.
    if job.mode != Mode::Infer && job.batch > 1 {
        let base = if job.precision.needs_bf16() && !gpu.supports_bf16() {
            Job {
                precision: Precision::Fp16Amp,
                ..job.clone()
            }
        } else {
            job.clone()
        };
        let b = max_batch(model, &base, limit);
        if b >= 1 {
            let steps = job.batch.div_ceil(b);
            let micro = job.batch.div_ceil(steps);
            push(
                "smaller-batch",
                Job {
                    batch: micro,
                    ..base
                },
                Some(steps),
                &mut out,
            );
        }
    }
    out
}

/// The stable JSON shape of `gpuplan estimate --json` (documented in
/// `docs/cli.md`). Memory figures are GiB numbers.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct EstimateReport {
    /// Schema version of this object.
    pub schema: u32,
    /// Model id.
    pub model: String,
    /// Model display name.
    pub model_name: String,
    /// The resolved job.
    pub job: Job,
    /// Parameters of the model.
    pub params: u64,
    /// Parameters that learn.
    pub trainable_params: u64,
    /// Peak process memory, GiB (calibrated when a memory correction
    /// applies).
    pub peak_gib: f64,
    /// The model's own peak, GiB: the breakdown adds up to it.
    pub model_peak_gib: f64,
    /// What corrections from measured runs changed, when any were looked at.
    pub calibration: Option<Calibration>,
    /// Which moment of the step holds the peak.
    pub phase: vram::Phase,
    /// Breakdown of the peak, GiB.
    pub components: std::collections::BTreeMap<String, f64>,
    /// One row per catalog card.
    pub gpus: Vec<GpuFit>,
    /// The card `--gpu` named, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu: Option<String>,
    /// Seconds per step on the `--gpu` card, if one was named.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub step_seconds: Option<f64>,
    /// Card the fixes are for.
    pub target_gpu: String,
    /// Where the whole run's seconds go on the target card, when the dataset
    /// size is known: GPU compute, input waits, evaluation, checkpoints,
    /// warm-up.
    pub run: Option<RunParts>,
    /// The host the run is timed on (vCPUs, memory, disk).
    pub host: Host,
    /// Fixes for the target card (empty when the job fits it).
    pub fixes: Vec<Fix>,
    /// On several GPUs (when asked): per-GPU memory, step time and
    /// communication on the target card.
    pub parallel: Option<ParallelEstimate>,
    /// When one target card is too small: the fewest GPUs and the engine
    /// that fit.
    pub fits_with: Option<ParallelEstimate>,
}

impl Estimate {
    /// The JSON report; `named_gpu` is the card the user asked about, if any.
    pub fn report(&self, model_name: &str, named_gpu: Option<&str>) -> EstimateReport {
        EstimateReport {
            schema: 1,
            model: self.model.clone(),
            model_name: model_name.to_owned(),
            job: self.job.clone(),
            params: self.vram.params,
            trainable_params: self.vram.trainable_params,
            peak_gib: self.vram.peak_gib(),
            model_peak_gib: self.model_peak_bytes / GIB,
            calibration: self.calibration,
            phase: self.vram.phase,
            components: self
                .vram
                .components
                .gib_entries()
                .iter()
                .map(|(k, v)| ((*k).to_owned(), *v))
                .collect(),
            gpus: self.gpus.clone(),
            gpu: named_gpu.map(str::to_owned),
            step_seconds: named_gpu.map(|_| self.target_step.seconds),
            target_gpu: self.target_gpu.clone(),
            run: self.target_run,
            host: self.host,
            fixes: self.fixes.clone(),
            parallel: self.parallel.clone(),
            fits_with: self.fits_with.clone(),
        }
    }
}
