//! Peak GPU memory of a job, as nvidia-smi shows it for the process.
//!
//! The model follows what PyTorch actually holds. A training step has two
//! peaks: the end of the forward pass (weights, optimizer states, every tensor
//! autograd saved, the loss's logits) and the optimizer step (weights,
//! gradients, states and the foreach optimizer's temporary copy). The larger of
//! the two is the live-tensor peak; the caching allocator reserves somewhat
//! more, and the CUDA context comes on top.
//!
//! Activations come from the architecture: traced per-sample bytes for vision
//! models; for transformers an op-by-op count of what autograd saves in one
//! block (see [`block_saved_bytes_per_token`]).

use serde::Serialize;

use crate::calibration as cal;
use crate::job::{Job, LoraTarget, Mode, Optimizer, Precision};
use crate::vocab::GIB;
use crate::zoo::{
    Activation, AttentionImpl, MlpKind, Model, NormKind, TransformerKind, TransformerModel,
    VisionModel,
};

/// The memory components of a peak, bytes. They add up to [`VramEstimate::peak_bytes`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Components {
    /// Model weights (the frozen base in LoRA/QLoRA).
    pub weights: f64,
    /// Gradients live at the peak.
    pub gradients: f64,
    /// Optimizer states.
    pub optimizer: f64,
    /// Tensors saved for backward (forward intermediates in inference).
    pub activations: f64,
    /// Logits and loss buffers.
    pub logits: f64,
    /// Key/value cache (inference).
    pub kv_cache: f64,
    /// Transient buffers: autocast weight copies, foreach optimizer temporaries, dequantised weights.
    pub workspace: f64,
    /// Caching-allocator reserve above the live tensors (fragmentation).
    pub allocator: f64,
    /// CUDA context and library workspaces.
    pub context: f64,
}

impl Components {
    /// Sum of all components.
    pub fn total(&self) -> f64 {
        self.weights
            + self.gradients
            + self.optimizer
            + self.activations
            + self.logits
            + self.kv_cache
            + self.workspace
            + self.allocator
            + self.context
    }

    /// The components' keys, in the order they are shown.
    pub const KEYS: [&'static str; 9] = [
        "weights",
        "gradients",
        "optimizer",
        "activations",
        "logits",
        "kv_cache",
        "workspace",
        "allocator",
        "context",
    ];

    /// Each component in GiB, in [`Components::KEYS`] order.
    pub fn gib_entries(&self) -> [(&'static str, f64); 9] {
        [
            ("weights", self.weights / GIB),
            ("gradients", self.gradients / GIB),
            ("optimizer", self.optimizer / GIB),
            ("activations", self.activations / GIB),
            ("logits", self.logits / GIB),
            ("kv_cache", self.kv_cache / GIB),
            ("workspace", self.workspace / GIB),
            ("allocator", self.allocator / GIB),
            ("context", self.context / GIB),
        ]
    }
}

/// Which moment of the step holds the peak.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub enum Phase {
    /// End of forward / start of backward.
    ForwardBackward,
    /// The optimizer step.
    OptimizerStep,
    /// Inference forward pass.
    Forward,
}

/// A job's peak memory and its breakdown.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VramEstimate {
    /// Process memory at the peak, bytes (what nvidia-smi lists for the process).
    pub peak_bytes: f64,
    /// The breakdown of that peak.
    pub components: Components,
    /// Which moment holds the peak.
    pub phase: Phase,
    /// Parameters of the model.
    pub params: u64,
    /// Parameters that learn.
    pub trainable_params: u64,
}

impl VramEstimate {
    /// Peak in GiB.
    pub fn peak_gib(&self) -> f64 {
        self.peak_bytes / GIB
    }
}

/// Live tensors at each of the two peaks before the allocator and context:
/// the forward/backward pass and the optimizer step.
#[derive(Debug, Clone, PartialEq)]
pub struct Live {
    /// At the end of the forward pass, when backward starts.
    pub fb: Components,
    /// At the optimizer step (absent for inference).
    pub opt: Option<Components>,
    /// The largest single block the allocator must place.
    pub largest_block: f64,
    /// A vision model (its allocator fragments more).
    pub vision: bool,
    /// Parameters of the model.
    pub params: u64,
    /// Parameters that learn.
    pub trainable: u64,
}

