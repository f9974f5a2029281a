//! Seconds per training step (per forward pass for inference) on a catalog GPU.
//!
//! Two clocks run at once in eager PyTorch. The device works through FLOPs
//! (over the peak for the precision times an achieved fraction) and
//! memory-bound traffic (activations written and read back, weights, optimizer
//! updates; over bandwidth times an achieved fraction). The host dispatches
//! operators, which bounds small jobs. Launches are asynchronous, so the step
//! takes the longer clock plus a share of the shorter.
//!
//! The device clock is computed on the calibration card (H200) with fractions
//! fitted there, then carried to any other card by the ratio of their measured
//! relative training throughput (Lambda's benchmark, `data/gpus.toml`
//! `rel_*`), which captures what specs alone get wrong: small cards reach a
//! larger share of their peak than big ones.

use serde::Serialize;

use crate::calibration as cal;
use crate::catalog::{Gpu, ThroughputClass};
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
    /// Measured-throughput column used to carry the time across cards.
    pub class: ThroughputClass,
}

/// Work of one step, independent of the card.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepWork {
    /// FLOPs in convolutions.
    pub conv_flops: f64,
    /// FLOPs in matmuls (including attention).
    pub matmul_flops: f64,
    /// Bytes moved by memory-bound kernels.
    pub traffic_bytes: f64,
    /// Operators dispatched.
    pub ops: f64,
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
    } else {
        0.0
    };
    // Recomputing the forward under checkpointing writes its activations again.
    let recompute = if job.grad_checkpointing && train {
        1.0 + 1.0 / cal::ACTIVATION_TRAFFIC
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
    match model {
        Model::Vision(v) => {
            let fwd =
                v.forward_flops_per_sample * v.flop_scale(job.resolution) * f64::from(job.batch);
            // Traffic follows the full activation volume: checkpointing keeps less
            // but recomputes (and rewrites) the rest.
            let saved = vision_saved_bytes(v, job) * recompute;
            let activation_traffic = if train {
                saved * cal::ACTIVATION_TRAFFIC
            } else {
                c.activations * 2.0
            };
            StepWork {
                conv_flops: fwd * passes * v.conv_flop_fraction,
                matmul_flops: fwd * passes * (1.0 - v.conv_flop_fraction),
                traffic_bytes: activation_traffic + c.weights * passes + state_traffic,
                ops: f64::from(v.forward_ops) * passes,
            }
        }
        Model::Transformer(t) => {
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
            let saved =
                block_saved_bytes_per_token(t, job) * f64::from(t.layers) * tokens * recompute;
            let activation_traffic = if train {
                saved * cal::ACTIVATION_TRAFFIC
            } else {
                c.activations * 2.0 + c.kv_cache
            };
            let qlora = if job.mode == Mode::Qlora {
                cal::QLORA_SLOWDOWN
            } else {
                1.0
            };
            StepWork {
                conv_flops: 0.0,
                matmul_flops: fwd * passes * qlora,
                traffic_bytes: activation_traffic
                    + c.logits * 2.0
                    + c.weights * passes
                    + state_traffic,
                ops: cal::OPS_PER_TRANSFORMER_LAYER * f64::from(t.layers) * stacks * passes,
            }
        }
    }
}

/// The measured-throughput column a job follows across cards.
pub fn throughput_class(model: &Model, precision: Precision) -> ThroughputClass {
    let conv = matches!(model, Model::Vision(v) if v.conv_flop_fraction >= 0.5);
    match (conv, precision.is_half()) {
        (true, true) => ThroughputClass::ConvAmp,
        (true, false) => ThroughputClass::ConvFp32,
        (false, true) => ThroughputClass::TransformerAmp,
        (false, false) => ThroughputClass::TransformerFp32,
    }
}

/// Device seconds of the step's work on the reference (calibration) card.
pub fn reference_device_seconds(w: &StepWork, precision: Precision) -> f64 {
    let (compute, memory) = reference_split(w, precision);
    compute + memory
}

/// Compute-bound and memory-bound device seconds on the reference card.
fn reference_split(w: &StepWork, precision: Precision) -> (f64, f64) {
    let compute = if precision.is_half() {
        w.conv_flops / (cal::REFERENCE_TENSOR_FLOPS * cal::EFFICIENCY_CONV_HALF)
            + w.matmul_flops / (cal::REFERENCE_TENSOR_FLOPS * cal::EFFICIENCY_MATMUL_HALF)
    } else {
        // PyTorch lets cuDNN use TF32 for FP32 convolutions by default but keeps
        // FP32 matmuls on CUDA cores (`allow_tf32` is false for matmul).
        w.conv_flops / (cal::REFERENCE_TF32_FLOPS * cal::EFFICIENCY_CONV_FP32)
            + w.matmul_flops / (cal::REFERENCE_FP32_FLOPS * cal::EFFICIENCY_MATMUL_FP32)
    };
    (
        compute,
        w.traffic_bytes / (cal::REFERENCE_BANDWIDTH * cal::EFFICIENCY_MEMORY),
    )
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

/// Step time of `job` on `gpu`. Device time is computed on the calibration
/// card and carried to `gpu` by the ratio of their measured relative training
/// throughput for the job's class; host time does not depend on the card.
/// `reference` is the calibration card's catalog entry.
pub fn estimate(
    model: &Model,
    job: &Job,
    vram: &VramEstimate,
    gpu: &Gpu,
    reference: &Gpu,
) -> StepTime {
    let w = work(model, job, vram);
    let class = throughput_class(model, job.precision);
    let device = if class == ThroughputClass::TransformerFp32 {
        // The measured FP32 transformer column was taken with TF32 matmuls, which
        // PyTorch leaves off by default; carry FP32 matmuls by the cards' FP32
        // peak and bandwidth instead, weighted by this job's own split.
        let (compute, memory) = reference_split(&w, job.precision);
        compute * cal::REFERENCE_FP32_FLOPS / (gpu.spec.fp32_tflops.value * 1e12)
            + memory * cal::REFERENCE_BANDWIDTH / (gpu.spec.bandwidth_gbs.value * 1e9)
    } else {
        let scale = reference.spec.relative_throughput(class) / gpu.spec.relative_throughput(class);
        reference_device_seconds(&w, job.precision) * scale
    };
    let host = host_seconds(&w, job.precision);
    let seconds = device.max(host) + cal::OVERLAP_SHARE * device.min(host);
    StepTime {
        seconds,
        device_s: device,
        host_s: host,
        flops: w.conv_flops + w.matmul_flops,
        class,
    }
}
