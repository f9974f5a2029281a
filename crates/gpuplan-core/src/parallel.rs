//! Training on several GPUs of one instance (or nodes of a cluster) with
//! the engines students use: PyTorch DDP, FSDP (full shard or shard-grad-op)
//! and DeepSpeed ZeRO stages 1-3, optionally offloading optimizer states to
//! the CPU.
//!
//! Memory per GPU: activations, logits and workspaces are the single-GPU
//! job's at the same per-GPU batch; the model states (weights, gradients,
//! optimizer states) are laid out the way each engine keeps them and divided
//! by the data-parallel degree where the engine shards them, plus the
//! engine's own buffers (DDP's gradient buckets, ZeRO's reduce and gather
//! buckets, FSDP's gathered unit). DeepSpeed keeps 16-bit working weights
//! and gradients with FP32 master weights inside the optimizer state, which
//! gives its published per-GPU model-state formulas (ZeRO-1 `4Ψ + 12Ψ/N`,
//! ZeRO-2 `2Ψ + 14Ψ/N`, ZeRO-3 `16Ψ/N` for mixed-precision Adam); PyTorch's
//! DDP and FSDP keep FP32 parameters under autocast.
//!
//! Time per step: the single-GPU step at the per-GPU batch plus the
//! collective communication the engine needs (ring all-reduce, reduce-scatter,
//! all-gather: each moves `(N-1)/N` of the tensor per GPU) over the
//! instance's interconnect, minus what overlaps with backward.

use serde::{Deserialize, Serialize};

use crate::calibration as cal;
use crate::catalog::{Generation, Gpu};
use crate::error::InputError;
use crate::job::{Job, Mode, Optimizer, Precision};
use crate::message::Message;
use crate::steptime::StepTime;
use crate::vram::{self, Components, Live, VramEstimate};

// The engines and interconnects are the core's vocabulary (`crate::vocab`);
// the GPU-count rules are limits (`crate::limits`). Both are named here too.
pub use crate::limits::{check_node_split, splits_evenly, MAX_GPUS, MAX_GPUS_PER_NODE};
pub use crate::vocab::{Engine, Interconnect};

impl Engine {
    pub(crate) fn deepspeed(self) -> bool {
        matches!(self, Self::Zero1 | Self::Zero2 | Self::Zero3)
    }

    pub(crate) fn shards_params(self) -> bool {
        matches!(self, Self::Zero3 | Self::FsdpFull | Self::Hsdp)
    }

    pub(crate) fn shards_grads(self) -> bool {
        matches!(
            self,
            Self::Zero2 | Self::Zero3 | Self::FsdpFull | Self::FsdpGradOp | Self::Hsdp
        )
    }

    pub(crate) fn shards_states(self) -> bool {
        self != Self::Ddp
    }

    /// FSDP's CPU offload (`CPUOffload(offload_params=True)`) moves the
    /// parameter and gradient shards to the host as well as the optimizer;
    /// DeepSpeed's `offload_optimizer` moves only the optimizer.
    pub(crate) fn offloads_params(self) -> bool {
        matches!(self, Self::FsdpFull | Self::Hsdp)
    }
}

impl Interconnect {
    /// Achieved NCCL bus bandwidth between the GPUs of one instance, bytes/s.
    /// Over PCIe, `pcie_gbps` is the board's link to each GPU where it is
    /// stated (GB/s each way; see [`pcie_link_bytes_per_s`]); without it,
    /// a typical rented host's figure.
    pub fn bus_bytes_per_s(self, gpu: &Gpu, pcie_gbps: Option<f64>) -> f64 {
        match self {
            Self::Pcie => match pcie_link_bytes_per_s(gpu, pcie_gbps) {
                // NCCL's ring reaches its link figure on a peer-to-peer
                // path, and the shared-memory share of it through the host.
                Some(link) => {
                    link * cal::PCIE_LINK_SHARE
                        * if host_bridged(gpu) {
                            cal::HOST_BRIDGE_SHARE
                        } else {
                            1.0
                        }
                }
                None if host_bridged(gpu) => cal::BUS_PCIE_CONSUMER,
                None => cal::BUS_PCIE,
            },
            Self::Nvlink => match gpu.spec.generation {
                Generation::Pascal | Generation::Volta | Generation::Turing => {
                    cal::BUS_NVLINK_VOLTA
                }
                Generation::Ampere | Generation::Ada => cal::BUS_NVLINK_AMPERE,
                Generation::Hopper | Generation::Blackwell => cal::BUS_NVLINK_HOPPER,
            },
        }
    }
}

