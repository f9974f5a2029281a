//! A job to estimate: what is trained (or run), how, and on how much data.
//!
//! [`JobSpec`] is what a user typed, with optional fields; [`JobSpec::resolve`]
//! fills defaults from the model and checks every field, returning an
//! [`InputError`] that names the field and its allowed range.

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use crate::error::InputError;
use crate::limits::{self, FieldLimit};
use crate::message::Message;
use crate::zoo::{AttentionImpl, Model, ZooEntry};

/// Numeric precision of training.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub enum Precision {
    /// Everything in FP32 (convolutions use TF32 on Ampere+, as PyTorch does by default).
    Fp32,
    /// FP32 weights, FP16 autocast, GradScaler.
    Fp16Amp,
    /// FP32 weights, BF16 autocast.
    Bf16Amp,
    /// Weights, gradients and optimizer states all in BF16.
    Bf16,
}

impl std::fmt::Display for Precision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Fp32 => "fp32",
            Self::Fp16Amp => "fp16-amp",
            Self::Bf16Amp => "bf16-amp",
            Self::Bf16 => "bf16",
        })
    }
}

impl std::fmt::Display for Optimizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Sgd => "sgd",
            Self::Adam => "adam",
            Self::Adamw => "adamw",
            Self::Adamw8bit => "adamw-8bit",
            Self::PagedAdamw8bit => "paged-adamw-8bit",
            Self::Adafactor => "adafactor",
            Self::SgdPlain => "sgd-plain",
            Self::Rmsprop => "rmsprop",
            Self::PagedAdamw32bit => "paged-adamw-32bit",
        })
    }
}

impl std::fmt::Display for Mode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Train => "train",
            Self::Lora => "lora",
            Self::Qlora => "qlora",
            Self::Infer => "infer",
        })
    }
}

impl Precision {
    /// Every precision, in the order forms list them.
    pub const VALUES: [Self; 4] = [Self::Fp32, Self::Fp16Amp, Self::Bf16Amp, Self::Bf16];

    /// All values, for help texts.
    pub const ALL: [&'static str; 4] = ["fp32", "fp16-amp", "bf16-amp", "bf16"];

    /// Parses the CLI spelling.
    pub fn parse(s: &str) -> Result<Self, InputError> {
        match s {
            "fp32" => Ok(Self::Fp32),
            "fp16-amp" | "fp16" | "amp" => Ok(Self::Fp16Amp),
            "bf16-amp" => Ok(Self::Bf16Amp),
            "bf16" => Ok(Self::Bf16),
            _ => Err(InputError::unknown_choice(
                "precision",
                "precision",
                s,
                Self::ALL.join(", "),
            )),
        }
    }

    /// Whether the card must support bfloat16.
    pub fn needs_bf16(self) -> bool {
        matches!(self, Self::Bf16Amp | Self::Bf16)
    }

    /// Whether matmuls run in 16-bit on tensor cores.
    pub fn is_half(self) -> bool {
        !matches!(self, Self::Fp32)
    }
}

/// Optimizer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub enum Optimizer {
    /// SGD with momentum (one state per parameter).
    Sgd,
    /// Adam (two states).
    Adam,
    /// AdamW (two states).
    Adamw,
    /// bitsandbytes 8-bit AdamW (two 1-byte states). Spelled `adamw-8bit`
    /// everywhere, as the CLI's flag is; `adamw8bit` is read too.
    #[serde(rename = "adamw-8bit", alias = "adamw8bit")]
    Adamw8bit,
    /// bitsandbytes paged 8-bit AdamW (`optim="paged_adamw_8bit"`): the same
    /// states, in unified memory that pages to the host under pressure.
    #[serde(rename = "paged-adamw-8bit")]
    PagedAdamw8bit,
    /// Adafactor (Transformers' default settings: no first moment, factored
    /// second moments: one row and one column vector per matrix).
    Adafactor,
    /// Plain SGD without momentum: no state.
    #[serde(rename = "sgd-plain")]
    SgdPlain,
    /// RMSprop (`torch.optim.RMSprop` defaults: one square-average state per
    /// parameter; EfficientNet's and MobileNet's recipes use it).
    Rmsprop,
    /// bitsandbytes paged 32-bit AdamW (`optim="paged_adamw_32bit"`): two
    /// FP32 states in unified memory, updated by one fused kernel.
    #[serde(rename = "paged-adamw-32bit")]
    PagedAdamw32bit,
}

impl Optimizer {
    /// Every optimizer, in the order forms list them.
    pub const VALUES: [Self; 9] = [
        Self::Sgd,
        Self::SgdPlain,
        Self::Rmsprop,
        Self::Adam,
        Self::Adamw,
        Self::PagedAdamw32bit,
        Self::Adamw8bit,
        Self::PagedAdamw8bit,
        Self::Adafactor,
    ];

    /// All values, for help texts.
    pub const ALL: [&'static str; 9] = [
        "sgd",
        "sgd-plain",
        "rmsprop",
        "adam",
        "adamw",
        "paged-adamw-32bit",
        "adamw-8bit",
        "paged-adamw-8bit",
        "adafactor",
    ];