/// The live tensors of `job` on `model` at each peak, habits applied.
pub fn live(model: &Model, job: &Job) -> Live {
    let mut live = match model {
        Model::Vision(v) => vision_live(v, job),
        Model::Transformer(t) => transformer_live(t, job),
    };
    apply_habits(&mut live, job);
    live
}

/// Estimates peak memory of `job` on `model`.
pub fn estimate(model: &Model, job: &Job) -> VramEstimate {
    finish(live(model, job), job)
}

/// The peak of `live`: the larger phase, plus the allocator's reserve and
/// the CUDA context.
pub fn finish(live: Live, job: &Job) -> VramEstimate {
    let fb_total = live.fb.total();
    let (mut c, phase) = match live.opt {
        Some(o) if o.total() > fb_total => (o, Phase::OptimizerStep),
        _ => (
            live.fb,
            if job.mode == Mode::Infer {
                Phase::Forward
            } else {
                Phase::ForwardBackward
            },
        ),
    };
    let allocated = c.total();
    let (slack, blocks) = if live.vision {
        (
            cal::ALLOCATOR_SLACK_VISION,
            cal::ALLOCATOR_LARGEST_BLOCKS_VISION,
        )
    } else {
        (
            cal::ALLOCATOR_SLACK_TRANSFORMER,
            cal::ALLOCATOR_LARGEST_BLOCKS_TRANSFORMER,
        )
    };
    c.allocator = allocated * slack + blocks * live.largest_block;
    c.context = cal::CONTEXT_BYTES;
    VramEstimate {
        peak_bytes: c.total(),
        components: c,
        phase,
        params: live.params,
        trainable_params: live.trainable,
    }
}

/// The training habits that change memory but not the model: gradients kept
/// allocated between steps (`zero_grad(set_to_none=False)`) are live through
/// the forward and backward passes too; an EMA copy of the trainable weights
/// (FP32) is live throughout; a chunked cross-entropy holds one chunk of the
/// logits at a time.
fn apply_habits(live: &mut Live, job: &Job) {
    if job.mode == Mode::Infer {
        return;
    }
    if let Some(opt) = &live.opt {
        if job.keep_grads {
            live.fb.gradients = live.fb.gradients.max(opt.gradients);
        }
    }
    if job.ema {
        let copy = live.trainable as f64 * 4.0;
        live.fb.weights += copy;
        if let Some(opt) = &mut live.opt {
            opt.weights += copy;
        }
    }
    // The optimizer stepping inside backward frees each gradient as soon as
    // it is used: no moment holds them all, nor a foreach temporary.
    if job.optimizer_in_backward && job.mode == Mode::Train {
        if let Some(opt) = &mut live.opt {
            opt.gradients = live.fb.gradients;
            opt.workspace = 0.0;
        }
    }
    // Saved activations in host memory: the GPU holds the largest one being
    // copied and the one being used.
    if job.activation_offload {
        live.fb.activations = live.fb.activations.min(2.0 * live.largest_block);
    }
    // Only a language-model loss has logits to chunk; its logits are then
    // also the largest block the allocator must place.
    if job.chunked_loss && live.fb.logits > 0.0 {
        live.fb.logits /= cal::LOSS_CHUNKS;
        live.largest_block /= cal::LOSS_CHUNKS;
    }
}