/// Whether the GPUs of one instance of `gpu` talk through the host over
/// PCIe: GeForce cards have no peer-to-peer (none since the RTX 4090, and
/// it is off on most rented 3090 hosts), so NCCL stages every byte in host
/// memory (its SHM transport).
fn host_bridged(gpu: &Gpu) -> bool {
    gpu.spec.name.contains("GeForce")
}

/// The PCIe link each GPU has to the host where the board or the offer
/// states it (`pcie_gbps`, GB/s each way), bytes/s: the stated figure,
/// never more than the card's own link (a PCIe 4.0 card in a 3.0 slot
/// links at 3.0; a 3.0 card in a 5.0 slot at 3.0). `None` where nothing
/// is stated.
pub fn pcie_link_bytes_per_s(gpu: &Gpu, pcie_gbps: Option<f64>) -> Option<f64> {
    pcie_gbps
        .filter(|g| g.is_finite() && *g > 0.0)
        .map(|g| g.min(gpu.pcie_gbs().unwrap_or(f64::INFINITY)) * 1e9)
}

/// A multi-GPU layout.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Layout {
    /// GPUs in all (data-parallel degree).
    pub gpus: u32,
    /// The engine.
    pub engine: Engine,
    /// Optimizer states (and their update) on the CPU (ZeRO-2/3, FSDP); under
    /// FSDP full or hybrid sharding the parameter and gradient shards too,
    /// as `CPUOffload(offload_params=True)` does.
    pub offload: bool,
    /// Between the GPUs of one node.
    pub interconnect: Interconnect,
    /// Network bandwidth of each node to the others, Gb/s (the platform
    /// offer's sourced figure); absent: a campus cluster's InfiniBand HDR
    /// ([`cal::BUS_INTER_NODE`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub inter_node_gbps: Option<f64>,
    /// GPUs in one node when the offer says (a DGX-2 holds 16); else
    /// [`MAX_GPUS_PER_NODE`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub gpus_per_node: Option<u32>,
    /// The PCIe link the board gives each GPU, GB/s each way (the job's or
    /// the offer's sourced figure: 7.9 for PCIe 3.0 x8, 31.5 for 4.0 x16);
    /// absent: a typical host's bus bandwidth ([`cal::BUS_PCIE`],
    /// [`cal::BUS_PCIE_CONSUMER`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub pcie_gbps: Option<f64>,
}

impl Layout {
    /// Checks the layout's fields together.
    pub fn check(&self) -> Result<(), InputError> {
        if self.gpus == 0 || self.gpus > MAX_GPUS {
            return Err(InputError::new(
                "gpus",
                format!("{} is out of range", self.gpus),
                format!("1 to {MAX_GPUS}"),
            )
            .said(
                Message::new("error.outOfRange").with("value", self.gpus),
                Some(
                    Message::new("allowed.whole")
                        .with("min", 1)
                        .with("max", MAX_GPUS),
                ),
            ));
        }
        if self.offload && matches!(self.engine, Engine::Ddp | Engine::Zero1) {
            return Err(InputError::new(
                "offload",
                "CPU offload needs ZeRO-2, ZeRO-3 or FSDP",
                "zero2, zero3, fsdp or fsdp-grad-op with --offload",
            )
            .said(
                Message::new("error.offloadEngine"),
                Some(Message::new("allowed.offloadEngines")),
            ));
        }
        Ok(())
    }

    fn per_node(&self) -> u32 {
        self.gpus_per_node
            .filter(|g| *g > 0)
            .unwrap_or(MAX_GPUS_PER_NODE)
    }

    /// Nodes the layout spans.
    pub fn nodes(&self) -> u32 {
        self.gpus.div_ceil(self.per_node())
    }

    /// GPUs each sharded copy of the model spans: all of them, except
    /// under HSDP, which shards within a node and replicates across nodes.
    fn shard_degree(&self) -> u32 {
        if self.engine == Engine::Hsdp {
            self.gpus.clamp(1, self.per_node())
        } else {
            self.gpus.max(1)
        }
    }

    /// Host-to-GPU copies (offloaded parameters, optimizer updates),
    /// bytes/s: pinned copies at the link's figure where the board's link
    /// is stated (FSDP and DeepSpeed pin what they offload), else
    /// [`cal::HOST_TO_DEVICE_BYTES_PER_S`].
    fn host_copy_bytes_per_s(&self, gpu: &Gpu) -> f64 {
        pcie_link_bytes_per_s(gpu, self.pcie_gbps).map_or(cal::HOST_TO_DEVICE_BYTES_PER_S, |link| {
            link * cal::PCIE_LINK_SHARE
        })
    }