    /// Parses the CLI spelling.
    pub fn parse(s: &str) -> Result<Self, InputError> {
        match s {
            "sgd" => Ok(Self::Sgd),
            "adam" => Ok(Self::Adam),
            "adamw" => Ok(Self::Adamw),
            "adamw-8bit" | "adamw8bit" => Ok(Self::Adamw8bit),
            "paged-adamw-8bit" | "paged_adamw_8bit" => Ok(Self::PagedAdamw8bit),
            "adafactor" => Ok(Self::Adafactor),
            "sgd-plain" | "sgd-no-momentum" => Ok(Self::SgdPlain),
            "rmsprop" => Ok(Self::Rmsprop),
            "paged-adamw-32bit" | "paged_adamw_32bit" => Ok(Self::PagedAdamw32bit),
            _ => Err(InputError::unknown_choice(
                "optimizer",
                "optimizer",
                s,
                Self::ALL.join(", "),
            )),
        }
    }
}

/// What the job does with the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub enum Mode {
    /// Full training: every parameter learns.
    Train,
    /// LoRA: frozen 16-bit base, low-rank adapters learn.
    Lora,
    /// QLoRA: frozen 4-bit NF4 base, adapters learn.
    Qlora,
    /// One forward pass over the prompt, keeping the KV cache (prefill).
    Infer,
}

impl Mode {
    /// Every mode, in the order forms list them.
    pub const VALUES: [Self; 4] = [Self::Train, Self::Lora, Self::Qlora, Self::Infer];

    /// All values, for help texts.
    pub const ALL: [&'static str; 4] = ["train", "lora", "qlora", "infer"];

    /// Parses the CLI spelling.
    pub fn parse(s: &str) -> Result<Self, InputError> {
        match s {
            "train" => Ok(Self::Train),
            "lora" => Ok(Self::Lora),
            "qlora" => Ok(Self::Qlora),
            "infer" | "inference" => Ok(Self::Infer),
            _ => Err(InputError::unknown_choice(
                "mode",
                "mode",
                s,
                Self::ALL.join(", "),
            )),
        }
    }
}

/// Projections LoRA adapters can target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub enum LoraTarget {
    /// Query projection.
    Q,
    /// Key projection.
    K,
    /// Value projection.
    V,
    /// Attention output projection.
    O,
    /// MLP gate projection.
    Gate,
    /// MLP up projection.
    Up,
    /// MLP down projection.
    Down,
}

impl LoraTarget {
    /// Parses a comma-separated list such as `q,v` or `all`.
    pub fn parse_list(s: &str) -> Result<Vec<Self>, InputError> {
        let allowed = "comma-separated q, k, v, o, gate, up, down, or `all`";
        if s.trim() == "all" {
            return Ok(vec![
                Self::Q,
                Self::K,
                Self::V,
                Self::O,
                Self::Gate,
                Self::Up,
                Self::Down,
            ]);
        }
        let mut out = Vec::new();
        for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let t = match part.trim_end_matches("_proj") {
                "q" => Self::Q,
                "k" => Self::K,
                "v" => Self::V,
                "o" => Self::O,
                "gate" => Self::Gate,
                "up" => Self::Up,
                "down" => Self::Down,
                other => {
                    // The list is a list of several, not one of them: its own
                    // allowed sentence in both languages.
                    return Err(InputError::new(
                        "lora_targets",
                        format!("unknown target `{}`", crate::error::short(other)),
                        allowed,
                    )
                    .said(
                        Message::new("error.unknownChoice")
                            .with("value", crate::error::short(other)),
                        Some(Message::new("allowed.loraTargets")),
                    ));
                }
            };
            if !out.contains(&t) {
                out.push(t);
            }
        }
        if out.is_empty() {
            return Err(
                InputError::new("lora_targets", "no target given", allowed).said(
                    Message::new("error.noLoraTarget"),
                    Some(Message::new("allowed.loraTargets")),
                ),
            );
        }
        out.sort();
        Ok(out)
    }
}

