//! Seconds per training step (per forward pass for inference) on a catalog GPU.
//!
//! Two clocks run at once in eager PyTorch. The device works through FLOPs
//! (over the peak for the precision times an achieved fraction) and
//! memory-bound traffic (activations written and read back, weights, optimizer
//! updates; over bandwidth times an achieved fraction). The host dispatches
//! operators, which bounds small jobs. Launches are asynchronous, so the step
//! takes the longer clock plus a share of the shorter.
//!
//! The device clock runs on each card's own specs: its tensor, TF32 and FP32
//! peaks (by generation: TF32 from Ampere on, tensor cores from Volta on) and
//! its bandwidth. The achieved fractions were fitted on the calibration card
//! (H200); smaller cards reach a larger share of their compute peak, up to a
//! ceiling, by an exponent fitted on half of the published training runs in
//! `data/benchmarks/published-training.toml` and checked on the other half
//! (`docs/accuracy.md`). No card's measured row is looked up.

use serde::Serialize;

use crate::calibration as cal;
use crate::catalog::Gpu;
use crate::job::{Job, Mode, Precision};
use crate::vram::{block_saved_bytes_per_token, vision_saved_bytes, VramEstimate};
use crate::zoo::{Model, TransformerKind};

/// The step time and its parts, seconds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct StepTime {
    /// Total seconds per step.
    pub seconds: f64,
    /// Seconds the GPU is busy (compute plus memory-bound kernels).
    pub device_s: f64,
    /// Seconds the host spends dispatching (Python, autograd, launches).
    pub host_s: f64,
    /// FLOPs of one step.
    pub flops: f64,
}

impl StepTime {
    /// The step with its seconds multiplied by a calibration factor (the
    /// FLOPs are the model's and stay).
    pub fn scaled(self, factor: f64) -> Self {
        Self {
            seconds: self.seconds * factor,
            device_s: self.device_s * factor,
            host_s: self.host_s * factor,
            ..self
        }
    }
}

/// Work of one step, independent of the card.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepWork {
    /// FLOPs in convolutions.
    pub conv_flops: f64,
    /// Of `conv_flops`, those in dense 3x3 stride-1 convolutions, which
    /// cuDNN runs as Winograd transforms on CUDA cores (fewer
    /// multiplications than the direct FLOPs counted).
    pub winograd_flops: f64,
    /// FLOPs in matmuls (including attention).
    pub matmul_flops: f64,
    /// Bytes moved by memory-bound kernels.
    pub traffic_bytes: f64,
    /// Operators dispatched.
    pub ops: f64,
    /// Of `traffic_bytes`, the activation traffic: tensors written by one
    /// kernel and read by the next, which a large enough L2 serves.
    pub activation_bytes: f64,
    /// A typical activation tensor of the step, bytes (the saved activations
    /// over the operators that produce them): whether it fits in L2.
    pub tensor_bytes: f64,
    /// Activation traffic an NCHW layout adds when convolutions run on
    /// tensor cores (cuDNN transposes to NHWC and back around each one);
    /// zero for channels_last jobs and models without convolutions.
    pub layout_bytes: f64,
    /// Bytes copied between host and GPU inside the step (activations
    /// offloaded to the host go out in the forward and back in the
    /// backward; `save_on_cpu` waits for each copy).
    pub host_bytes: f64,
}

/// Counts the step's work from the model, the job and its memory estimate.
pub fn work(model: &Model, job: &Job, vram: &VramEstimate) -> StepWork {
    let c = &vram.components;
    let train = job.mode != Mode::Infer;
    // Training runs forward once and backward (about twice the forward FLOPs);
    // LoRA skips the frozen weights' gradients (about one forward); recompute
    // under checkpointing adds one forward.
    let passes = match job.mode {
        Mode::Train => 3.0,
        Mode::Lora | Mode::Qlora => 2.0,
        Mode::Infer => 1.0,
    } + if job.grad_checkpointing && train {
        1.0
    } else if job.selective() && train {
        cal::SELECTIVE_CHECKPOINT_RECOMPUTE
    } else {
        0.0
    };
    // Recomputing the forward under checkpointing writes its activations again.
    let recompute = if job.grad_checkpointing && train {
        1.0 + 1.0 / cal::ACTIVATION_TRAFFIC
    } else if job.selective() && train {
        1.0 + cal::SELECTIVE_CHECKPOINT_RECOMPUTE / cal::ACTIVATION_TRAFFIC
    } else {
        1.0
    };
    let state_traffic = if train {
        // The optimizer reads and writes weights, gradients and states once each.
        2.0 * (c.gradients.max(vram.trainable_params as f64 * 2.0) + c.optimizer)
            + 2.0 * vram.trainable_params as f64 * 4.0
    } else {
        0.0
    };
    let pass = Passes {
        passes,
        recompute,
        state_traffic,
        train,
    };
    match model {
        Model::Vision(v) => vision_work(v, job, vram, &pass),
        Model::Transformer(t) => transformer_work(t, job, vram, &pass),
    }
}