    /// Achieved NCCL bus bandwidth between nodes, bytes/s.
    fn inter_node_bus(&self) -> f64 {
        self.inter_node_gbps
            .filter(|g| g.is_finite() && *g > 0.0)
            .map_or(cal::BUS_INTER_NODE, |g| {
                g * 1e9 / 8.0 * cal::INTER_NODE_BUS_SHARE
            })
    }
}

/// What one GPU of a multi-GPU run needs and how fast the run steps.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct ParallelEstimate {
    /// The layout.
    pub layout: Layout,
    /// Peak memory of one GPU, GiB.
    pub peak_gib: f64,
    /// Its breakdown, GiB per component (as the single-GPU report).
    #[cfg_attr(feature = "ts", ts(type = "Record<string, number>"))]
    pub components: std::collections::BTreeMap<String, f64>,
    /// Samples per step across all GPUs.
    pub global_batch: u64,
    /// Seconds of one step: compute plus communication not hidden.
    pub step_seconds: f64,
    /// Seconds of collective communication per step.
    pub comm_seconds: f64,
    /// Seconds of it not overlapped with compute.
    pub exposed_comm_seconds: f64,
    /// Seconds of CPU offload work per step (transfers and the CPU update).
    pub offload_seconds: f64,
    /// Speed-up over one GPU at the same per-GPU batch.
    pub speedup: f64,
}

/// Optimizer state bytes per parameter whose working copy has `working` bytes.
fn state_bytes(optimizer: Optimizer, working: f64) -> f64 {
    match optimizer {
        Optimizer::Adam | Optimizer::Adamw => 2.0 * working,
        Optimizer::Sgd | Optimizer::Rmsprop => working,
        Optimizer::Adamw8bit | Optimizer::PagedAdamw8bit => 2.0,
        Optimizer::PagedAdamw32bit => 8.0,
        Optimizer::Adafactor => working * cal::ADAFACTOR_STATE_SHARE,
        Optimizer::SgdPlain => 0.0,
    }
}

/// Bytes per parameter of working weights, gradients and optimizer state
/// (master weights included) as `engine` keeps them for `job`.
fn state_layout(job: &Job, engine: Engine) -> (f64, f64, f64) {
    let half = job.precision.is_half();
    let state = |working: f64| state_bytes(job.optimizer, working);
    if engine.deepspeed() && half {
        // 16-bit working copy and gradients; FP32 master weights live in
        // the optimizer's partition with its FP32 states.
        (2.0, 2.0, 4.0 + state(4.0))
    } else if job.precision == Precision::Bf16 {
        (2.0, 2.0, state(2.0))
    } else {
        (4.0, 4.0, state(4.0))
    }
}

/// Frozen weights (LoRA's base) as the single-GPU estimate counts them.
fn frozen_bytes(job: &Job, live: &Live) -> f64 {
    match job.mode {
        Mode::Lora | Mode::Qlora => (live.fb.weights - live.trainable as f64 * 4.0).max(0.0),
        _ => 0.0,
    }
}

/// Peak memory of one GPU of `layout` for `job`, from its single-GPU `live`
/// tensors; `layers` sizes FSDP's unit. It does not depend on the card.
pub fn memory(job: &Job, live: &Live, layout: &Layout, layers: u32) -> VramEstimate {
    let (fb, opt) = phases(job, live, layout, layers);
    vram::finish(
        Live {
            fb,
            opt: Some(opt),
            largest_block: live.largest_block,
            vision: live.vision,
            params: live.params,
            trainable: live.trainable,
        },
        job,
    )
}

/// What one GPU holds at the optimizer step: its model states (weights,
/// gradients, optimizer states) as the engine shards them, and buffers.
pub fn optimizer_step(job: &Job, live: &Live, layout: &Layout, layers: u32) -> Components {
    phases(job, live, layout, layers).1
}