/// The job a user describes: the one shape used by the estimator, the plan
/// file's `[job]` table, recommend, the app's forms and the CLI's flags.
/// `None` means "use the default", and every default is filled in one place,
/// [`JobSpec::resolve`].
///
/// Either `hours` (the length of one run, known from experience) or `model`
/// (a zoo id, timed by the estimator) says how long a run takes; the estimator
/// itself needs `model` and ignores `hours`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct JobSpec {
    /// Zoo model id (`gpuplan models`).
    #[serde(default)]
    pub model: Option<String>,
    /// Hours of one run, when known from experience (instead of estimating).
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(type = "string | null"))]
    pub hours: Option<Decimal>,
    /// Samples (sequences) per step.
    #[serde(default)]
    pub batch: Option<f64>,
    /// Image side in pixels (vision).
    #[serde(default)]
    pub resolution: Option<f64>,
    /// Tokens per sequence (transformers).
    #[serde(default)]
    pub seq_len: Option<f64>,
    /// Output classes (vision; encoders use their label count).
    #[serde(default)]
    pub classes: Option<f64>,
    /// Precision.
    #[serde(default)]
    pub precision: Option<Precision>,
    /// Optimizer.
    #[serde(default)]
    pub optimizer: Option<Optimizer>,
    /// Mode.
    #[serde(default)]
    pub mode: Option<Mode>,
    /// LoRA rank.
    #[serde(default)]
    pub lora_rank: Option<f64>,
    /// LoRA targets.
    #[serde(default)]
    pub lora_targets: Option<Vec<LoraTarget>>,
    /// Gradient checkpointing.
    #[serde(default)]
    pub grad_checkpointing: Option<bool>,
    /// Samples in the dataset (for epoch time).
    #[serde(default)]
    pub dataset_samples: Option<f64>,
    /// Epochs of one run (for run time).
    #[serde(default)]
    pub epochs: Option<f64>,
    /// Image height in pixels when it differs from `resolution` (the width).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image_height: Option<f64>,
    /// How the data reaches the GPU (sets the input pipeline's speed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dataset: Option<DatasetKind>,
    /// DataLoader worker processes (`num_workers`; 0 loads in the training process).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub num_workers: Option<f64>,
    /// Epochs between evaluation passes (0: never).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub eval_every_epochs: Option<f64>,
    /// Samples in the validation set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub val_samples: Option<f64>,
    /// Epochs between checkpoint saves (0: never).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub save_every_epochs: Option<f64>,
    /// `torch.compile` (minutes of compilation at the start, faster steps after).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compile: Option<bool>,
    /// The optimizer steps each parameter in its gradient hook during
    /// backward (torchtune's `optimizer_in_bwd`), so no moment holds every
    /// gradient. Full training only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub optimizer_in_backward: Option<bool>,
    /// Activations saved for backward kept in host memory
    /// (`torch.autograd.graph.save_on_cpu`), copied out in the forward and
    /// back in the backward.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub activation_offload: Option<bool>,
    /// QLoRA's FP32 upcast of the layers bitsandbytes leaves unquantised
    /// (embeddings, head, norms; PEFT's `prepare_model_for_kbit_training`,
    /// on by default); `false` keeps them 16-bit, as LitGPT does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub qlora_upcast: Option<bool>,
    /// LoRA's frozen 16-bit-compute base loaded in FP32
    /// (`from_pretrained` without `torch_dtype`): autocast casts every
    /// weight on each use. Off by default (the base in the compute dtype).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_fp32: Option<bool>,
    /// Selective (per-operator) activation checkpointing of transformer
    /// blocks, as torchtitan's `op` policy: matmul and attention outputs are
    /// kept (every other matmul recomputed), elementwise operators
    /// recomputed. Ignored when `grad_checkpointing` is on (full wins).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selective_checkpointing: Option<bool>,
    /// Vision models in the channels_last memory format
    /// (`model.to(memory_format=torch.channels_last)`): tensor-core
    /// convolutions skip cuDNN's layout transposes. Off by default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channels_last: Option<bool>,
    /// TF32 for FP32 matmuls (`torch.backends.cuda.matmul.allow_tf32 = True`,
    /// Hugging Face `tf32=True`); off by default in PyTorch. Ampere and newer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tf32: Option<bool>,
    /// Attention kernel (transformers): `eager`, `sdpa` or `flash`; default
    /// what Hugging Face Transformers picks for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attention: Option<crate::zoo::AttentionImpl>,
    /// Gradients kept allocated between steps (`zero_grad(set_to_none=False)`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keep_grads: Option<bool>,
    /// An exponential-moving-average copy of the weights (FP32) on the GPU.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ema: Option<bool>,
    /// A chunked (fused linear) cross-entropy that never holds all logits
    /// (Liger, Unsloth, Apple's cut cross-entropy).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chunked_loss: Option<bool>,
    /// LoRA on a base loaded in 8 bits (bitsandbytes LLM.int8).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load_in_8bit: Option<bool>,
    /// QLoRA's double quantisation of the NF4 scales (default on, as the
    /// QLoRA recipe sets `bnb_4bit_use_double_quant=True`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub double_quant: Option<bool>,
    /// GPUs the run trains on (data parallel; default 1). `batch` is per GPU.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpus: Option<f64>,
    /// The multi-GPU engine (default `ddp`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine: Option<crate::vocab::Engine>,
    /// Optimizer states on the CPU (ZeRO-2/3, FSDP).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offload: Option<bool>,
    /// The PCIe link the board gives each GPU, GB/s each way (7.9 for PCIe
    /// 3.0 x8, 31.5 for 4.0 x16), for several GPUs; over the platform
    /// offer's figure, else a typical host's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pcie_gbps: Option<f64>,
}

/// How a dataset reaches the GPU: decides how many samples a CPU core can
/// prepare per second and how many bytes each sample reads from disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub enum DatasetKind {
    /// Small images held in memory as arrays (CIFAR, MNIST): augment only.
    InMemory,
    /// A folder of JPEG files (ImageNet style): decode and augment each image.
    JpegFolder,
    /// Tokenised text: collate and pad.
    Text,
    /// Pre-decoded, packed samples (FFCV, WebDataset of arrays, DALI-ready).
    Packed,
}

impl DatasetKind {
    /// Every kind, in the order forms list them.
    pub const VALUES: [Self; 4] = [Self::InMemory, Self::JpegFolder, Self::Text, Self::Packed];

    /// Parses the CLI spelling.
    pub fn parse(s: &str) -> Result<Self, InputError> {
        match s {
            "in-memory" => Ok(Self::InMemory),
            "jpeg-folder" | "jpeg" => Ok(Self::JpegFolder),
            "text" => Ok(Self::Text),
            "packed" => Ok(Self::Packed),
            _ => Err(InputError::unknown_choice(
                "dataset",
                "dataset kind",
                s,
                "in-memory, jpeg-folder, text or packed",
            )),
        }
    }
}