/// Bytes per element of optimizer state for the trainable parameters.
fn optimizer_bytes(opt: Optimizer, state_bytes: f64) -> (f64, f64) {
    // (states per parameter in bytes, foreach temporary per parameter in bytes)
    match opt {
        // RMSprop keeps one square average per parameter, like SGD's momentum.
        Optimizer::Sgd | Optimizer::Rmsprop => (state_bytes, 0.0),
        // torch.optim.Adam(W) with foreach=True materialises sqrt(exp_avg_sq) for
        // every parameter at once: one more parameter-sized buffer at the step.
        Optimizer::Adam | Optimizer::Adamw => (2.0 * state_bytes, state_bytes),
        // bitsandbytes keeps two 8-bit states and updates them in one fused
        // kernel; the paged variant holds them in unified memory, resident on
        // the GPU until memory runs short (the estimate keeps them there).
        Optimizer::Adamw8bit | Optimizer::PagedAdamw8bit => (2.0, 0.0),
        // Two FP32 states, one fused kernel (no foreach temporary).
        Optimizer::PagedAdamw32bit => (8.0, 0.0),
        // Factored second moments: a row and a column vector per matrix,
        // a sliver of a parameter-sized state (see ADAFACTOR_STATE_SHARE);
        // the update is formed one parameter at a time, not foreach.
        Optimizer::Adafactor => (state_bytes * cal::ADAFACTOR_STATE_SHARE, 0.0),
        Optimizer::SgdPlain => (0.0, 0.0),
    }
}

/// Bytes autograd keeps per attention-score element under `attention`,
/// in training, shared by transformers and vision transformers. Eager
/// attention keeps the softmax output (FP32 under autocast, which runs
/// softmax in FP32), then what the P·V matmul saves as its input: the
/// dropout's output with its one-byte mask when attention dropout is on,
/// else autocast's 16-bit copy of the probabilities; without autocast or
/// dropout that input is the softmax output itself. Fused kernels (SDPA,
/// FlashAttention) keep no score matrix and recompute it in backward.
fn score_bytes(attention: AttentionImpl, d: Dtypes, dropout: bool) -> f64 {
    match attention {
        AttentionImpl::Eager => {
            let softmax = if d.casts { 4.0 } else { d.act };
            let pv_input = if dropout {
                1.0 + d.act
            } else if d.casts {
                d.act
            } else {
                0.0
            };
            softmax + pv_input
        }
        AttentionImpl::Sdpa | AttentionImpl::Flash => 0.0,
    }
}

/// Bytes a vision job saves for backward without checkpointing: the traced
/// bytes (with the traced library's attention kernel), plus what the job's
/// kernel keeps beyond it (eager attention's score matrices, `B·H·N²` per
/// layer and window), less what the traced kernel kept.
pub fn vision_saved_bytes(v: &VisionModel, job: &Job) -> f64 {
    let ratio = if job.precision.is_half() {
        v.amp_saved_ratio
    } else {
        1.0
    };
    let traced =
        v.saved_bytes_per_sample * v.activation_scale(job.side()) * ratio * f64::from(job.batch);
    // The trace's resolution exponent does not know Swin's padded windows
    // at tiny images, where removing them could overshoot.
    (traced + vision_score_delta(v, job)).max(0.0)
}

/// The score matrices `job`'s attention kernel keeps beyond the traced
/// kernel's, bytes (negative when the trace ran eager and the job fused).
pub fn vision_score_delta(v: &VisionModel, job: &Job) -> f64 {
    let Some(a) = &v.attention else {
        return 0.0;
    };
    let d = dtypes(job.precision);
    let delta = score_bytes(job.attention, d, a.dropout) - score_bytes(a.traced, d, a.dropout);
    // Scores the job keeps beyond the trace are counted as the kernel
    // allocates them (padded windows); scores the traced kernel kept and
    // the job's does not are taken back as the trace scaled them.
    let elements = if delta < 0.0 {
        a.smooth_score_elements(job.resolution, job.height)
    } else {
        a.score_elements(job.resolution, job.height).0
    };
    delta * elements * f64::from(job.batch)
}

/// Inference with eager attention: one layer's score matrix is live at a
/// time (as for transformers), bytes.
fn vision_inference_scores(v: &VisionModel, job: &Job) -> f64 {
    match (&v.attention, job.attention) {
        (Some(a), AttentionImpl::Eager) => {
            let (_, layer) = a.score_elements(job.resolution, job.height);
            layer * f64::from(job.batch) * dtypes(job.precision).act
        }
        _ => 0.0,
    }
}

