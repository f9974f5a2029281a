//! The whole run around the GPU steps: what a student is billed for beyond
//! the forward and backward passes.
//!
//! - **The input pipeline.** DataLoader workers decode and augment samples
//!   on the host's CPU cores and read them from its disk; a step waits for
//!   its batch when the workers are slower than the GPU ("data-loading
//!   bound"). With `num_workers = 0` the training process loads each batch
//!   itself, so loading and computing add up.
//! - **Evaluation passes**: a forward pass over the validation set every few
//!   epochs.
//! - **Checkpoint saves**: weights and optimizer states written to disk.
//! - **Warm-up**: CUDA context, cuDNN autotuning and the first iterations,
//!   plus compilation with `torch.compile`.
//! - **The first epoch's cold cache**: files read from disk once; later
//!   epochs hit the page cache when the dataset fits in the host's memory.
//!
//! Each constant is in `calibration.rs` with its source. The split is what
//! the app draws and what the plan's hours are made of.

use serde::{Deserialize, Serialize};

use crate::calibration as cal;
use crate::job::{DatasetKind, Job, Mode};
use crate::steptime::StepTime;
use crate::vram::VramEstimate;
use crate::zoo::Model;

/// Where a dataset lives on the host.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub enum DiskKind {
    /// A local NVMe drive.
    LocalNvme,
    /// A local SATA SSD.
    LocalSsd,
    /// A network disk (cloud block storage, a cluster's shared file system).
    Network,
    /// An object store mounted as files.
    ObjectStore,
}

impl DiskKind {
    /// Every disk kind, for forms and label checks.
    pub const ALL: [DiskKind; 4] = [
        Self::LocalNvme,
        Self::LocalSsd,
        Self::Network,
        Self::ObjectStore,
    ];

    /// Read bandwidth for training reads, bytes per second.
    pub fn read_bytes_per_s(self) -> f64 {
        match self {
            Self::LocalNvme => cal::DISK_READ_NVME,
            Self::LocalSsd => cal::DISK_READ_SSD,
            Self::Network => cal::DISK_READ_NETWORK,
            Self::ObjectStore => cal::DISK_READ_OBJECT,
        }
    }

    /// Write bandwidth for checkpoints, bytes per second.
    pub fn write_bytes_per_s(self) -> f64 {
        match self {
            Self::LocalNvme => cal::DISK_WRITE_NVME,
            Self::LocalSsd => cal::DISK_WRITE_SSD,
            Self::Network => cal::DISK_WRITE_NETWORK,
            Self::ObjectStore => cal::DISK_WRITE_OBJECT,
        }
    }
}

/// The machine around the GPU, per GPU.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Host {
    /// CPU cores (vCPUs) the instance has per GPU.
    pub vcpus: u32,
    /// Host memory per GPU, GB.
    pub ram_gb: f64,
    /// Where the data lives.
    pub disk: DiskKind,
    /// How the GPUs of one instance talk, where the offer says; else the
    /// card's usual form factor decides.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub interconnect: Option<crate::parallel::Interconnect>,
    /// Network bandwidth of each node to the others, Gb/s, where the offer
    /// says (multi-node plans); else a campus cluster's InfiniBand HDR.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub inter_node_gbps: Option<f64>,
    /// GPUs in one node where the offer says (a DGX-2 holds 16); else 8.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub gpus_per_node: Option<u32>,
    /// The PCIe link the board gives each GPU, GB/s each way, where the
    /// offer says; else a typical host's bus bandwidth.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub pcie_gbps: Option<f64>,
}

impl Host {
    /// The same machine without what one offer of one card says (how its
    /// GPUs talk, its nodes, its board's PCIe link): another card's row is
    /// timed on its own usual links, not the target offer's.
    pub fn without_offer(&self) -> Host {
        Host {
            interconnect: None,
            inter_node_gbps: None,
            gpus_per_node: None,
            pcie_gbps: None,
            ..*self
        }
    }

    /// A typical rented single-GPU instance when no platform is named: eight
    /// vCPUs, 32 GB and a local SSD.
    pub const TYPICAL: Host = Host {
        vcpus: 8,
        ram_gb: 32.0,
        disk: DiskKind::LocalSsd,
        interconnect: None,
        inter_node_gbps: None,
        gpus_per_node: None,
        pcie_gbps: None,
    };
}