/// A fully specified, validated job.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Job {
    /// Samples per step.
    pub batch: u32,
    /// Image side (vision), 0 for transformers.
    pub resolution: u32,
    /// Tokens per sequence (transformers), 0 for vision.
    pub seq_len: u32,
    /// Output classes.
    pub classes: u32,
    /// Precision.
    pub precision: Precision,
    /// Optimizer.
    pub optimizer: Optimizer,
    /// Mode.
    pub mode: Mode,
    /// LoRA rank (0 unless LoRA/QLoRA).
    pub lora_rank: u32,
    /// LoRA targets (empty unless LoRA/QLoRA).
    pub lora_targets: Vec<LoraTarget>,
    /// Gradient checkpointing.
    pub grad_checkpointing: bool,
    /// Samples in the dataset, if given.
    pub dataset_samples: Option<u64>,
    /// Epochs, if given.
    pub epochs: Option<f64>,
    /// Image height (vision; equals `resolution` for square images).
    pub height: u32,
    /// How the data reaches the GPU.
    pub dataset: DatasetKind,
    /// DataLoader workers.
    pub num_workers: u32,
    /// Epochs between evaluation passes (0: never).
    pub eval_every_epochs: f64,
    /// Validation samples.
    pub val_samples: u64,
    /// Epochs between checkpoint saves (0: never).
    pub save_every_epochs: f64,
    /// `torch.compile`.
    pub compile: bool,
    /// channels_last memory format (vision).
    pub channels_last: bool,
    /// Selective activation checkpointing (transformers; off when full
    /// checkpointing is on).
    pub selective_checkpointing: bool,
    /// Optimizer steps inside backward.
    pub optimizer_in_backward: bool,
    /// Saved activations in host memory.
    pub activation_offload: bool,
    /// QLoRA upcasts its unquantised layers to FP32.
    pub qlora_upcast: bool,
    /// LoRA's base loaded in FP32 under 16-bit compute.
    pub base_fp32: bool,
    /// TF32 matmuls in FP32 training.
    pub tf32: bool,
    /// Attention kernel (transformers; the model's default when not given).
    pub attention: crate::zoo::AttentionImpl,
    /// Gradients kept between steps.
    pub keep_grads: bool,
    /// An FP32 EMA copy of the weights.
    pub ema: bool,
    /// Chunked cross-entropy.
    pub chunked_loss: bool,
    /// LoRA's frozen base in 8 bits.
    pub int8_base: bool,
    /// NF4 scales quantised again (QLoRA).
    pub double_quant: bool,
    /// GPUs in all (1: a single GPU).
    pub gpus: u32,
    /// The multi-GPU engine.
    pub engine: crate::vocab::Engine,
    /// Optimizer states offloaded to the CPU.
    pub offload: bool,
    /// The board's PCIe link to each GPU, GB/s each way, where stated.
    pub pcie_gbps: Option<f64>,
}

impl Job {
    /// Whether selective checkpointing is in effect (full checkpointing,
    /// when on, already recomputes everything).
    pub fn selective(&self) -> bool {
        self.selective_checkpointing && !self.grad_checkpointing
    }

    /// The side of a square image with the same number of pixels: what
    /// activations and FLOPs scale with (0 for transformers).
    pub fn side(&self) -> f64 {
        (f64::from(self.resolution) * f64::from(self.height)).sqrt()
    }
}

/// DataLoader workers when the job names none: PyTorch's ImageNet example and
/// most course templates use 4.
pub const DEFAULT_NUM_WORKERS: u32 = 4;
/// Validation set as a share of the training set when the job names none
/// (CIFAR-10's 10,000 test images against 50,000), capped at ImageNet's 50,000.
pub const DEFAULT_VAL_SHARE: f64 = 0.2;
/// Largest default validation set.
pub const DEFAULT_VAL_MAX: u64 = 50_000;
/// Vision jobs at or below this side read small in-memory images by default
/// (CIFAR, MNIST, Tiny-ImageNet); larger ones read JPEG folders.
pub const IN_MEMORY_MAX_SIDE: u32 = 64;

// A job's maxima are limits (`crate::limits`), named here too.
pub use crate::limits::{MAX_BATCH, MAX_LORA_RANK, MAX_RESOLUTION};

/// A GPU count as a plan or a form gives it: a whole number from 1 to
/// [`crate::limits::MAX_GPUS`], that splits evenly over nodes.
pub fn whole_gpus(v: f64) -> Result<u32, InputError> {
    let gpus = gpu_count(v)?;
    crate::limits::check_node_split(gpus)?;
    Ok(gpus)
}

/// A GPU count as a whole number from 1 to [`crate::limits::MAX_GPUS`],
/// before it is split over nodes (a platform's own limit is checked first).
pub fn gpu_count(v: f64) -> Result<u32, InputError> {
    whole(limits::GPUS, v)
}

fn whole(limit: FieldLimit, v: f64) -> Result<u32, InputError> {
    let field = limit.field;
    if v.is_nan() {
        return Err(InputError::not_a_number(field, "NaN", limit.allowed()));
    }
    if v.fract() != 0.0 {
        return Err(InputError::not_whole(field, v, limit.allowed()));
    }
    if !limit.allows(v) {
        return Err(InputError::out_of_range(field, v, limit.allowed()));
    }
    // `allows` bounded it within u32 (every whole limit's max is a u32).
    Ok(v as u32)
}

