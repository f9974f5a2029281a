//! The constants the estimators take from measurements rather than from first
//! principles. Each is a property of PyTorch and CUDA, never of one job: the
//! activation, gradient and optimizer terms come from the architecture itself,
//! and these cover what the architecture cannot tell (the allocator's slack,
//! the CUDA context, achievable fractions of peak throughput).
//!
//! Source for all of them: `data/measurements/h200-set1.jsonl` (25 jobs on an
//! H200, PyTorch 2.11) and, for the cross-GPU efficiency, the measured relative
//! throughput table in `shared/reference/gpus.md`. `docs/accuracy.md` shows the
//! resulting errors and how to regenerate them.

/// CUDA context plus cuBLAS/cuDNN handles and workspaces, bytes. Measured as
/// `nvml_used - nvml_used_before - peak_reserved` on every calibration job:
/// 767-789 MiB, so the upper end is used.
pub const CONTEXT_BYTES: f64 = 790.0 * 1024.0 * 1024.0;

/// Memory nvidia-smi already shows as used on an idle card before any process
/// starts (driver reservations), MiB. Measured 615 MiB on the H200; a job fits
/// when its peak is below the card's total minus this.
pub const IDLE_DEVICE_MIB: f64 = 615.0;

/// Share of the caching allocator's reserve above the live-tensor peak that
/// grows with the whole footprint (block rounding and splitting), by family.
/// Fitted: reserved / allocated is 1.03-1.11 for transformers.
pub const ALLOCATOR_SLACK_TRANSFORMER: f64 = 0.08;
/// The same for CNNs and vision transformers, whose many differently shaped
/// activations fragment more (reserved / allocated 1.05-1.78).
pub const ALLOCATOR_SLACK_VISION: f64 = 0.08;

/// Extra reserve in units of the largest single activation block: freed blocks
/// of that size cannot be reused for the next differently sized request, so the
/// allocator holds a few more. Fitted on the vision jobs, where the reserve
/// above the peak is 1.4-6.5x the largest activation tensor.
pub const ALLOCATOR_LARGEST_BLOCKS_VISION: f64 = 5.0;
/// The same for transformers, whose largest block is the logits tensor.
pub const ALLOCATOR_LARGEST_BLOCKS_TRANSFORMER: f64 = 0.5;

/// Bytes held per token and vocabulary entry by the language-model loss in
/// training: the FP32 logits (or their FP32 upcast), log-softmax output kept for
/// backward, and the logits' gradient (Hugging Face `ForCausalLMLoss`).
pub const LOGITS_TRAIN_BYTES_PER_ENTRY: f64 = 12.0;

/// Activation memory kept with gradient checkpointing on a CNN, as a share of
/// the full amount: `checkpoint_sequential` over four segments keeps the
/// segment boundaries and recomputes one segment at a time. An assumption, not
/// a measurement (no calibration job checkpoints a CNN).
pub const VISION_CHECKPOINT_SHARE: f64 = 0.35;

/// Bytes per parameter of a 4-bit NF4 weight with double quantisation
/// (bitsandbytes: 4 bits plus one FP8 scale per 64 weights plus one FP32 scale
/// per 256 blocks).
pub const NF4_BYTES_PER_PARAM: f64 = 0.5 + (1.0 / 64.0 + 4.0 / (64.0 * 256.0));

/// The card the calibration jobs ran on (H200): its peak FP16/BF16 tensor
/// FLOPS, TF32 FLOPS, FP32 FLOPS and bandwidth, which turn the calibrated
/// efficiencies into device seconds. A test checks them against the catalog.
pub const REFERENCE_TENSOR_FLOPS: f64 = 989e12;
/// TF32 tensor peak of the reference card (half its FP16 rate).
pub const REFERENCE_TF32_FLOPS: f64 = 494.5e12;
/// FP32 CUDA-core peak of the reference card.
pub const REFERENCE_FP32_FLOPS: f64 = 67e12;
/// Memory bandwidth of the reference card, bytes/s.
pub const REFERENCE_BANDWIDTH: f64 = 4.8e12;
/// Catalog id of the reference card; its `rel_*` figures divide every other card's.
pub const REFERENCE_GPU: &str = "h200";

/// Achieved fraction of the reference card's peak in one eager PyTorch training
/// step, fitted on the 25 calibration jobs (median of |log error| plus a share
/// of the mean, so outliers do not steer it): convolutions in 16-bit.
pub const EFFICIENCY_CONV_HALF: f64 = 0.30;
/// Convolutions in FP32 (cuDNN uses TF32 tensor cores).
pub const EFFICIENCY_CONV_FP32: f64 = 0.23;
/// Matmuls in 16-bit.
pub const EFFICIENCY_MATMUL_HALF: f64 = 0.60;
/// Matmuls in FP32 (CUDA cores).
pub const EFFICIENCY_MATMUL_FP32: f64 = 0.72;
/// Achieved fraction of bandwidth in memory-bound kernels.
pub const EFFICIENCY_MEMORY: f64 = 0.35;

/// Times each saved activation byte crosses the memory bus in one training step
/// (written in forward, read back in backward, gradients written and read).
pub const ACTIVATION_TRAFFIC: f64 = 6.0;

/// Host-side cost of one dispatched operator in eager PyTorch (launch plus
/// Python and autograd bookkeeping), seconds. Fitted.
pub const OP_OVERHEAD_S: f64 = 12e-6;
/// Host-side cost per step independent of the model (zero_grad, loss, the
/// optimizer's Python loop), seconds. Fitted.
pub const STEP_OVERHEAD_S: f64 = 0.8e-3;
/// Operator count multiplier under autocast: casts of inputs and weights, their
/// backward, and GradScaler's unscale and checks. Fitted (2.3).
pub const AUTOCAST_OP_FACTOR: f64 = 2.3;
/// The host launches asynchronously, so host and device time mostly overlap:
/// a step takes the longer of the two plus this share of the shorter. Fitted.
pub const OVERLAP_SHARE: f64 = 0.29;

/// Operators dispatched per transformer block in one forward pass (projections,
/// attention, norms, activation, residuals), counted on the Hugging Face
/// Llama and BERT blocks.
pub const OPS_PER_TRANSFORMER_LAYER: f64 = 30.0;

/// Slowdown of QLoRA against LoRA from dequantising the 4-bit weights on every
/// use (bitsandbytes); literature reports 1.2-1.5x.
pub const QLORA_SLOWDOWN: f64 = 1.3;