/// What bounds the steps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub enum Bound {
    /// The GPU: the workers keep up.
    Gpu,
    /// The input pipeline: more workers or a pre-decoded format would help.
    Input,
}

impl Bound {
    /// Both bounds, for label checks.
    pub const ALL: [Bound; 2] = [Self::Gpu, Self::Input];
}

/// Where a run's seconds go.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct RunParts {
    /// Steps per epoch.
    pub steps_per_epoch: u64,
    /// Seconds the GPU needs per step.
    pub gpu_step_s: f64,
    /// Seconds the input pipeline needs per step (from cache).
    pub input_step_s: f64,
    /// What bounds the steps.
    pub bound: Bound,
    /// How much faster the run would be if the input pipeline kept up, as a
    /// share of the run (0 when GPU-bound).
    pub input_share: f64,
    /// GPU compute over the run, seconds.
    pub compute_s: f64,
    /// Time the GPU waits for input (and host-to-device copies), seconds.
    pub input_wait_s: f64,
    /// Evaluation passes, seconds.
    pub eval_s: f64,
    /// Checkpoint saves, seconds.
    pub checkpoint_s: f64,
    /// Warm-up and compilation, seconds.
    pub warmup_s: f64,
    /// The first epoch's extra reads from a cold disk, seconds.
    pub cold_cache_s: f64,
    /// Seconds of one epoch (steps only).
    pub epoch_s: f64,
    /// The whole run, seconds.
    pub total_s: f64,
}

impl RunParts {
    /// Keys of the parts of a run, in the order they are shown.
    pub const KEYS: [&'static str; 6] = [
        "compute",
        "input",
        "eval",
        "checkpoint",
        "warmup",
        "cold-cache",
    ];

    /// The run with every part multiplied by a calibration factor (measured
    /// runs say the whole run's time, not which part of it was off, so every
    /// part moves alike and the parts still add up to the total).
    pub fn scaled(self, factor: f64) -> Self {
        Self {
            gpu_step_s: self.gpu_step_s * factor,
            input_step_s: self.input_step_s * factor,
            compute_s: self.compute_s * factor,
            input_wait_s: self.input_wait_s * factor,
            eval_s: self.eval_s * factor,
            checkpoint_s: self.checkpoint_s * factor,
            warmup_s: self.warmup_s * factor,
            cold_cache_s: self.cold_cache_s * factor,
            epoch_s: self.epoch_s * factor,
            total_s: self.total_s * factor,
            ..self
        }
    }