impl JobSpec {
    /// Fills defaults for `entry` and validates every field. `model` and
    /// `hours` are not read here: the caller has already looked the model up.
    pub fn resolve(&self, entry: &ZooEntry) -> Result<Job, InputError> {
        let mode = self.mode.unwrap_or(Mode::Train);
        // Each concern in turn, in the order their errors are reported.
        let shape = match &entry.model {
            Model::Vision(v) => self.vision_shape(entry, v, mode)?,
            Model::Transformer(t) => self.transformer_shape(entry, t, mode)?,
        };
        let batch = whole(limits::BATCH, self.batch.unwrap_or(shape.batch))?;
        let (lora_rank, lora_targets) = self.lora(mode)?;
        let selective = self.check_mode_flags(entry, mode)?;
        let data = self.data(entry, shape.resolution)?;
        let precision = self.precision.unwrap_or(shape.precision);
        let int8_base = self.check_quantisation(mode)?;
        let gpus = self.gpus(mode)?;
        let attention = self.attention(entry, precision)?;
        Ok(Job {
            height: data.height,
            dataset: data.dataset,
            num_workers: data.num_workers,
            eval_every_epochs: data.eval_every_epochs,
            val_samples: data.val_samples,
            save_every_epochs: data.save_every_epochs,
            compile: self.compile.unwrap_or(false),
            channels_last: self.channels_last.unwrap_or(false),
            selective_checkpointing: selective,
            optimizer_in_backward: self.optimizer_in_backward.unwrap_or(false),
            activation_offload: self.activation_offload.unwrap_or(false),
            qlora_upcast: self.qlora_upcast.unwrap_or(true),
            base_fp32: self.base_fp32.unwrap_or(false),
            tf32: self.tf32.unwrap_or(false),
            attention,
            keep_grads: self.keep_grads.unwrap_or(false),
            ema: self.ema.unwrap_or(false),
            chunked_loss: self.chunked_loss.unwrap_or(false),
            int8_base,
            double_quant: self.double_quant.unwrap_or(true),
            gpus,
            engine: self.engine.unwrap_or(crate::vocab::Engine::Ddp),
            offload: self.offload.unwrap_or(false),
            pcie_gbps: self.pcie_gbps(gpus)?,
            batch,
            resolution: shape.resolution,
            seq_len: shape.seq_len,
            classes: shape.classes,
            precision,
            optimizer: self.optimizer.unwrap_or(shape.optimizer),
            mode,
            lora_rank,
            lora_targets,
            // PEFT's `prepare_model_for_kbit_training` turns gradient
            // checkpointing on for QLoRA unless told not to.
            grad_checkpointing: self
                .grad_checkpointing
                .unwrap_or(mode == Mode::Qlora || self.load_in_8bit == Some(true)),
            dataset_samples: data.dataset_samples,
            epochs: data.epochs,
        })
    }

    /// A vision model's image size and classes, and its defaults.
    fn vision_shape(
        &self,
        entry: &ZooEntry,
        v: &crate::zoo::VisionModel,
        mode: Mode,
    ) -> Result<Shape, InputError> {
        if self.seq_len.is_some() {
            return Err(InputError::new(
                "seq_len",
                format!(
                    "`{}` is a vision model and takes no sequence length",
                    entry.id
                ),
                "omit it; use --resolution",
            )
            .said(
                Message::new("error.visionNoSeqLen").with("model", entry.model.name()),
                Some(Message::new("allowed.useResolution")),
            ));
        }
        if matches!(mode, Mode::Lora | Mode::Qlora) {
            return Err(InputError::new(
                "mode",
                format!(
                    "LoRA is modelled for language models, not for vision models such as `{}`",
                    entry.id
                ),
                "train or infer for vision models",
            )
            .said(
                Message::new("error.loraNeedsTransformer").with("model", entry.model.name()),
                Some(Message::new("allowed.visionModes")),
            ));
        }
        let res = whole(
            limits::RESOLUTION,
            self.resolution.unwrap_or(f64::from(v.ref_resolution)),
        )?;
        let classes = whole(
            limits::CLASSES,
            self.classes.unwrap_or(f64::from(v.default_classes)),
        )?;
        Ok(Shape {
            resolution: res,
            seq_len: 0,
            classes,
            batch: 32.0,
            precision: Precision::Fp32,
            optimizer: Optimizer::Sgd,
        })
    }

