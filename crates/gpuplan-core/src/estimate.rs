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
use crate::vocab::GIB;
use crate::vram::{self, VramEstimate};
use crate::zoo::{Model, ZooEntry};

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

/// What a [`Fix`] changes, spelled in JSON and catalog keys
/// (`enum.fix.*`) in kebab-case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub enum FixKind {
    /// Mixed precision (or FP16 where the card has no BF16).
    Amp,
    /// Activation checkpointing.
    GradCheckpointing,
    /// 8-bit AdamW states.
    #[serde(rename = "adamw-8bit")]
    Adamw8bit,
    /// LoRA adapters instead of full fine-tuning.
    Lora,
    /// LoRA adapters with activation checkpointing: less memory than LoRA
    /// alone, a slower step (told apart from it on the list).
    LoraCheckpointed,
    /// QLoRA: a 4-bit base under LoRA.
    Qlora,
    /// A smaller micro-batch with gradient accumulation.
    SmallerBatch,
}

impl FixKind {
    /// Whether the fix trains something else than the job asked for (LoRA
    /// adapters instead of the full model): a student asking for full
    /// fine-tuning is also shown the GPUs that do it as asked.
    pub fn changes_the_task(self) -> bool {
        matches!(self, Self::Lora | Self::LoraCheckpointed | Self::Qlora)
    }

    /// Every kind.
    pub const ALL: [Self; 7] = [
        Self::Amp,
        Self::GradCheckpointing,
        Self::Adamw8bit,
        Self::Lora,
        Self::LoraCheckpointed,
        Self::Qlora,
        Self::SmallerBatch,
    ];

    /// The kind as spelled in JSON and catalog keys.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Amp => "amp",
            Self::GradCheckpointing => "grad-checkpointing",
            Self::Adamw8bit => "adamw-8bit",
            Self::Lora => "lora",
            Self::LoraCheckpointed => "lora-checkpointed",
            Self::Qlora => "qlora",
            Self::SmallerBatch => "smaller-batch",
        }
    }
}

impl std::fmt::Display for FixKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

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
    /// What the fix changes.
    pub kind: FixKind,
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
        // The student's own board, where the job states it, over the offer's.
        pcie_gbps: job.pcie_gbps.or(host.pcie_gbps),
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
            pcie_gbps: None,
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
                pcie_gbps: job.pcie_gbps.or(host.pcie_gbps),
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
    let vram = job_peak(model, job);
    let reference = reference_gpu(catalog);
    let memory = MemoryFactor::of(calibration_on(target.unwrap_or(reference)).as_ref());
    let peak = vram.peak_bytes * memory.factor;
    let on_card = OnCard {
        model,
        job,
        single: vram::estimate(model, job),
        vram: &vram,
        host,
        target: target.map(|g| g.id.as_str()),
        memory,
    };
    let gpus = catalog
        .gpus()
        .iter()
        .map(|g| on_card.row(g, calibration_on(g).map_or(1.0, |c| c.time_factor())))
        .collect();
    let target = target
        .or_else(|| catalog.gpus().iter().find(|g| g.id == DEFAULT_TARGET_GPU))
        .or_else(|| catalog.gpus().first());
    let target_card = target.unwrap_or(reference);
    let calibration = calibration_on(target_card);
    let time_factor = calibration.map_or(1.0, |c| c.time_factor());
    let (target_step, target_run) = on_card.timed(target_card, time_factor);
    let (target_gpu, fixes) = match target {
        Some(g) => (
            g.id.clone(),
            fixes_under(
                model,
                job,
                &vram,
                (g, &on_card.host_on(g)),
                on_card.limit(g),
            ),
        ),
        None => (String::new(), Vec::new()),
    };
    let fits_with = (job.gpus == 1 && peak > usable_bytes(target_card))
        .then(|| smallest_layout(model, job, target_card, host))
        .flatten();
    Estimate {
        model: entry.id.clone(),
        job: job.clone(),
        model_peak_bytes: vram.peak_bytes,
        vram: VramEstimate {
            peak_bytes: peak,
            ..vram.clone()
        },
        calibration,
        gpus,
        target_gpu,
        target_step,
        target_run,
        host: *host,
        fixes,
        parallel: on_card.parallel(target_card),
        fits_with,
    }
}

/// The memory correction learnt from measured runs, as it applies card by
/// card. Memory does not depend on the card, so one factor serves every
/// row: a corrected peak `f * peak` fits `usable` exactly when the model's
/// peak fits `usable / f`.
#[derive(Debug, Clone, Copy)]
struct MemoryFactor {
    factor: f64,
    /// The largest card a measured run fitted on, MiB.
    evidence_mib: Option<f64>,
}