/// One GPU's live tensors when backward starts and at the optimizer step.
fn phases(job: &Job, live: &Live, layout: &Layout, layers: u32) -> (Components, Components) {
    let n = f64::from(layout.shard_degree());
    let e = layout.engine;
    let trainable = live.trainable as f64;
    let (wb, gb, ob) = state_layout(job, e);
    let frozen = frozen_bytes(job, live);
    let (wt, gt, ot) = match job.mode {
        // Adapters stay FP32 in PEFT whatever the engine.
        Mode::Lora | Mode::Qlora => (
            trainable * 4.0,
            trainable * 4.0,
            trainable * state_bytes(job.optimizer, 4.0),
        ),
        _ => (trainable * wb, trainable * gb, trainable * ob),
    };
    let shard = |x: f64, on: bool| if on { x / n } else { x };
    let params_home = layout.offload && e.offloads_params();
    let weights_sharded = if params_home {
        0.0
    } else {
        shard(wt + frozen, e.shards_params())
    };
    let grads = if params_home {
        0.0
    } else {
        shard(gt, e.shards_grads())
    };
    let states = if layout.offload {
        0.0
    } else {
        shard(ot, e.shards_states())
    };
    // Engine buffers.
    let buffers = match e {
        // gradient_as_bucket_view=False (the default): buckets copy every gradient.
        Engine::Ddp => gt,
        Engine::Zero1 | Engine::Zero2 => (cal::ZERO_BUCKET_ELEMENTS.min(trainable) * gb) * 2.0,
        Engine::Zero3 => {
            cal::ZERO_BUCKET_ELEMENTS.min(trainable) * gb
                + cal::ZERO3_LIVE_PARAMETERS.min(live.params as f64) * wb.min(2.0)
        }
        // Two units (the current block and the prefetched next) gathered.
        Engine::FsdpFull | Engine::Hsdp => 2.0 * (wt + frozen) / f64::from(layers.max(1)),
        Engine::FsdpGradOp => 0.0,
    };
    let grad_share_fb = if live.opt.as_ref().is_some_and(|o| o.gradients > 0.0) {
        live.fb.gradients / live.opt.as_ref().map_or(1.0, |o| o.gradients)
    } else {
        0.0
    };
    let fb = Components {
        weights: weights_sharded,
        gradients: grads * grad_share_fb,
        optimizer: states,
        activations: live.fb.activations,
        logits: live.fb.logits,
        kv_cache: 0.0,
        // DeepSpeed and FSDP compute with 16-bit working weights, so full
        // training keeps none of autocast's 16-bit weight copies.
        workspace: if job.mode == Mode::Train && (e.deepspeed() || !matches!(e, Engine::Ddp)) {
            buffers
        } else {
            live.fb.workspace + buffers
        },
        ..Components::default()
    };
    let temps = live.opt.as_ref().map_or(0.0, |o| o.workspace);
    let opt = Components {
        weights: weights_sharded,
        gradients: grads,
        optimizer: states,
        workspace: if layout.offload {
            buffers
        } else {
            shard(temps, e.shards_states()) + buffers
        },
        ..Components::default()
    };
    (fb, opt)
}

/// Per-GPU memory and step time of `job` on `layout`, from its single-GPU
/// `live` tensors and `step` time on `gpu`; `layers` sizes FSDP's unit.
pub fn estimate(
    job: &Job,
    live: &Live,
    step: &StepTime,
    gpu: &Gpu,
    layout: &Layout,
    layers: u32,
) -> Result<ParallelEstimate, InputError> {
    layout.check()?;
    if job.mode == Mode::Infer {
        return Err(InputError::new(
            "gpus",
            "multi-GPU plans are for training",
            "1 GPU for inference",
        )
        .said(
            Message::new("error.multiGpuTraining"),
            Some(Message::new("allowed.oneGpuInference")),
        ));
    }
    let per_gpu = memory(job, live, layout, layers);
    let n = f64::from(layout.gpus);
    let comm = comm_seconds(job, live, gpu, layout, layers);
    // Backward (about two thirds of the device's work) hides bucketed
    // reductions; sharded engines also prefetch the forward's gathers.
    let hideable = step.device_s
        * match layout.engine {
            Engine::Zero3 | Engine::FsdpFull | Engine::Hsdp => cal::COMM_OVERLAP,
            _ => cal::COMM_OVERLAP * 2.0 / 3.0,
        };
    let exposed = (comm - hideable).max(0.0);
    let offload_seconds = optimizer_offload_seconds(job, live, gpu, layout);
    let step_seconds = step.seconds + exposed + offload_seconds;
    Ok(ParallelEstimate {
        layout: *layout,
        peak_gib: per_gpu.peak_gib(),
        components: per_gpu
            .components
            .gib_entries()
            .iter()
            .map(|(k, v)| ((*k).to_owned(), *v))
            .collect(),
        global_batch: u64::from(job.batch).saturating_mul(u64::from(layout.gpus)),
        step_seconds,
        comm_seconds: comm,
        exposed_comm_seconds: exposed,
        offload_seconds,
        speedup: n * step.seconds / step_seconds.max(1e-12),
    })
}