    /// A transformer's sequence length and classes, and its defaults.
    fn transformer_shape(
        &self,
        entry: &ZooEntry,
        t: &crate::zoo::TransformerModel,
        mode: Mode,
    ) -> Result<Shape, InputError> {
        if self.resolution.is_some() {
            return Err(InputError::new(
                "resolution",
                format!(
                    "`{}` is a transformer and takes no image resolution",
                    entry.id
                ),
                "omit it; use --seq-len",
            )
            .said(
                Message::new("error.transformerNoResolution").with("model", entry.model.name()),
                Some(Message::new("allowed.useSeqLen")),
            ));
        }
        let default_seq = f64::from(t.max_positions.min(512));
        let seq = whole(
            FieldLimit {
                max: f64::from(t.max_positions.min(limits::MAX_SEQ_LEN)),
                ..limits::SEQ_LEN
            },
            self.seq_len.unwrap_or(default_seq),
        )
        .map_err(|e| InputError {
            // The limit that applies, said as it is: the model's
            // positions, or gpuplan's own ceiling above them.
            message: if t.max_positions <= limits::MAX_SEQ_LEN {
                format!(
                    "{} (`{}` accepts at most {} positions)",
                    e.message, entry.id, t.max_positions
                )
            } else {
                format!(
                    "{} (gpuplan plans sequences of at most {} tokens)",
                    e.message,
                    limits::MAX_SEQ_LEN
                )
            },
            ..e
        })?;
        let classes = whole(limits::CLASSES, self.classes.unwrap_or(2.0))?;
        let precision = if matches!(mode, Mode::Lora | Mode::Qlora | Mode::Infer) {
            Precision::Bf16
        } else {
            Precision::Bf16Amp
        };
        Ok(Shape {
            resolution: 0,
            seq_len: seq,
            classes,
            batch: 8.0,
            precision,
            optimizer: Optimizer::Adamw,
        })
    }

    /// LoRA's rank and targets (none outside LoRA and QLoRA).
    fn lora(&self, mode: Mode) -> Result<(u32, Vec<LoraTarget>), InputError> {
        let lora = matches!(mode, Mode::Lora | Mode::Qlora);
        let lora_rank = match (lora, self.lora_rank) {
            (true, r) => whole(limits::LORA_RANK, r.unwrap_or(16.0))?,
            (false, Some(_)) => {
                return Err(InputError::new(
                    "lora_rank",
                    "only applies to --mode lora or qlora",
                    "omit it, or set --mode lora",
                )
                .said(
                    Message::new("error.onlyForLora"),
                    Some(Message::new("allowed.omitOrLora")),
                ))
            }
            (false, None) => 0,
        };
        let lora_targets = match (lora, &self.lora_targets) {
            (true, t) => t
                .clone()
                .unwrap_or_else(|| vec![LoraTarget::Q, LoraTarget::V]),
            (false, Some(_)) => {
                return Err(InputError::new(
                    "lora_targets",
                    "only applies to --mode lora or qlora",
                    "omit it, or set --mode lora",
                )
                .said(
                    Message::new("error.onlyForLora"),
                    Some(Message::new("allowed.omitOrLora")),
                ))
            }
            (false, None) => Vec::new(),
        };
        Ok((lora_rank, lora_targets))
    }

    /// Settings that only some modes and models take; whether selective
    /// checkpointing is on.
    fn check_mode_flags(&self, entry: &ZooEntry, mode: Mode) -> Result<bool, InputError> {
        let selective = self.selective_checkpointing == Some(true);
        if selective && (mode == Mode::Infer || matches!(entry.model, Model::Vision(_))) {
            return Err(InputError::new(
                "selective_checkpointing",
                "recomputes parts of transformer blocks in the backward pass",
                "a transformer model, trained",
            )
            .said(
                Message::new("error.selectiveNeedsTransformer"),
                Some(Message::new("allowed.transformerTrained")),
            ));
        }
        if self.optimizer_in_backward == Some(true) && mode != Mode::Train {
            return Err(InputError::new(
                "optimizer_in_backward",
                "steps every parameter in backward; LoRA's adapters and inference have nothing to gain",
                "omit it, or --mode train",
            ).said(Message::new("error.optimizerInBackward"), Some(Message::new("allowed.omitOrTrain"))));
        }
        if self.activation_offload == Some(true) && mode == Mode::Infer {
            return Err(InputError::new(
                "activation_offload",
                "offloads what backward needs, which inference does not run",
                "omit it, or train",
            )
            .said(
                Message::new("error.offloadNeedsTraining"),
                Some(Message::new("allowed.omitOrTrain")),
            ));
        }
        if self.base_fp32 == Some(true) && !matches!(mode, Mode::Lora) {
            return Err(InputError::new(
                "base_fp32",
                "describes a LoRA base loaded in FP32",
                "omit it, or --mode lora",
            )
            .said(
                Message::new("error.baseFp32NeedsLora"),
                Some(Message::new("allowed.omitOrLora")),
            ));
        }
        if mode == Mode::Infer && self.grad_checkpointing == Some(true) {
            return Err(InputError::new(
                "grad_checkpointing",
                "saves memory in the backward pass, which inference does not run",
                "omit it, or train",
            )
            .said(
                Message::new("error.checkpointingNeedsTraining"),
                Some(Message::new("allowed.omitOrTrain")),
            ));
        }
        Ok(selective)
    }