/// How many passes a step makes over the model, and what every step moves
/// whatever the model: the recomputation factor of its saved activations
/// and the optimizer's traffic.
struct Passes {
    passes: f64,
    recompute: f64,
    state_traffic: f64,
    train: bool,
}

/// A vision model's step: convolutions and matmuls, activation traffic
/// (with cuDNN's layout transposes unless channels_last).
fn vision_work(
    v: &crate::zoo::VisionModel,
    job: &Job,
    vram: &VramEstimate,
    pass: &Passes,
) -> StepWork {
    let c = &vram.components;
    let Passes {
        passes,
        recompute,
        state_traffic,
        train,
    } = *pass;
    let fwd = v.forward_flops_per_sample * v.flop_scale(job.side()) * f64::from(job.batch);
    // Traffic follows the full activation volume: checkpointing keeps less
    // but recomputes (and rewrites) the rest.
    let kept = vision_saved_bytes(v, job);
    let saved = kept * recompute;
    let activation_traffic = if train {
        saved * cal::ACTIVATION_TRAFFIC
    } else {
        c.activations * 2.0
    };
    StepWork {
        conv_flops: fwd * passes * v.conv_flop_fraction,
        winograd_flops: fwd * passes * v.conv_flop_fraction * v.winograd_flop_fraction,
        matmul_flops: fwd * passes * (1.0 - v.conv_flop_fraction),
        traffic_bytes: activation_traffic + c.weights * passes + state_traffic,
        ops: f64::from(v.forward_ops) * passes,
        activation_bytes: activation_traffic,
        tensor_bytes: vision_saved_bytes(v, job) / f64::from(v.forward_ops.max(1)),
        layout_bytes: if job.channels_last {
            0.0
        } else {
            activation_traffic * v.conv_flop_fraction * cal::NCHW_TRANSPOSE_SHARE
        },
        host_bytes: if job.activation_offload && train {
            2.0 * kept
        } else {
            0.0
        },
    }
}

/// A transformer's step: matmuls and attention, activation, dequantisation
/// and cast traffic.
fn transformer_work(
    t: &crate::zoo::TransformerModel,
    job: &Job,
    vram: &VramEstimate,
    pass: &Passes,
) -> StepWork {
    let c = &vram.components;
    let Passes {
        passes,
        recompute,
        state_traffic,
        train,
    } = *pass;
    let tokens = f64::from(job.batch) * f64::from(job.seq_len);
    let s = f64::from(job.seq_len);
    let attn_width = f64::from(t.heads) * t.head_dim() as f64;
    let stacks = if t.kind == TransformerKind::EncoderDecoder {
        3.0
    } else {
        1.0
    };
    // QK^T and PV: 4 * s * width FLOPs per token per layer; causal
    // kernels skip the masked half.
    let causal = if t.kind == TransformerKind::Decoder {
        0.5
    } else {
        1.0
    };
    let attn = 4.0 * s * attn_width * causal * f64::from(t.layers) * stacks * tokens;
    let fwd = 2.0 * t.matmul_params() as f64 * tokens + attn;
    let kept = block_saved_bytes_per_token(t, job) * f64::from(t.layers) * tokens;
    let saved = kept * recompute;
    let activation_traffic = if train {
        saved * cal::ACTIVATION_TRAFFIC
    } else {
        c.activations * 2.0 + c.kv_cache
    };
    let int8 = if job.int8_base && job.mode != Mode::Qlora {
        cal::INT8_SLOWDOWN
    } else {
        1.0
    };
    // QLoRA dequantises every frozen 4-bit weight to 16 bits before
    // each use (forward, backward, recompute): it reads the packed
    // weight and writes the 16-bit copy the matmul then reads. That is
    // memory traffic, hidden behind the matmuls when the batch holds
    // many tokens and felt when it holds few.
    let dequant = if job.mode == Mode::Qlora {
        let frozen = vram.params.saturating_sub(vram.trainable_params) as f64;
        frozen * cal::DEQUANT_BYTES_PER_PARAM * passes
    } else {
        0.0
    };
    let per_layer_tokens = block_saved_bytes_per_token(t, job) * tokens;
    // A LoRA base loaded in FP32 under 16-bit compute: autocast reads
    // each FP32 weight and writes its 16-bit copy on every use.
    let cast = if job.base_fp32 && job.mode == Mode::Lora {
        let frozen = vram.params.saturating_sub(vram.trainable_params) as f64;
        frozen * 6.0 * passes
    } else {
        0.0
    };
    StepWork {
        conv_flops: 0.0,
        winograd_flops: 0.0,
        matmul_flops: fwd * passes * int8,
        traffic_bytes: activation_traffic
            + c.logits * 2.0
            + c.weights * passes
            + state_traffic
            + dequant
            + cast,
        ops: cal::OPS_PER_TRANSFORMER_LAYER * f64::from(t.layers) * stacks * passes,
        activation_bytes: activation_traffic,
        tensor_bytes: per_layer_tokens / cal::OPS_PER_TRANSFORMER_LAYER,
        layout_bytes: 0.0,
        host_bytes: if job.activation_offload && train {
            2.0 * kept
        } else {
            0.0
        },
    }
}