fn vision_live(v: &VisionModel, job: &Job) -> Live {
    let p = v.params(job.classes) as f64;
    let b = f64::from(job.batch);
    let scale = v.activation_scale(job.side());
    let half = job.precision.is_half();
    let wb = if job.precision == Precision::Bf16 {
        2.0
    } else {
        4.0
    };
    let largest = v.largest_saved_bytes_per_sample * scale * b * if half { 0.5 } else { 1.0 };
    let weights = p * wb;
    if job.mode == Mode::Infer {
        // No graph is kept: at most a layer's input, output and scratch are live.
        let fb = Components {
            weights,
            activations: 3.0 * largest + vision_inference_scores(v, job),
            ..Default::default()
        };
        return Live {
            fb,
            opt: None,
            largest_block: largest,
            vision: true,
            params: p as u64,
            trainable: 0,
        };
    }
    let mut activations = vision_saved_bytes(v, job);
    if job.grad_checkpointing {
        activations *= cal::VISION_CHECKPOINT_SHARE;
    }
    let (state, temp) = optimizer_bytes(job.optimizer, wb);
    let grads = p * wb;
    // Autocast caches one 16-bit copy of each weight for the whole step.
    let casts = if matches!(job.precision, Precision::Fp16Amp | Precision::Bf16Amp) {
        2.0 * p
    } else {
        0.0
    };
    // CNN gradients are small next to activations, and the classifier's (VGG's
    // 100M-parameter head) are produced first, while all activations are held.
    let fb = Components {
        weights,
        gradients: grads,
        optimizer: p * state,
        activations,
        workspace: casts,
        ..Default::default()
    };
    let opt = Components {
        weights,
        gradients: grads,
        optimizer: p * state,
        workspace: p * temp,
        ..Default::default()
    };
    Live {
        fb,
        opt: Some(opt),
        largest_block: largest,
        vision: true,
        params: p as u64,
        trainable: p as u64,
    }
}

/// Bytes of the activation dtype, the residual stream and a normalised tensor.
#[derive(Clone, Copy)]
struct Dtypes {
    /// Outputs of matmuls (16-bit under autocast and in BF16).
    act: f64,
    /// The residual stream (FP32 under autocast: FP32 embeddings plus 16-bit outputs).
    residual: f64,
    /// Whether linears cast their input to 16-bit (autocast): the cast copy is what they save.
    casts: bool,
}

/// The dtypes of `job`: its precision's, except that QLoRA as PEFT prepares
/// it (`prepare_model_for_kbit_training`) upcasts every parameter it does not
/// quantize (embeddings, norms, the LM head) to FP32, so the residual stream
/// the blocks pass on, and keep at checkpoints, is FP32. Without that
/// upcast (LitGPT) the stream stays in the precision's dtype.
fn dtypes_for(job: &Job) -> Dtypes {
    let mut d = dtypes(job.precision);
    if (job.mode == Mode::Qlora || job.int8_base) && job.qlora_upcast && !qlora_sharded(job) {
        d.residual = 4.0;
    }
    // FSDP's mixed-precision policy casts each unit's parameters to the
    // 16-bit dtype, so the residual stream stays 16-bit even under autocast.
    if job.gpus > 1
        && matches!(
            job.engine,
            crate::vocab::Engine::FsdpFull | crate::vocab::Engine::FsdpGradOp
        )
    {
        d.residual = d.act;
    }
    d
}

/// QLoRA under a parameter-sharding engine (FSDP full shard, ZeRO-3): the
/// recipe for it (Answer.AI's FSDP-QLoRA, Transformers' `bnb_4bit_quant_storage`)
/// keeps every parameter in the one 16-bit dtype a flat shard needs, so
/// nothing is upcast to FP32.
fn qlora_sharded(job: &Job) -> bool {
    job.gpus > 1
        && matches!(
            job.engine,
            crate::vocab::Engine::FsdpFull | crate::vocab::Engine::Zero3
        )
}

fn dtypes(p: Precision) -> Dtypes {
    match p {
        Precision::Fp32 => Dtypes {
            act: 4.0,
            residual: 4.0,
            casts: false,
        },
        Precision::Fp16Amp | Precision::Bf16Amp => Dtypes {
            act: 2.0,
            residual: 4.0,
            casts: true,
        },
        Precision::Bf16 => Dtypes {
            act: 2.0,
            residual: 2.0,
            casts: false,
        },
    }
}