    /// The data, its epochs, evaluation and checkpoints.
    fn data(&self, entry: &ZooEntry, resolution: u32) -> Result<Data, InputError> {
        let dataset_samples = match self.dataset_samples {
            Some(n) => Some(u64::from(whole(limits::DATASET_SAMPLES, n)?)),
            None => None,
        };
        let epochs = match self.epochs {
            Some(e) if !limits::EPOCHS.allows(e) => {
                return Err(InputError::out_of_range(
                    "epochs",
                    e,
                    limits::EPOCHS.allowed(),
                ))
            }
            e => e,
        };
        let height = match (self.image_height, resolution) {
            (_, 0) => {
                if self.image_height.is_some() {
                    return Err(InputError::new(
                        "image_height",
                        format!("`{}` is a transformer and takes no image size", entry.id),
                        "omit it",
                    )
                    .said(
                        Message::new("error.transformerNoResolution")
                            .with("model", entry.model.name()),
                        Some(Message::new("allowed.omitIt")),
                    ));
                }
                0
            }
            (Some(h), _) => whole(limits::IMAGE_HEIGHT, h)?,
            (None, r) => r,
        };
        let dataset = match self.dataset {
            // Images and text each have their own formats; packed arrays
            // serve both.
            Some(DatasetKind::Text) if resolution > 0 => {
                return Err(InputError::new(
                    "dataset",
                    format!(
                        "`{}` is a vision model; its data is not tokenised text",
                        entry.id
                    ),
                    "in-memory, jpeg-folder or packed",
                )
                .said(
                    Message::new("error.visionNoText").with("model", entry.model.name()),
                    Some(Message::new("allowed.visionData")),
                ))
            }
            Some(DatasetKind::InMemory | DatasetKind::JpegFolder) if resolution == 0 => {
                return Err(InputError::new(
                    "dataset",
                    format!("`{}` is a transformer; its data is text", entry.id),
                    "text or packed",
                )
                .said(
                    Message::new("error.transformerText").with("model", entry.model.name()),
                    Some(Message::new("allowed.textData")),
                ))
            }
            Some(d) => d,
            None if resolution == 0 => DatasetKind::Text,
            None if resolution.max(height) <= IN_MEMORY_MAX_SIDE => DatasetKind::InMemory,
            None => DatasetKind::JpegFolder,
        };
        let num_workers = match self.num_workers {
            Some(n) => whole(limits::NUM_WORKERS, n)?,
            None => DEFAULT_NUM_WORKERS,
        };
        let epochs_like = |limit: FieldLimit, v: Option<f64>, default: f64| match v {
            None => Ok(default),
            Some(e) if limit.allows(e) => Ok(e),
            Some(e) => Err(InputError::out_of_range(limit.field, e, limit.allowed())),
        };
        let eval_every_epochs = epochs_like(limits::EVAL_EVERY, self.eval_every_epochs, 1.0)?;
        let save_every_epochs = epochs_like(limits::SAVE_EVERY, self.save_every_epochs, 1.0)?;
        let val_samples = match self.val_samples {
            Some(n) => u64::from(whole(limits::VAL_SAMPLES, n)?),
            None => dataset_samples
                .map(|n| ((n as f64 * DEFAULT_VAL_SHARE).round() as u64).min(DEFAULT_VAL_MAX))
                .unwrap_or(0),
        };
        Ok(Data {
            dataset_samples,
            epochs,
            height,
            dataset,
            num_workers,
            eval_every_epochs,
            save_every_epochs,
            val_samples,
        })
    }

    /// An 8-bit or 4-bit base only in its mode; whether the base is 8-bit.
    fn check_quantisation(&self, mode: Mode) -> Result<bool, InputError> {
        let int8_base = self.load_in_8bit.unwrap_or(false);
        if int8_base && mode != Mode::Lora {
            return Err(InputError::new(
                "load_in_8bit",
                "an 8-bit base is for LoRA (QLoRA's base is 4-bit)",
                "omit it, or set --mode lora",
            )
            .said(
                Message::new("error.int8NeedsLora"),
                Some(Message::new("allowed.omitOrLora")),
            ));
        }
        if self.double_quant.is_some() && mode != Mode::Qlora {
            return Err(InputError::new(
                "double_quant",
                "double quantisation is a QLoRA (NF4) setting",
                "omit it, or set --mode qlora",
            )
            .said(
                Message::new("error.doubleQuantNeedsQlora"),
                Some(Message::new("allowed.omitOrQlora")),
            ));
        }
        Ok(int8_base)
    }