    /// The parts as (key, seconds), in [`RunParts::KEYS`] order; they add up
    /// to `total_s`.
    pub fn parts(&self) -> [(&'static str, f64); 6] {
        [
            ("compute", self.compute_s),
            ("input", self.input_wait_s),
            ("eval", self.eval_s),
            ("checkpoint", self.checkpoint_s),
            ("warmup", self.warmup_s),
            ("cold-cache", self.cold_cache_s),
        ]
    }

    /// Each part's share of the run in whole percent, in [`RunParts::parts`]
    /// order, adding up to exactly 100 (largest remainders get the points
    /// rounding leaves over): shares rounded one by one can print 101%.
    pub fn percents(&self) -> [u32; 6] {
        let parts = self.parts();
        let total: f64 = parts.iter().map(|(_, s)| s.max(0.0)).sum();
        let mut out = [0u32; 6];
        if !(total.is_finite() && total > 0.0) {
            return out;
        }
        let exact: Vec<f64> = parts
            .iter()
            .map(|(_, s)| s.max(0.0) / total * 100.0)
            .collect();
        let mut left = 100u32;
        for (o, e) in out.iter_mut().zip(&exact) {
            // In 0..=100 by construction: each share is at most the total.
            *o = e.floor().clamp(0.0, 100.0) as u32;
            left = left.saturating_sub(*o);
        }
        let mut order: Vec<usize> = (0..exact.len()).collect();
        order.sort_by(|&a, &b| {
            (exact[b] - exact[b].floor()).total_cmp(&(exact[a] - exact[a].floor()))
        });
        for &i in order.iter().take(left as usize) {
            out[i] = out[i].saturating_add(1);
        }
        out
    }
}

/// CPU seconds to prepare one sample for training (decode and augment) on
/// one worker.
fn cpu_s_per_sample(job: &Job, model: &Model) -> f64 {
    let side = job.side().max(1.0);
    match job.dataset {
        // Small images: the cost is per sample, not per pixel.
        DatasetKind::InMemory => 1.0 / cal::IN_MEMORY_SAMPLES_PER_CORE,
        // JPEG decoding scales with pixels; the rate is for ImageNet-sized
        // files (~400x350) cropped to 224.
        DatasetKind::JpegFolder => {
            let pixels = (side / 224.0).powi(2).max(0.25);
            pixels / cal::JPEG_SAMPLES_PER_CORE
        }
        DatasetKind::Packed => (side / 224.0).powi(2).max(0.05) / cal::PACKED_SAMPLES_PER_CORE,
        DatasetKind::Text => {
            let tokens = match model {
                Model::Transformer(_) => f64::from(job.seq_len.max(1)),
                Model::Vision(_) => 512.0,
            };
            (tokens / 512.0).max(0.1) / cal::TEXT_SAMPLES_PER_CORE
        }
    }
}

/// Bytes one sample reads from disk.
fn bytes_per_sample(job: &Job) -> f64 {
    let side = job.side().max(1.0);
    match job.dataset {
        DatasetKind::InMemory => side * side * 3.0,
        DatasetKind::JpegFolder => cal::JPEG_BYTES_AT_224 * (side / 224.0).powi(2).max(0.25),
        DatasetKind::Packed => side * side * 3.0,
        DatasetKind::Text => f64::from(job.seq_len.max(1)) * 4.0,
    }
}

/// Bytes copied to the GPU per sample (float images, integer tokens).
fn device_bytes_per_sample(job: &Job) -> f64 {
    match job.dataset {
        DatasetKind::Text => f64::from(job.seq_len.max(1)) * 8.0,
        _ => job.side().powi(2) * 3.0 * 4.0,
    }
}

/// The whole run of `job` on a card whose training step is `step`, on `host`:
/// `None` when the dataset size is unknown (no epochs to count).
pub fn run(
    job: &Job,
    model: &Model,
    vram: &VramEstimate,
    step: &StepTime,
    host: &Host,
) -> Option<RunParts> {
    let samples = job.dataset_samples?;
    let epochs = job.epochs.unwrap_or(1.0);
    let batch = f64::from(job.batch.max(1));
    // Every GPU takes its own batch each step; the input pipeline below is
    // per GPU (each rank has its workers on its share of the host).
    let gpus = f64::from(job.gpus.max(1));
    let steps_per_epoch = (samples as f64 / (batch * gpus)).ceil().max(1.0);
    // Compilation makes the steps faster once it is done.
    let gpu_step = step.seconds
        * if job.compile {
            cal::COMPILE_SPEEDUP
        } else {
            1.0
        };
    let feed = Feed::of(job, model, host, gpu_step, samples);
    let epoch_s = feed.step_s * steps_per_epoch;
    let steps = steps_per_epoch * epochs;
    let cold_cache_s = if job.dataset == DatasetKind::InMemory {
        // The arrays are read once into memory when the dataset is built.
        feed.dataset_bytes / host.disk.read_bytes_per_s()
    } else {
        (feed.cold_step_s - feed.step_s).max(0.0) * steps_per_epoch * epochs.min(1.0)
    };
    let compute_s = gpu_step * steps;
    let input_wait_s = (feed.step_s - gpu_step) * steps;
    let eval_s = eval_seconds(job, &feed, gpu_step) / gpus;
    let checkpoint_s = checkpoint_seconds(job, vram, host);
    let warmup_s = cal::WARMUP_S + if job.compile { cal::COMPILE_S } else { 0.0 };
    let total_s = compute_s + input_wait_s + eval_s + checkpoint_s + warmup_s + cold_cache_s;
    let input_step = feed.input_step_s;
    let (bound, input_share) = if input_step > gpu_step && total_s > 0.0 {
        (Bound::Input, (input_wait_s / total_s).clamp(0.0, 1.0))
    } else {
        (Bound::Gpu, 0.0)
    };
    Some(RunParts {
        steps_per_epoch: steps_per_epoch as u64,
        gpu_step_s: gpu_step,
        input_step_s: input_step,
        bound,
        input_share,
        compute_s,
        input_wait_s,
        eval_s,
        checkpoint_s,
        warmup_s,
        cold_cache_s,
        epoch_s,
        total_s,
    })
}

/// How the input pipeline feeds one GPU's steps.
struct Feed {
    /// Seconds the workers need to prepare a batch (warm epochs).
    input_step_s: f64,
    /// Seconds per step with the input waits and the copy to the GPU, warm.
    step_s: f64,
    /// The same in the first epoch, read from disk.
    cold_step_s: f64,
    /// The dataset as read, bytes.
    dataset_bytes: f64,
    /// CPU seconds to decode one sample.
    cpu_per_sample: f64,
    /// Data-loader workers that run.
    workers: f64,
}

impl Feed {
    fn of(job: &Job, model: &Model, host: &Host, gpu_step: f64, samples: u64) -> Self {
        let batch = f64::from(job.batch.max(1));
        // The workers: at most all cores but one (the training process's own).
        let workers = f64::from(job.num_workers.min(host.vcpus.saturating_sub(1)));
        let cpu_per_sample = cpu_s_per_sample(job, model);
        let cpu_batch = cpu_per_sample * batch;
        let disk_batch = bytes_per_sample(job) * batch / host.disk.read_bytes_per_s();
        let copy = device_bytes_per_sample(job) * batch / cal::HOST_TO_DEVICE_BYTES_PER_S;
        // Later epochs come from the page cache when the dataset fits in memory.
        let dataset_bytes = bytes_per_sample(job) * samples as f64;
        let cached = dataset_bytes <= host.ram_gb * 1e9 * cal::PAGE_CACHE_SHARE;
        let (input_step_s, step_s, cold_step_s) = if workers >= 1.0 {
            let cpu = cpu_batch / workers;
            let warm_input = if cached { cpu } else { cpu.max(disk_batch) };
            let cold_input = cpu.max(disk_batch);
            (
                warm_input,
                gpu_step.max(warm_input) + copy,
                gpu_step.max(cold_input) + copy,
            )
        } else {
            // No workers: the training process loads, then computes.
            let warm_input = cpu_batch + if cached { 0.0 } else { disk_batch };
            (
                warm_input,
                gpu_step + warm_input + copy,
                gpu_step + cpu_batch + disk_batch + copy,
            )
        };
        Self {
            input_step_s,
            step_s,
            cold_step_s,
            dataset_bytes,
            cpu_per_sample,
            workers,
        }
    }
}

/// Seconds of evaluation over the run on one GPU's share of the work: a
/// forward pass (a third of a training step's work per sample) over the
/// validation set, its input decoded without augmentation.
fn eval_seconds(job: &Job, feed: &Feed, gpu_step: f64) -> f64 {
    let epochs = job.epochs.unwrap_or(1.0);
    let evals = if job.mode != Mode::Infer && job.eval_every_epochs > 0.0 {
        (epochs / job.eval_every_epochs).floor()
    } else {
        0.0
    };
    let batch = f64::from(job.batch.max(1));
    let eval_per_sample = (gpu_step / batch / cal::TRAIN_TO_EVAL_WORK)
        .max(feed.cpu_per_sample * cal::EVAL_DECODE_SHARE / feed.workers.max(1.0));
    evals * job.val_samples as f64 * eval_per_sample
}

/// Seconds writing checkpoints: the weights and the optimizer states, as
/// saved (FP32 master weights and states; adapters only for LoRA).
fn checkpoint_seconds(job: &Job, vram: &VramEstimate, host: &Host) -> f64 {
    let epochs = job.epochs.unwrap_or(1.0);
    let saves = if job.mode != Mode::Infer && job.save_every_epochs > 0.0 {
        (epochs / job.save_every_epochs).floor()
    } else {
        0.0
    };
    let checkpoint_bytes = match job.mode {
        Mode::Lora | Mode::Qlora => vram.trainable_params as f64 * 4.0 * 3.0,
        _ => vram.components.optimizer + vram.params as f64 * 4.0,
    };
    saves * checkpoint_bytes / host.disk.write_bytes_per_s()
}
