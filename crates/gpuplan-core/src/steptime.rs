//! Seconds per training step (per forward pass for inference) on a catalog GPU.
//!
//! A sum of three roofline terms, each from the architecture and the card's
//! specs: matmul/convolution FLOPs over the card's peak for that precision times
//! an achieved fraction; memory-bound traffic (activations written and read
//! back, weights, optimizer updates) over bandwidth times an achieved fraction;
//! and a host-side cost per dispatched operator, which dominates small jobs.
//! The fractions are calibrated once (see [`crate::calibration`]); the same
//! formula carries a job across cards, which `docs/accuracy.md` checks against
//! measured relative throughput.

use serde::Serialize;

use crate::calibration as cal;
use crate::catalog::Gpu;
use crate::job::{Job, Mode, Precision};
use crate::vram::{block_saved_bytes_per_token, VramEstimate};
use crate::zoo::{Model, TransformerKind};

/// The step time and its parts, seconds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct StepTime {
    /// Total seconds per step.
    pub seconds: f64,
    /// Compute-bound part.
    pub compute_s: f64,
    /// Memory-bound part.
    pub memory_s: f64,
    /// Host overhead part.
    pub overhead_s: f64,
    /// FLOPs of one step.
    pub flops: f64,
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
    } + if job.grad_checkpointing && train { 1.0 } else { 0.0 };
    let state_traffic = if train {
        // The optimizer reads and writes weights, gradients and states once each.
        2.0 * (c.gradients.max(vram.trainable_params as f64 * 2.0) + c.optimizer) + 2.0 * vram.trainable_params as f64 * 4.0
    } else {
        0.0
    };
    match model {
        Model::Vision(v) => {
            let fwd = v.forward_flops_per_sample * v.flop_scale(job.resolution) * f64::from(job.batch);
            let activation_traffic = if train { c.activations * cal::ACTIVATION_TRAFFIC } else { c.activations * 2.0 };
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
            let stacks = if t.kind == TransformerKind::EncoderDecoder { 3.0 } else { 1.0 };
            // QK^T and PV: 4 * s * width FLOPs per token per layer; causal
            // kernels skip the masked half.
            let causal = if t.kind == TransformerKind::Decoder { 0.5 } else { 1.0 };
            let attn = 4.0 * s * attn_width * causal * f64::from(t.layers) * stacks * tokens;
            let fwd = 2.0 * t.matmul_params() as f64 * tokens + attn;
            let saved = block_saved_bytes_per_token(t, job) * f64::from(t.layers) * tokens;
            let activation_traffic = if train { saved * cal::ACTIVATION_TRAFFIC } else { c.activations * 2.0 + c.kv_cache };
            let qlora = if job.mode == Mode::Qlora { cal::QLORA_SLOWDOWN } else { 1.0 };
            StepWork {
                conv_flops: 0.0,
                matmul_flops: fwd * passes * qlora,
                traffic_bytes: activation_traffic + c.logits * 2.0 + c.weights * passes + state_traffic,
                ops: cal::OPS_PER_TRANSFORMER_LAYER * f64::from(t.layers) * stacks * passes,
            }
        }
    }
}

/// Peak FLOPS the card offers to convolutions and to matmuls at this precision.
pub fn peak_flops(gpu: &Gpu, precision: Precision) -> (f64, f64) {
    let tensor = gpu.spec.tensor_tflops.value * 1e12;
    let fp32 = gpu.spec.fp32_tflops.value * 1e12;
    if precision.is_half() {
        (tensor, tensor)
    } else {
        // PyTorch lets cuDNN use TF32 for FP32 convolutions by default but keeps
        // FP32 matmuls on CUDA cores (`allow_tf32` false for matmul).
        (gpu.tf32_tflops().map(|t| t * 1e12).unwrap_or(fp32), fp32)
    }
}

/// Step time of `job` on `gpu`.
pub fn estimate(model: &Model, job: &Job, vram: &VramEstimate, gpu: &Gpu) -> StepTime {
    let w = work(model, job, vram);
    let (conv_peak, mm_peak) = peak_flops(gpu, job.precision);
    let compute_s = w.conv_flops / (conv_peak * cal::COMPUTE_EFFICIENCY_CONV) + w.matmul_flops / (mm_peak * cal::COMPUTE_EFFICIENCY_MATMUL);
    let memory_s = w.traffic_bytes / (gpu.spec.bandwidth_gbs.value * 1e9 * cal::MEMORY_EFFICIENCY);
    let overhead_s = w.ops * cal::OP_OVERHEAD_S;
    StepTime { seconds: compute_s + memory_s + overhead_s, compute_s, memory_s, overhead_s, flops: w.conv_flops + w.matmul_flops }
}