/// Bytes one GPU's gradients occupy on the wire, and every parameter's
/// bytes as gathered (trainable in their working format, frozen weights in
/// their stored one: 4-bit under QLoRA).
fn wire_bytes(job: &Job, live: &Live, e: Engine) -> (f64, f64) {
    let trainable = live.trainable as f64;
    let (wb, gb, _) = state_layout(job, e);
    let gt = match job.mode {
        Mode::Lora | Mode::Qlora => trainable * 4.0,
        _ => trainable * gb,
    };
    let grad_bytes = trainable
        * if e.deepspeed() {
            gb
        } else {
            gt / trainable.max(1.0)
        };
    (grad_bytes, trainable * wb + frozen_bytes(job, live))
}

/// Communication per step in seconds, before any of it is hidden: ring
/// collectives move (N-1)/N of the tensor (all-reduce twice that), plus
/// the host-to-device copies of offloaded FSDP parameters.
fn comm_seconds(job: &Job, live: &Live, gpu: &Gpu, layout: &Layout, layers: u32) -> f64 {
    if layout.gpus <= 1 {
        return 0.0;
    }
    let n = f64::from(layout.gpus);
    let e = layout.engine;
    let trainable = live.trainable as f64;
    let (wb, _, _) = state_layout(job, e);
    let (grad_bytes, all_params) = wire_bytes(job, live, e);
    let shard = f64::from(layout.shard_degree());
    let ring = (n - 1.0) / n;
    // Sharded parameters are gathered before each use: the forward and the
    // backward, and once more for the forward that checkpointing recomputes
    // (the engine reshards after every forward, recomputed or not).
    let gathers = if job.grad_checkpointing { 3.0 } else { 2.0 };
    let intra = layout.interconnect.bus_bytes_per_s(gpu, layout.pcie_gbps);
    let inter = layout.inter_node_bus();
    let latency = cal::COLLECTIVE_LATENCY_S * f64::from(layers.max(1));
    let comm = if e == Engine::Hsdp {
        // Gathers and gradient reduce-scatters within a node; the gradient
        // shards all-reduced across the node replicas.
        let in_node = (shard - 1.0) / shard * (grad_bytes + gathers * all_params);
        let nodes = f64::from(layout.nodes());
        let across = 2.0 * (nodes - 1.0) / nodes * grad_bytes / shard;
        let across_s = if layout.nodes() > 1 {
            across / inter
        } else {
            0.0
        };
        in_node / intra + across_s + latency
    } else {
        let bytes = ring
            * match e {
                Engine::Ddp => 2.0 * grad_bytes,
                Engine::Zero1 => 2.0 * grad_bytes + trainable * wb,
                Engine::Zero2 | Engine::FsdpGradOp => grad_bytes + trainable * wb,
                Engine::Zero3 | Engine::FsdpFull | Engine::Hsdp => {
                    grad_bytes + gathers * all_params
                }
            };
        // Across nodes the slowest link decides.
        let bus = if layout.nodes() > 1 {
            intra.min(inter)
        } else {
            intra
        };
        bytes / bus + latency
    };
    // FSDP with its parameters on the host copies each shard to the GPU
    // before every gather, on the same prefetching stream.
    if layout.offload && e.offloads_params() {
        comm + gathers * all_params / shard / layout.host_copy_bytes_per_s(gpu)
    } else {
        comm
    }
}

/// Seconds per step of an offloaded optimizer: gradients to the host,
/// updated weights back, the CPU's Adam over this GPU's shard.
fn optimizer_offload_seconds(job: &Job, live: &Live, gpu: &Gpu, layout: &Layout) -> f64 {
    if !layout.offload {
        return 0.0;
    }
    let (wb, gb, _) = state_layout(job, layout.engine);
    let shard_params = live.trainable as f64 / f64::from(layout.shard_degree());
    shard_params * (gb + wb) / layout.host_copy_bytes_per_s(gpu)
        + shard_params * cal::CPU_ADAM_S_PER_PARAM
}

/// Per-GPU model-state bytes (weights, gradients, optimizer states) of full
/// mixed-precision Adam training of `params` parameters under `engine` on
/// `gpus` GPUs, as the estimate lays them out: what DeepSpeed's published
/// formulas give for its stages.
pub fn model_state_bytes(params: f64, engine: Engine, gpus: u32) -> f64 {
    let n = f64::from(gpus.max(1));
    let (wb, gb, ob) = if engine.deepspeed() {
        (2.0, 2.0, 12.0)
    } else {
        (4.0, 4.0, 8.0)
    };
    let w = if engine.shards_params() {
        params * wb / n
    } else {
        params * wb
    };
    let g = if engine.shards_grads() {
        params * gb / n
    } else {
        params * gb
    };
    let o = if engine.shards_states() {
        params * ob / n
    } else {
        params * ob
    };
    w + g + o
}