/// Bytes a normalisation saves per hidden element, plus the bytes of the tensor
/// the following linear saves (its input), for full training.
fn norm_and_linear_input(t: &TransformerModel, d: Dtypes) -> f64 {
    let norm_saved = match t.norm {
        // HF RMSNorm upcasts to FP32 (saved for pow/mul) and multiplies the
        // weight by the normalised tensor, saving that too (FP32 under autocast
        // because the FP32 weight promotes the product; 16-bit in pure BF16).
        NormKind::Rmsnorm => 4.0 + if d.act == 2.0 && !d.casts { 2.0 } else { 4.0 },
        // native_layer_norm saves its input (autocast runs it in FP32).
        NormKind::Layernorm => {
            if d.casts {
                4.0
            } else {
                d.residual
            }
        }
    };
    // The linear saves its input: a 16-bit cast copy under autocast, else the norm output.
    let lin_in = if d.casts { 2.0 } else { d.act };
    norm_saved + lin_in
}

/// Bytes autograd saves per token for one transformer block.
///
/// Full training, op by op (h hidden, k key/value width, i MLP width, a the
/// activation dtype): two norm + linear-input pairs; q, k, v and the attention
/// output kept by SDPA (`a*(2h + 2k)`); dropout masks (one byte per element);
/// the MLP (`4ai` gated: act input, act output, up output, product; `2ai` for a
/// fused GELU; GPT-2's Python GELU keeps five tensors). LoRA on a frozen base:
/// frozen linears keep nothing, so only norms (FP32 input), the adapters' FP32
/// input copies, SDPA and the MLP's elementwise inputs remain.
pub fn block_saved_bytes_per_token(t: &TransformerModel, job: &Job) -> f64 {
    let h = f64::from(t.hidden);
    let k = t.kv_width() as f64;
    // A mixture's token keeps what its active experts save.
    let i = t.active_intermediate() as f64;
    // q and the attention output are heads x head_dim wide (not always h).
    let inner = f64::from(t.heads) * t.head_dim() as f64;
    let d = dtypes_for(job);
    let a = d.act;
    let attention = a * (2.0 * inner + 2.0 * k);
    let mask = if t.dropout { h } else { 0.0 };
    // Per token: one score row of `seq_len` entries per head.
    let eager_scores = f64::from(t.heads)
        * f64::from(job.seq_len.max(1))
        * score_bytes(job.attention, d, t.dropout);
    if matches!(job.mode, Mode::Lora | Mode::Qlora) {
        let norm = match t.norm {
            NormKind::Rmsnorm => 4.0 * h,
            NormKind::Layernorm => d.residual * h,
        };
        // PEFT keeps adapters in FP32 and casts each adapted layer's input to FP32.
        let adapter_inputs: f64 = job
            .lora_targets
            .iter()
            .map(|t| match t {
                LoraTarget::Down => i,
                _ => h,
            })
            .sum::<f64>()
            * 4.0;
        let mlp = match (t.mlp, t.activation) {
            (MlpKind::Glu, _) => 3.0 * a * i,
            (MlpKind::Gelu, Activation::GeluNew) => 4.0 * a * i,
            (MlpKind::Gelu, _) => a * i,
        };
        return 2.0 * norm + adapter_inputs + attention + eager_scores + mlp + 2.0 * mask;
    }
    let mlp = match (t.mlp, t.activation) {
        (MlpKind::Glu, _) => 4.0 * a * i,
        // tanh-GELU in Python: pow (FP32 under autocast), tanh output, 0.5x and
        // (1 + tanh), then the product the next linear saves.
        (MlpKind::Gelu, Activation::GeluNew) => {
            if d.casts {
                16.0 * i
            } else {
                5.0 * a * i
            }
        }
        (MlpKind::Gelu, _) => 2.0 * a * i,
    };
    2.0 * norm_and_linear_input(t, d) * h + attention + eager_scores + mlp + 2.0 * mask
}