/// Achieved fraction of a tensor-core `peak`: the reference card's fraction,
/// raised for cards with a smaller peak (a step that leaves an H200's many
/// SMs partly idle keeps a small card's few busy), never above the peak.
fn tensor_efficiency(
    reference_fraction: f64,
    reference_peak: f64,
    peak: f64,
    exponent: f64,
) -> f64 {
    (reference_fraction * (reference_peak / peak.max(1.0)).powf(exponent))
        .min(cal::EFFICIENCY_CEILING)
}

/// How a class of work runs on a card: its peak and the fraction reached.
#[derive(Clone, Copy)]
struct Rate {
    peak: f64,
    fraction: f64,
}

impl Rate {
    fn seconds(self, flops: f64) -> f64 {
        if flops <= 0.0 {
            0.0
        } else {
            flops / (self.peak * self.fraction).max(1.0)
        }
    }
}

/// Convolution and matmul rates of `gpu` for `precision`: tensor cores for
/// 16-bit math; TF32 tensor cores for FP32 convolutions on Ampere and newer
/// (cuDNN's default) and for FP32 matmuls when the job turns TF32 on; CUDA
/// cores otherwise. Tensor-core fractions scale with the card's peak from the
/// reference card's; CUDA-core fractions are the same on every card.
fn rates(precision: Precision, tf32: bool, gpu: &Gpu) -> (Rate, Rate) {
    let s = &gpu.spec;
    let tensor = s.tensor_tflops.value * 1e12;
    let fp32 = s.fp32_tflops.value * 1e12;
    let tf32_peak = gpu.tf32_tflops().map(|t| t * 1e12);
    let tensor_rate = |peak: f64, reference_peak: f64, reference: f64, exponent: f64| Rate {
        peak,
        fraction: tensor_efficiency(reference, reference_peak, peak, exponent),
    };
    if precision.is_half() {
        return (
            tensor_rate(
                tensor,
                cal::REFERENCE_TENSOR_FLOPS,
                cal::EFFICIENCY_CONV_HALF,
                cal::SIZE_EXPONENT_CONV,
            ),
            tensor_rate(
                tensor,
                cal::REFERENCE_TENSOR_FLOPS,
                cal::EFFICIENCY_MATMUL_HALF,
                cal::SIZE_EXPONENT_MATMUL,
            ),
        );
    }
    let conv = match tf32_peak {
        Some(p) => tensor_rate(
            p,
            cal::REFERENCE_TF32_FLOPS,
            cal::EFFICIENCY_CONV_FP32,
            cal::SIZE_EXPONENT_CONV,
        ),
        None => Rate {
            peak: fp32,
            fraction: cal::EFFICIENCY_CONV_CUDA_CORES,
        },
    };
    let matmul = match tf32_peak {
        Some(p) if tf32 => tensor_rate(
            p,
            cal::REFERENCE_TF32_FLOPS,
            cal::EFFICIENCY_MATMUL_TF32,
            cal::SIZE_EXPONENT_MATMUL,
        ),
        _ => Rate {
            peak: fp32,
            fraction: cal::EFFICIENCY_MATMUL_FP32,
        },
    };
    (conv, matmul)
}

/// Seconds the memory-bound traffic of `w` takes on `gpu`. Activation traffic
/// (many mid-sized elementwise and normalisation kernels) and the rest
/// (weights, gradients and optimizer states streamed by large kernels) reach
/// different fractions of the bandwidth, both a little higher on slower
/// memory, which smaller kernels saturate sooner; the activation re-reads of
/// tensors that fit in L2 never reach DRAM.
fn memory_seconds(w: &StepWork, gpu: &Gpu) -> f64 {
    let bw = gpu.spec.bandwidth_gbs.value * 1e9;
    let scale = (cal::REFERENCE_BANDWIDTH / bw.max(1.0)).powf(cal::BANDWIDTH_EXPONENT);
    let activation_fraction = (cal::EFFICIENCY_MEMORY * scale).min(cal::EFFICIENCY_MEMORY_CEILING);
    let stream_fraction =
        (cal::EFFICIENCY_MEMORY_STREAM * scale).min(cal::EFFICIENCY_MEMORY_CEILING);
    let fits = if w.tensor_bytes > 0.0 {
        (gpu.l2_bytes() / w.tensor_bytes).min(1.0)
    } else {
        0.0
    };
    let activation = w.activation_bytes.min(w.traffic_bytes);
    let from_dram = activation * (1.0 - cal::L2_REREAD_SHARE * fits);
    let other = w.traffic_bytes - activation;
    from_dram / (bw * activation_fraction).max(1.0) + other / (bw * stream_fraction).max(1.0)
}