impl MemoryFactor {
    fn of(calibration: Option<&Calibration>) -> Self {
        Self {
            factor: calibration.map_or(1.0, |c| c.memory_factor()),
            evidence_mib: calibration.and_then(|c| c.memory_evidence_mib),
        }
    }

    /// The factor on `g`: a correction below 1 may make a job fit only
    /// cards as large as one a measured run fitted on; a smaller card keeps
    /// the model's own verdict.
    fn on(self, g: &Gpu) -> f64 {
        if self.factor < 1.0 && self.evidence_mib.is_none_or(|m| g.spec.vram_mib.value < m) {
            1.0
        } else {
            self.factor
        }
    }
}

/// One job judged card by card: what [`estimate_with`] computes per row.
struct OnCard<'a> {
    model: &'a Model,
    job: &'a Job,
    /// One GPU's tensors: they count the step's work (the peak is per GPU).
    single: VramEstimate,
    vram: &'a VramEstimate,
    host: &'a Host,
    /// The card `host`'s offer links are for; every other card is timed on
    /// its own usual links ([`Host::without_offer`]).
    target: Option<&'a str>,
    memory: MemoryFactor,
}

impl OnCard<'_> {
    /// The machine `g` is timed on: the target offer's, or the platform's
    /// without that offer's links.
    fn host_on(&self, g: &Gpu) -> Host {
        if self.target == Some(g.id.as_str()) {
            *self.host
        } else {
            self.host.without_offer()
        }
    }

    /// Bytes of the model's peak that fit `g` under the memory correction.
    fn limit(&self, g: &Gpu) -> f64 {
        usable_bytes(g) / self.memory.on(g)
    }

    /// The step and the whole run on `g`: the run is laid out on the
    /// model's own step, then the whole of it (and the step) scaled once by
    /// the card's time factor.
    fn timed(&self, g: &Gpu, time_factor: f64) -> (StepTime, Option<RunParts>) {
        let host = self.host_on(g);
        let raw = step_on(self.model, self.job, &self.single, g, &host);
        let run = pipeline::run(self.job, self.model, &self.single, &raw, &host)
            .map(|r| r.scaled(time_factor));
        (raw.scaled(time_factor), run)
    }

    /// `g`'s row of the table.
    fn row(&self, g: &Gpu, time_factor: f64) -> GpuFit {
        let peak = self.vram.peak_bytes;
        let v = verdict_under(g, self.job, peak * self.memory.on(g), usable_bytes(g));
        let own = verdict_under(g, self.job, peak, usable_bytes(g));
        let max_batch = if v == Verdict::Unsupported {
            0
        } else {
            max_batch(self.model, self.job, self.limit(g))
        };
        let (step, run) = self.timed(g, time_factor);
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
    }

    /// The multi-GPU layout on `card`, when the job asks for several GPUs.
    fn parallel(&self, card: &Gpu) -> Option<ParallelEstimate> {
        if self.job.gpus <= 1 {
            return None;
        }
        let step = steptime::estimate(self.model, self.job, &self.single, card);
        parallel::estimate(
            self.job,
            &vram::live(self.model, self.job),
            &step,
            card,
            &layout(self.job, card, &self.host_on(card)),
            units(self.model),
        )
        .ok()
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

/// Concrete changes that make `job` fit `gpu` in an instance like `host`,
/// cheapest in accuracy first.
pub fn fixes(model: &Model, job: &Job, current: &VramEstimate, gpu: &Gpu, host: &Host) -> Vec<Fix> {
    fixes_under(model, job, current, (gpu, host), usable_bytes(gpu))
}

/// [`fixes`] against `limit` bytes of the model's peak (the card's usable
/// memory over a calibrated memory factor).
fn fixes_under(
    model: &Model,
    job: &Job,
    current: &VramEstimate,
    (gpu, host): (&Gpu, &Host),
    limit: f64,
) -> Vec<Fix> {
    if (gpu.supports_bf16() || !job.precision.needs_bf16()) && current.peak_bytes <= limit {
        return Vec::new();
    }
    let try_fix = |kind: FixKind, j: Job, accumulation: Option<u32>| -> Option<Fix> {
        if j.precision.needs_bf16() && !gpu.supports_bf16() {
            return None;
        }
        // On several GPUs, the layout's per-GPU peak and step (its engine,
        // offload and links), as the job itself is judged.
        let v = job_peak(model, &j);
        let single = vram::estimate(model, &j);
        // Per effective step: accumulation runs the micro-batch several times.
        (v.peak_bytes <= limit).then(|| Fix {
            kind,
            step_seconds: step_on(model, &j, &single, gpu, host).seconds
                * f64::from(accumulation.unwrap_or(1)),
            job: j,
            peak_gib: v.peak_bytes / GIB,
            accumulation_steps: accumulation,
        })
    };
    let mut out: Vec<Fix> = fix_candidates(model, job, gpu)
        .into_iter()
        .filter_map(|(kind, j)| try_fix(kind, j, None))
        .collect();
    out.extend(
        smaller_batch(model, job, gpu, limit)
            .and_then(|(j, steps)| try_fix(FixKind::SmallerBatch, j, Some(steps))),
    );
    out
}

/// The changes worth trying, cheapest in accuracy first: each a whole job.
fn fix_candidates(model: &Model, job: &Job, gpu: &Gpu) -> Vec<(FixKind, Job)> {
    let with = |f: &dyn Fn(&mut Job)| {
        let mut j = job.clone();
        f(&mut j);
        j
    };
    let half = if gpu.supports_bf16() {
        Precision::Bf16Amp
    } else {
        Precision::Fp16Amp
    };
    let training = job.mode != Mode::Infer;
    let mut candidates = Vec::new();
    if job.precision.needs_bf16() && !gpu.supports_bf16() {
        candidates.push((FixKind::Amp, with(&|j| j.precision = Precision::Fp16Amp)));
    }
    if job.precision == Precision::Fp32 && training {
        candidates.push((FixKind::Amp, with(&|j| j.precision = half)));
    }
    if !job.grad_checkpointing && training {
        candidates.push((
            FixKind::GradCheckpointing,
            with(&|j| j.grad_checkpointing = true),
        ));
    }
    if matches!(job.optimizer, Optimizer::Adam | Optimizer::Adamw) && job.mode == Mode::Train {
        candidates.push((
            FixKind::Adamw8bit,
            with(&|j| j.optimizer = Optimizer::Adamw8bit),
        ));
    }
    if !matches!(model, Model::Transformer(_)) {
        return candidates;
    }
    let qlora = |j: &Job| Job {
        mode: Mode::Qlora,
        grad_checkpointing: true,
        ..j.clone()
    };
    if job.mode == Mode::Train {
        let lora = Job {
            mode: Mode::Lora,
            precision: if gpu.supports_bf16() {
                Precision::Bf16
            } else {
                Precision::Fp16Amp
            },
            lora_rank: 16,
            lora_targets: vec![crate::job::LoraTarget::Q, crate::job::LoraTarget::V],
            ..job.clone()
        };
        let checkpointed = Job {
            grad_checkpointing: true,
            ..lora.clone()
        };
        let quantised = qlora(&lora);
        candidates.push((FixKind::Lora, lora));
        candidates.push((FixKind::LoraCheckpointed, checkpointed));
        candidates.push((FixKind::Qlora, quantised));
    }
    if job.mode == Mode::Lora {
        candidates.push((FixKind::Qlora, qlora(job)));
    }
    candidates
}

/// A smaller micro-batch, with the gradient-accumulation steps that keep
/// the effective batch; on a card without BF16 also in FP16 (the cheapest
/// memory saver that lets some batch fit).
fn smaller_batch(model: &Model, job: &Job, gpu: &Gpu, limit: f64) -> Option<(Job, u32)> {
    if job.mode == Mode::Infer || job.batch <= 1 {
        return None;
    }
    let base = if job.precision.needs_bf16() && !gpu.supports_bf16() {
        Job {
            precision: Precision::Fp16Amp,
            ..job.clone()
        }
    } else {
        job.clone()
    };
    let b = max_batch(model, &base, limit);
    if b < 1 {
        return None;
    }
    // micro x steps is the batch exactly: 8 where 3 fit is 2 x 4, not
    // 3 x 3 (9 samples a step would change the learning-rate recipe).
    let micro = largest_divisor_within(job.batch, b);
    Some((
        Job {
            batch: micro,
            ..base
        },
        job.batch.checked_div(micro).unwrap_or(job.batch),
    ))
}

/// The largest divisor of `n` that is at most `most` (at least 1).
fn largest_divisor_within(n: u32, most: u32) -> u32 {
    let mut best = 1;
    // Divisors come in pairs (i, n / i) with i <= sqrt(n); i starts at 1,
    // so no division is by zero.
    for i in 1..=n {
        let Some(pair) = n.checked_div(i) else { break };
        if i > pair {
            break;
        }
        if n.is_multiple_of(i) {
            for d in [i, pair] {
                if d <= most && d > best {
                    best = d;
                }
            }
        }
    }
    best
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