/// Parameters added by LoRA adapters of rank `r` on the given targets.
fn lora_params(t: &TransformerModel, job: &Job) -> f64 {
    let h = f64::from(t.hidden);
    let k = t.kv_width() as f64;
    let i = f64::from(t.intermediate);
    let r = f64::from(job.lora_rank);
    let per_layer: f64 = job
        .lora_targets
        .iter()
        .map(|tg| {
            let (din, dout) = match tg {
                LoraTarget::Q | LoraTarget::O => (h, h),
                LoraTarget::K | LoraTarget::V => (h, k),
                LoraTarget::Gate | LoraTarget::Up => (h, i),
                LoraTarget::Down => (i, h),
            };
            r * (din + dout)
        })
        .sum();
    per_layer
        * f64::from(t.layers)
        * if t.kind == TransformerKind::EncoderDecoder {
            2.0
        } else {
            1.0
        }
}

fn transformer_live(t: &TransformerModel, job: &Job) -> Live {
    if job.mode == Mode::Infer {
        return inference_live(t, job);
    }
    let h = f64::from(t.hidden);
    let v = f64::from(t.vocab);
    let i = t.active_intermediate() as f64;
    let l = f64::from(t.layers);
    let tokens = f64::from(job.batch) * f64::from(job.seq_len);
    let d = dtypes_for(job);
    let stacks = match t.kind {
        // The decoder stack has cross-attention on top of a normal block.
        TransformerKind::EncoderDecoder => 2.5,
        _ => 1.0,
    };
    let lm_loss = t.kind != TransformerKind::Encoder;
    let embed = v * h;
    let per_block = block_saved_bytes_per_token(t, job);
    let edges = tokens * h * 8.0; // embedding output, final norm and head input
    let activations = if job.grad_checkpointing {
        // Only each block's input is kept; one block is recomputed at a time.
        stacks * l * d.residual * h * tokens + per_block * tokens + edges
    } else if job.selective() {
        // The op policy keeps matmul and attention outputs (every other
        // matmul's) and recomputes the elementwise operators.
        stacks * l * per_block * tokens * cal::SELECTIVE_CHECKPOINT_KEEP + edges
    } else {
        stacks * l * per_block * tokens + edges
    };
    let logits = if lm_loss {
        tokens * v * cal::LOGITS_TRAIN_BYTES_PER_ENTRY
    } else {
        0.0
    };
    let largest = if lm_loss {
        tokens * v * 4.0
    } else {
        tokens * i * d.act
    };

    let saved = Saved {
        activations,
        logits,
        largest,
    };
    match job.mode {
        Mode::Lora | Mode::Qlora => lora_live(t, job, &saved),
        _ => full_live(t, job, &saved, lm_loss.then_some(embed)),
    }
}

/// What training keeps for backward, and the largest single block.
struct Saved {
    activations: f64,
    logits: f64,
    largest: f64,
}

/// Inference: 16- or 32-bit weights, the KV cache, one block's
/// intermediates and the logits.
fn inference_live(t: &TransformerModel, job: &Job) -> Live {
    let params = t.params_for(job.classes) as f64;
    let h = f64::from(t.hidden);
    let v = f64::from(t.vocab);
    let i = t.active_intermediate() as f64;
    let l = f64::from(t.layers);
    let tokens = f64::from(job.batch) * f64::from(job.seq_len);
    let d = dtypes_for(job);
    let lm_loss = t.kind != TransformerKind::Encoder;
    let wb = if job.precision == Precision::Fp32 {
        4.0
    } else {
        2.0
    };
    let kv_layers = if t.kind == TransformerKind::Encoder {
        0.0
    } else {
        l
    };
    let kv_cache = 2.0 * kv_layers * t.kv_width() as f64 * d.act * tokens;
    let logits = if lm_loss { tokens * v * d.act } else { 0.0 };
    // One block's intermediates are live at a time.
    let mlp = match t.mlp {
        MlpKind::Glu => 4.0,
        MlpKind::Gelu => 2.0,
    };
    // Eager attention materialises one layer's scores at a time.
    let scores = if job.attention == AttentionImpl::Eager {
        tokens * f64::from(t.heads) * f64::from(job.seq_len) * d.act
    } else {
        0.0
    };
    let transient = tokens * (mlp * i + 4.0 * h) * d.act + scores;
    let fb = Components {
        weights: params * wb,
        kv_cache,
        logits,
        activations: transient,
        ..Default::default()
    };
    let largest = logits.max(tokens * i * d.act);
    Live {
        fb,
        opt: None,
        largest_block: largest,
        vision: false,
        params: params as u64,
        trainable: 0,
    }
}