/// Compute-bound and memory-bound device seconds of `w` on `gpu`, from the
/// card's own peaks, bandwidth and L2.
fn device_split(w: &StepWork, precision: Precision, tf32: bool, gpu: &Gpu) -> (f64, f64) {
    let (conv, matmul) = rates(precision, tf32, gpu);
    // Pascal has no tensor cores: its 16-bit convolutions run on CUDA cores.
    let tensor_convs =
        (precision.is_half() && gpu.has_tensor_cores()) || gpu.tf32_tflops().is_some();
    // On CUDA cores cuDNN runs dense 3x3 stride-1 convolutions as Winograd
    // transforms, which need fewer multiplications than the direct FLOPs
    // counted; its tensor-core kernels are implicit GEMMs.
    let conv_flops = if tensor_convs {
        w.conv_flops
    } else {
        w.conv_flops - w.winograd_flops * (1.0 - 1.0 / cal::WINOGRAD_SPEEDUP)
    };
    let compute = conv.seconds(conv_flops) + matmul.seconds(w.matmul_flops);
    // NCHW convolutions on tensor cores pay cuDNN's layout transposes.
    let layout = if tensor_convs { w.layout_bytes } else { 0.0 };
    let with_layout = StepWork {
        traffic_bytes: w.traffic_bytes + layout,
        activation_bytes: w.activation_bytes + layout,
        ..*w
    };
    let host_copies = w.host_bytes / cal::HOST_TO_DEVICE_BYTES_PER_S;
    (compute, memory_seconds(&with_layout, gpu) + host_copies)
}

/// Device seconds of the step's work on `gpu`.
pub fn device_seconds(w: &StepWork, precision: Precision, tf32: bool, gpu: &Gpu) -> f64 {
    let (compute, memory) = device_split(w, precision, tf32, gpu);
    compute + memory
}

/// Host seconds: Python, autograd and kernel launches, independent of the card.
pub fn host_seconds(w: &StepWork, precision: Precision) -> f64 {
    let factor = if matches!(precision, Precision::Fp16Amp | Precision::Bf16Amp) {
        cal::AUTOCAST_OP_FACTOR
    } else {
        1.0
    };
    cal::STEP_OVERHEAD_S + w.ops * cal::OP_OVERHEAD_S * factor
}

/// Step time of `job` on `gpu`: device time from the card's own peaks and
/// bandwidth, host time (independent of the card), overlapped.
pub fn estimate(model: &Model, job: &Job, vram: &VramEstimate, gpu: &Gpu) -> StepTime {
    let w = work(model, job, vram);
    let device = device_seconds(&w, job.precision, job.tf32, gpu);
    let host = host_seconds(&w, job.precision);
    let seconds = device.max(host) + cal::OVERLAP_SHARE * device.min(host);
    StepTime {
        seconds,
        device_s: device,
        host_s: host,
        flops: w.conv_flops + w.matmul_flops,
    }
}

/// Work of two typical 16-bit training steps, for carrying hours a student
/// measured on one card to another when the model is unknown: ResNet-50 at
/// batch 256 (224 px) and BERT-base at batch 32 (384 tokens), as [`work`]
/// counts them (a test keeps them equal).
pub const TYPICAL_STEPS: [StepWork; 2] = [
    StepWork {
        conv_flops: 6.278e12,
        winograd_flops: 6.278e12 * 0.3677,
        matmul_flops: 3.14e9,
        traffic_bytes: 6.814e10,
        ops: 1008.0,
        activation_bytes: 6.722e10,
        tensor_bytes: 3.334e7,
        layout_bytes: 6.722e10 * 0.9995 * crate::calibration::NCHW_TRANSPOSE_SHARE,
        host_bytes: 0.0,
    },
    StepWork {
        conv_flops: 0.0,
        winograd_flops: 0.0,
        matmul_flops: 6.836e12,
        traffic_bytes: 3.020e10,
        ops: 1080.0,
        activation_bytes: 2.582e10,
        tensor_bytes: 1.195e7,
        layout_bytes: 0.0,
        host_bytes: 0.0,
    },
];

/// Seconds `gpu` takes for the [`TYPICAL_STEPS`] together: a card's speed when
/// no model is named.
pub fn typical_seconds(gpu: &Gpu) -> f64 {
    TYPICAL_STEPS
        .iter()
        .map(|w| device_seconds(w, Precision::Fp16Amp, false, gpu))
        .sum()
}