    /// The GPU count, with an engine and offload only where they apply.
    fn gpus(&self, mode: Mode) -> Result<u32, InputError> {
        let gpus = match self.gpus {
            Some(g) => whole_gpus(g)?,
            None => 1,
        };
        if gpus > 1 && mode == Mode::Infer {
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
        if gpus == 1 && (self.engine.is_some() || self.offload == Some(true)) {
            return Err(InputError::new(
                "engine",
                "an engine and offload apply to several GPUs",
                "omit them, or give gpus of 2 or more",
            )
            .said(
                Message::new("error.engineNeedsGpus"),
                Some(Message::new("allowed.severalGpus")),
            ));
        }
        if self.offload == Some(true)
            && matches!(
                self.engine,
                None | Some(crate::vocab::Engine::Ddp | crate::vocab::Engine::Zero1)
            )
        {
            return Err(InputError::new(
                "offload",
                "CPU offload needs ZeRO-2, ZeRO-3 or FSDP",
                "engine zero2, zero3, fsdp or fsdp-grad-op",
            )
            .said(
                Message::new("error.offloadEngine"),
                Some(Message::new("allowed.offloadEngines")),
            ));
        }
        Ok(gpus)
    }

    /// The board's PCIe link, in range and only for several GPUs.
    fn pcie_gbps(&self, gpus: u32) -> Result<Option<f64>, InputError> {
        let Some(v) = self.pcie_gbps else {
            return Ok(None);
        };
        let limit = limits::PCIE_GBPS;
        if v.is_nan() {
            return Err(InputError::not_a_number(
                limit.field,
                "NaN",
                limit.allowed(),
            ));
        }
        if !limit.allows(v) {
            return Err(InputError::out_of_range(limit.field, v, limit.allowed()));
        }
        if gpus <= 1 {
            return Err(InputError::new(
                limit.field,
                "a PCIe link between GPUs applies to several GPUs",
                "omit it, or give gpus of 2 or more",
            )
            .said(
                Message::new("error.pcieOneGpu"),
                Some(Message::new("allowed.severalGpus")),
            ));
        }
        Ok(Some(v))
    }

    /// The attention kernel: the model's own unless one is asked for.
    fn attention(
        &self,
        entry: &ZooEntry,
        precision: Precision,
    ) -> Result<AttentionImpl, InputError> {
        let kernels = entry.model.attention_kernels();
        Ok(match (&entry.model, self.attention) {
            // A CNN has no attention to choose.
            (Model::Vision(_), Some(_)) if kernels.is_empty() => {
                return Err(InputError::new(
                    "attention",
                    format!("`{}` is a CNN and has no attention layers", entry.id),
                    "omit it (vision transformers and transformers take it)",
                )
                .said(
                    Message::new("error.attentionNoLayers").with("model", entry.model.name()),
                    Some(Message::new("allowed.omitAttention")),
                ))
            }
            (Model::Vision(_), Some(a)) if !kernels.contains(&a) => {
                return Err(InputError::new(
                    "attention",
                    format!("`{}` is a vision transformer: eager or sdpa", entry.id),
                    "eager or sdpa",
                )
                .said(
                    Message::new("error.visionAttention").with("model", entry.model.name()),
                    Some(Message::new("allowed.visionAttention")),
                ))
            }
            (_, Some(AttentionImpl::Flash)) if !precision.is_half() => {
                return Err(InputError::new(
                    "attention",
                    "flash-attention runs in fp16 or bf16 only",
                    "eager or sdpa, or a 16-bit precision",
                )
                .said(
                    Message::new("error.flashNeedsHalf"),
                    Some(Message::new("allowed.flashNeedsHalf")),
                ))
            }
            (_, Some(a)) => a,
            (Model::Transformer(t), None) => t.attention,
            // Vision transformers default to SDPA: what torchvision's ViT
            // and timm (fused attention, 0.9 and newer) run.
            (Model::Vision(_), None) => AttentionImpl::Sdpa,
        })
    }
}

/// A model's shape in a job, and the defaults that come with its kind.
struct Shape {
    resolution: u32,
    seq_len: u32,
    classes: u32,
    batch: f64,
    precision: Precision,
    optimizer: Optimizer,
}

/// A job's data and its rhythm of evaluation and checkpoints.
struct Data {
    dataset_samples: Option<u64>,
    epochs: Option<f64>,
    height: u32,
    dataset: DatasetKind,
    num_workers: u32,
    eval_every_epochs: f64,
    save_every_epochs: f64,
    val_samples: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lora_targets_parse() {
        // (input, expected, why)
        let cases: [(&str, Option<Vec<LoraTarget>>, &str); 5] = [
            (
                "q,v",
                Some(vec![LoraTarget::Q, LoraTarget::V]),
                "the default pair",
            ),
            (
                "v, q_proj ,q",
                Some(vec![LoraTarget::Q, LoraTarget::V]),
                "PEFT names, spaces and repeats",
            ),
            (
                "all",
                Some(vec![
                    LoraTarget::Q,
                    LoraTarget::K,
                    LoraTarget::V,
                    LoraTarget::O,
                    LoraTarget::Gate,
                    LoraTarget::Up,
                    LoraTarget::Down,
                ]),
                "every projection",
            ),
            ("q,x", None, "unknown target"),
            (" , ", None, "nothing given"),
        ];
        for (input, want, why) in cases {
            assert_eq!(LoraTarget::parse_list(input).ok(), want, "{why}");
        }
    }

    #[test]
    fn enum_spellings_round_trip() {
        for p in Precision::ALL {
            assert_eq!(
                Precision::parse(p).map(|x| x.to_string()).as_deref(),
                Ok(p),
                "precision `{p}` parses and prints the same"
            );
        }
        for o in Optimizer::ALL {
            assert_eq!(
                Optimizer::parse(o).map(|x| x.to_string()).as_deref(),
                Ok(o),
                "optimizer `{o}` parses and prints the same"
            );
            // Plan files and IPC use serde's spelling: it must be the CLI's.
            let json = Optimizer::parse(o).map(|x| serde_json::to_value(x).ok());
            assert_eq!(
                json,
                Ok(Some(serde_json::Value::String(o.to_owned()))),
                "optimizer `{o}` is spelled the same in files and JSON"
            );
        }
        for p in Precision::VALUES {
            assert_eq!(
                serde_json::to_value(p).ok(),
                Some(serde_json::Value::String(p.to_string())),
                "precision {p} is spelled the same in files and on the command line"
            );
        }
        for m in Mode::VALUES {
            assert_eq!(
                serde_json::to_value(m).ok(),
                Some(serde_json::Value::String(m.to_string())),
                "mode {m} is spelled the same in files and on the command line"
            );
        }
        for m in Mode::ALL {
            assert_eq!(
                Mode::parse(m).map(|x| x.to_string()).as_deref(),
                Ok(m),
                "mode `{m}` parses and prints the same"
            );
        }
        assert_eq!(
            Precision::parse("fp8").map_err(|e| e.field),
            Err("precision".to_owned()),
            "unknown values name their field"
        );
    }
}