/// LoRA and QLoRA: the frozen base (quantised or not) plus the adapters,
/// their gradients and optimizer states.
fn lora_live(t: &TransformerModel, job: &Job, saved: &Saved) -> Live {
    let params = t.params_for(job.classes) as f64;
    let Saved {
        activations,
        logits,
        largest,
    } = *saved;
    let quantised = job.mode == Mode::Qlora || job.int8_base;
    let (weights, dequant) = lora_base(t, job, quantised, params);
    let adapters = lora_params(t, job);
    let (state, temp) = optimizer_bytes(job.optimizer, 4.0);
    let fb = Components {
        weights: weights + adapters * 4.0,
        gradients: adapters * 4.0,
        optimizer: adapters * state,
        activations,
        logits,
        workspace: dequant,
        ..Default::default()
    };
    let opt = Components {
        weights: weights + adapters * 4.0,
        gradients: adapters * 4.0,
        optimizer: adapters * state,
        workspace: adapters * temp,
        ..Default::default()
    };
    Live {
        fb,
        opt: Some(opt),
        largest_block: largest,
        vision: false,
        params: params as u64,
        trainable: adapters as u64,
    }
}

/// The frozen base's bytes and the dequantisation workspace: linear
/// weights in NF4 (or int8) when `quantised`, 16- or 32-bit otherwise.
fn lora_base(t: &TransformerModel, job: &Job, quantised: bool, params: f64) -> (f64, f64) {
    let h = f64::from(t.hidden);
    let i = t.active_intermediate() as f64;
    let embed = f64::from(t.vocab) * h;
    if quantised {
        // Linear weights in NF4 (or int8); embeddings, head and norms,
        // which bitsandbytes leaves unquantised, upcast to FP32 by
        // `prepare_model_for_kbit_training`; each linear is
        // dequantised to 16-bit when used.
        let head = if t.tied_embeddings {
            embed
        } else {
            2.0 * embed
        };
        let linear = (params - head).max(0.0);
        let per_param = if job.int8_base {
            cal::INT8_BYTES_PER_PARAM
        } else if job.double_quant {
            cal::NF4_BYTES_PER_PARAM
        } else {
            cal::NF4_SINGLE_BYTES_PER_PARAM
        };
        let head_bytes = if qlora_sharded(job) || !job.qlora_upcast {
            2.0
        } else {
            4.0
        };
        (
            linear * per_param + head * head_bytes,
            2.0 * h * i.max(h) * 2.0,
        )
    } else {
        (
            params
                * if job.precision == Precision::Fp32 || job.base_fp32 {
                    4.0
                } else {
                    2.0
                },
            0.0,
        )
    }
}

/// Full training: every weight, its gradient and optimizer state; the LM
/// head's gradient (`head`: its parameters) exists while activations are
/// still held.
fn full_live(t: &TransformerModel, job: &Job, saved: &Saved, head: Option<f64>) -> Live {
    let params = t.params_for(job.classes) as f64;
    let d = dtypes_for(job);
    let Saved {
        activations,
        logits,
        largest,
    } = *saved;
    let wb = if job.precision == Precision::Bf16 {
        2.0
    } else {
        4.0
    };
    let (state, temp) = optimizer_bytes(job.optimizer, wb);
    let casts = if d.casts {
        2.0 * t.matmul_params() as f64
    } else {
        0.0
    };
    // Backward starts at the head: the LM head's (or tied embedding's)
    // gradient exists while all activations are still held.
    let head_grads = head.map_or(0.0, |embed| embed * wb);
    let fb = Components {
        weights: params * wb,
        gradients: head_grads,
        optimizer: params * state,
        activations,
        logits,
        workspace: casts,
        ..Default::default()
    };
    let opt = Components {
        weights: params * wb,
        gradients: params * wb,
        optimizer: params * state,
        workspace: params * temp,
        ..Default::default()
    };
    Live {
        fb,
        opt: Some(opt),
        largest_block: largest,
        vision: false,
        params: params as u64,
        trainable: params as u64,
    }
}
