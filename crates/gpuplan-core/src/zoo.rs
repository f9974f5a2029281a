//! The model zoo: the structure of each architecture the estimators need.
//!
//! Two kinds of entry. Vision models (CNNs, ViTs, Swin) are described by facts
//! traced from the real PyTorch model (`tools/zoo-gen/trace_vision.py`): the
//! bytes autograd saves per sample, how they scale with resolution, forward
//! FLOPs. Transformers are described by their config numbers, from which the
//! estimators derive parameters, activations, KV cache and FLOPs analytically;
//! that also covers custom models and pasted Hugging Face `config.json` files.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::error::{DataError, InputError, Refusal};
use crate::message::Message;
use crate::sourced::{valid_observed, Confidence};

/// What a vision model predicts, which sets the shape of its output and loss.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum VisionTask {
    /// One label per image.
    Classification,
    /// One label per pixel.
    Segmentation,
}

/// A vision model's traced facts (per sample, at `ref_resolution`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VisionModel {
    /// Display name.
    pub name: String,
    /// Always `vision`; kept so a file states what it holds.
    pub family: String,
    /// Classification or segmentation.
    pub task: VisionTask,
    /// The PyTorch constructor traced.
    pub architecture: String,
    /// Parameters that do not depend on the number of classes.
    pub params_fixed: u64,
    /// Parameters added per output class (the head).
    pub params_per_class: u64,
    /// Classes used when the job does not say.
    pub default_classes: u32,
    /// Resolution (pixels per side) of the traced figures.
    pub ref_resolution: u32,
    /// Bytes saved for backward per sample in FP32 at `ref_resolution`.
    pub saved_bytes_per_sample: f64,
    /// Exponent `p` in saved bytes ~ resolution^p, fitted between two traced resolutions.
    pub saved_resolution_exponent: f64,
    /// The largest single saved tensor per sample, bytes (drives allocator fragmentation).
    pub largest_saved_bytes_per_sample: f64,
    /// Saved bytes under 16-bit autocast divided by FP32 saved bytes.
    pub amp_saved_ratio: f64,
    /// Forward FLOPs per sample at `ref_resolution`.
    pub forward_flops_per_sample: f64,
    /// Share of forward FLOPs in convolutions (the rest is matmuls).
    pub conv_flop_fraction: f64,
    /// Share of the convolution FLOPs in dense 3x3 stride-1 undilated
    /// convolutions, which cuDNN runs as Winograd transforms on CUDA cores
    /// (traced: `tools/zoo-gen/trace_vision.py`).
    pub winograd_flop_fraction: f64,
    /// ATen ops dispatched in one forward pass (a proxy for kernel launches).
    pub forward_ops: u32,
    /// Where the figures come from.
    pub source: String,
    /// When they were produced.
    pub observed: String,
    /// How far to trust them.
    pub confidence: Confidence,
    /// A vision transformer's attention (none for CNNs): what eager
    /// attention's score matrices follow.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attention: Option<VisionAttention>,
}

/// A vision transformer's attention, from its constructor's arguments
/// (torchvision's and timm's configs), not fitted: the tokens each
/// attention layer sees and its heads, stage by stage.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VisionAttention {
    /// The kernel the traced library ran, so its tensors are already in
    /// the traced saved bytes: torchvision's ViT goes through
    /// `nn.MultiheadAttention(need_weights=False)` and so SDPA; its Swin
    /// computes `softmax(q @ k^T)` itself (eager).
    pub traced: AttentionImpl,
    /// Pixels per token side at the first stage (ViT's patch, Swin's patch
    /// embedding stride).
    pub patch: u32,
    /// Tokens added to the patches (ViT's class token).
    pub extra_tokens: u32,
    /// Side of the attention window in tokens (Swin: 7); 0: every layer
    /// attends over the whole image.
    pub window: u32,
    /// Attention layers per stage (one stage for ViT; each later stage
    /// halves the token grid's side, rounding up as patch merging pads).
    pub depths: Vec<u32>,
    /// Attention heads per stage.
    pub heads: Vec<u32>,
    /// Attention dropout on (eager keeps its mask); off in every zoo
    /// model's default config.
    pub dropout: bool,
}

impl VisionAttention {
    /// Attention-score elements of one sample (`B·H·N²` with `B` = 1, `N`
    /// the tokens of one window, times the windows), summed over every
    /// attention layer, and the largest single layer's, for an image of
    /// `width` x `height` pixels.
    pub fn score_elements(&self, width: u32, height: u32) -> (f64, f64) {
        let patches = |side: u32| side.checked_div(self.patch).unwrap_or(0);
        let mut grid = (patches(width), patches(height));
        let (mut total, mut largest) = (0.0_f64, 0.0_f64);
        for (stage, (&depth, &heads)) in self.depths.iter().zip(&self.heads).enumerate() {
            if stage > 0 {
                grid = (grid.0.div_ceil(2), grid.1.div_ceil(2));
            }
            let (windows, tokens) = if self.window == 0 {
                let n = f64::from(grid.0) * f64::from(grid.1) + f64::from(self.extra_tokens);
                (1.0, n)
            } else {
                // torchvision pads the grid to whole windows.
                let w = self.window;
                let count = f64::from(grid.0.div_ceil(w)) * f64::from(grid.1.div_ceil(w));
                (count, f64::from(w) * f64::from(w))
            };
            let layer = windows * f64::from(heads) * tokens * tokens;
            total += layer * f64::from(depth);
            largest = largest.max(layer);
        }
        (total, largest)
    }

    /// [`VisionAttention::score_elements`] summed over every layer as a
    /// smooth function of the image side: patches and windows counted as
    /// fractions, no padding. This is how the trace's resolution exponent
    /// scales what the traced kernel kept, so it is what is taken back out
    /// when the job's kernel keeps less; the padded count's steps (a
    /// window more at 508 px than at 506) would make a larger image need
    /// less memory.
    pub fn smooth_score_elements(&self, width: u32, height: u32) -> f64 {
        let patch = f64::from(self.patch.max(1));
        let mut grid = (f64::from(width) / patch, f64::from(height) / patch);
        let mut total = 0.0_f64;
        for (stage, (&depth, &heads)) in self.depths.iter().zip(&self.heads).enumerate() {
            if stage > 0 {
                grid = (grid.0 / 2.0, grid.1 / 2.0);
            }
            let (windows, tokens) = if self.window == 0 {
                (1.0, grid.0 * grid.1 + f64::from(self.extra_tokens))
            } else {
                let w = f64::from(self.window);
                (grid.0 * grid.1 / (w * w), w * w)
            };
            total += windows * f64::from(heads) * tokens * tokens * f64::from(depth);
        }
        total
    }
}

impl Model {
    /// The attention kernels a job on this model may ask for: every one
    /// for transformers; eager and SDPA for vision transformers
    /// (FlashAttention-2 is a Transformers `attn_implementation`, and
    /// PyTorch's SDPA already runs a fused kernel); none for CNNs.
    pub fn attention_kernels(&self) -> &'static [AttentionImpl] {
        match self {
            Model::Transformer(_) => &AttentionImpl::VALUES,
            Model::Vision(v) if v.attention.is_some() => &VISION_ATTENTION,
            Model::Vision(_) => &[],
        }
    }
}

/// The kernels a vision transformer accepts.
const VISION_ATTENTION: [AttentionImpl; 2] = [AttentionImpl::Eager, AttentionImpl::Sdpa];

impl VisionModel {
    /// Exact parameter count for `classes` outputs.
    pub fn params(&self, classes: u32) -> u64 {
        self.params_per_class
            .saturating_mul(u64::from(classes))
            .saturating_add(self.params_fixed)
    }

    /// Resolution scale factor for per-sample activation bytes.
    pub fn activation_scale(&self, side: f64) -> f64 {
        (side / f64::from(self.ref_resolution)).powf(self.saved_resolution_exponent)
    }

    /// Resolution scale factor for FLOPs (convolutions and token counts grow with area).
    pub fn flop_scale(&self, side: f64) -> f64 {
        (side / f64::from(self.ref_resolution)).powi(2)
    }
}

/// Encoder (BERT-like), decoder (GPT-like) or both (T5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TransformerKind {
    /// Bidirectional encoder with a classification head.
    Encoder,
    /// Causal language model.
    Decoder,
    /// Encoder plus decoder with cross-attention (T5).
    EncoderDecoder,
}

/// Shape of the feed-forward block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MlpKind {
    /// `fc1 -> act -> fc2`.
    Gelu,
    /// Gated: `down(act(gate(x)) * up(x))` (SwiGLU).
    Glu,
}

/// The MLP activation as implemented, which decides what autograd saves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Activation {
    /// Fused GELU: saves its input.
    Gelu,
    /// GPT-2's Python tanh formula: saves four tensors of the MLP width.
    GeluNew,
    /// SiLU (fused).
    Silu,
    /// ReLU (fused).
    Relu,
}

/// Normalisation layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NormKind {
    /// LayerNorm with weight and bias.
    Layernorm,
    /// RMSNorm as Hugging Face implements it (computed in FP32).
    Rmsnorm,
}

/// Attention implementation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub enum AttentionImpl {
    /// PyTorch SDPA (flash / memory-efficient): no score matrix kept.
    Sdpa,
    /// Explicit softmax(QK^T): the score matrix is kept for backward.
    Eager,
    /// flash-attn 2 (`attn_implementation="flash_attention_2"`): like SDPA's
    /// flash kernel, only q, k, v, the output and a log-sum-exp per row are
    /// kept; 16-bit only.
    Flash,
}

impl AttentionImpl {
    /// Every implementation, for forms and label checks.
    pub const VALUES: [Self; 3] = [Self::Eager, Self::Sdpa, Self::Flash];

    /// Parses `eager`, `sdpa` or `flash` (also `flash_attention_2`).
    pub fn parse(s: &str) -> Result<Self, InputError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "eager" => Ok(Self::Eager),
            "sdpa" => Ok(Self::Sdpa),
            "flash" | "flash-attention-2" | "flash_attention_2" | "fa2" => Ok(Self::Flash),
            other => Err(InputError::unknown_choice(
                "attention",
                "attention",
                other,
                "eager, sdpa or flash",
            )),
        }
    }
}

/// Position encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Positions {
    /// Learned absolute position embeddings.
    Learned,
    /// Rotary embeddings.
    Rope,
    /// T5 relative position buckets.
    Relative,
    /// ALiBi (BLOOM): a bias on the scores, no parameters.
    Alibi,
}

/// A transformer's architecture numbers (from its `config.json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TransformerModel {
    /// Display name.
    pub name: String,
    /// The Hugging Face class these numbers build.
    pub hf_class: String,
    /// Encoder, decoder or both.
    pub kind: TransformerKind,
    /// Transformer blocks (per stack for encoder-decoder).
    pub layers: u32,
    /// Hidden size.
    pub hidden: u32,
    /// Attention heads.
    pub heads: u32,
    /// Key/value heads (fewer than `heads` under GQA/MQA).
    pub kv_heads: u32,
    /// MLP width.
    pub intermediate: u32,
    /// MLP shape.
    pub mlp: MlpKind,
    /// MLP activation.
    pub activation: Activation,
    /// Normalisation.
    pub norm: NormKind,
    /// Attention implementation.
    pub attention: AttentionImpl,
    /// Position encoding.
    pub positions: Positions,
    /// Vocabulary size.
    pub vocab: u32,
    /// Longest sequence the model accepts.
    pub max_positions: u32,
    /// Token-type vocabulary (BERT segment ids); 0 when absent.
    pub type_vocab: u32,
    /// Whether the LM head shares the input embedding matrix.
    pub tied_embeddings: bool,
    /// Whether q/k/v projections have biases.
    pub qkv_bias: bool,
    /// Whether dropout is active in training (its masks are saved).
    pub dropout: bool,
    /// Width of one attention head when it is not `hidden / heads` (Gemma's
    /// 256, T5's `d_kv`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub head_dim: Option<u32>,
    /// Normalisations per block when not two: one for parallel blocks
    /// (Falcon-7B, Phi-2), four for Gemma-2's pre and post norms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub norms_per_layer: Option<u32>,
    /// A normalisation right after the embedding (BLOOM).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub embed_norm: bool,
    /// A bias on the LM head (Phi-2).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub lm_head_bias: bool,
    /// Mixture of experts: experts per MoE layer (all are held in memory).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experts: Option<u32>,
    /// Experts each token is routed to (what the FLOPs count).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experts_active: Option<u32>,
    /// One expert's MLP width when it differs from `intermediate` (Qwen-MoE).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expert_intermediate: Option<u32>,
    /// A shared expert every token passes through, and its width (Qwen-MoE).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shared_expert_intermediate: Option<u32>,
    /// Exact parameter count of `hf_class` (checked against [`TransformerModel::params`]).
    #[serde(default)]
    pub params_reference: Option<u64>,
    /// Where the numbers come from.
    pub source: String,
    /// When they were read.
    pub observed: String,
    /// How far to trust them.
    pub confidence: Confidence,
}

impl TransformerModel {
    /// MLP width a token passes through: the active experts' and a shared
    /// expert's in a mixture, else `intermediate`.
    pub fn active_intermediate(&self) -> u64 {
        match self.experts {
            Some(e) => u64::from(self.experts_active.unwrap_or(e).min(e))
                .saturating_mul(u64::from(
                    self.expert_intermediate.unwrap_or(self.intermediate),
                ))
                .saturating_add(u64::from(self.shared_expert_intermediate.unwrap_or(0))),
            None => u64::from(self.intermediate),
        }
    }

    // Parameter counts are sums of products of the architecture's sizes.
    // `validate_transformer` bounds every size (the largest product, a
    // 65,536-wide GLU MLP of 1,048,576 in 1,024 layers, is about 2e14), so
    // saturating arithmetic is exact for every model that loads; it only
    // keeps a hand-built, unvalidated model from panicking.

    /// Width of one attention head.
    pub fn head_dim(&self) -> u64 {
        u64::from(
            self.head_dim
                .unwrap_or_else(|| self.hidden.checked_div(self.heads).unwrap_or(0)),
        )
    }

    /// Width of the key (or value) projection: `kv_heads * head_dim`.
    pub fn kv_width(&self) -> u64 {
        u64::from(self.kv_heads).saturating_mul(self.head_dim())
    }

    fn norm_params(&self) -> u64 {
        match self.norm {
            NormKind::Layernorm => u64::from(self.hidden).saturating_mul(2),
            NormKind::Rmsnorm => u64::from(self.hidden),
        }
    }

    /// Parameters of one self-attention block (q, k, v, o) with its norm.
    fn attention_params(&self) -> u64 {
        let h = u64::from(self.hidden);
        let kv = self.kv_width();
        let inner = u64::from(self.heads).saturating_mul(self.head_dim());
        let qkv_width = inner.saturating_add(kv.saturating_mul(2));
        let qkv = h
            .saturating_mul(qkv_width)
            .saturating_add(if self.qkv_bias { qkv_width } else { 0 });
        // GPT-2 and BERT-style models also bias the output projection; Llama-style
        // models (RMSNorm) and T5 do not, and ChatGLM follows the Llama layout.
        let o_bias = matches!(self.norm, NormKind::Layernorm) && self.qkv_bias;
        qkv.saturating_add(inner.saturating_mul(h))
            .saturating_add(if o_bias { h } else { 0 })
            .saturating_add(self.norm_params())
    }

    /// One dense MLP of width `i` (its matrices and biases).
    fn dense_mlp(&self, i: u64) -> u64 {
        let h = u64::from(self.hidden);
        let bias = matches!(self.norm, NormKind::Layernorm) && self.qkv_bias;
        let matrices: u64 = match self.mlp {
            MlpKind::Gelu => 2,
            MlpKind::Glu => 3,
        };
        matrices
            .saturating_mul(h)
            .saturating_mul(i)
            .saturating_add(if bias { i.saturating_add(h) } else { 0 })
    }

    /// Parameters of one block's MLP (every expert of a mixture, its router
    /// and a shared expert with its gate), with the block's norms beyond the
    /// attention's one. `active_only` counts the experts a token uses.
    fn mlp_params_of(&self, active_only: bool) -> u64 {
        let h = u64::from(self.hidden);
        let mlp = match self.experts {
            Some(e) => {
                let each = self.dense_mlp(u64::from(
                    self.expert_intermediate.unwrap_or(self.intermediate),
                ));
                let used = if active_only {
                    u64::from(self.experts_active.unwrap_or(e).min(e))
                } else {
                    u64::from(e)
                };
                let shared = self
                    .shared_expert_intermediate
                    .map_or(0, |si| self.dense_mlp(u64::from(si)).saturating_add(h));
                each.saturating_mul(used)
                    .saturating_add(h.saturating_mul(u64::from(e)))
                    .saturating_add(shared)
            }
            None => self.dense_mlp(u64::from(self.intermediate)),
        };
        // attention_params counts one norm; the rest of the block's go here.
        let norms = u64::from(self.norms_per_layer.unwrap_or(2)).saturating_sub(1);
        mlp.saturating_add(self.norm_params().saturating_mul(norms))
    }

    fn mlp_params(&self) -> u64 {
        self.mlp_params_of(false)
    }

    /// Parameters of the matrices that take part in matmuls per token (for FLOPs):
    /// every block's projections plus the LM head or classifier, embeddings excluded.
    pub fn matmul_params(&self) -> u64 {
        let h = u64::from(self.hidden);
        let l = u64::from(self.layers);
        // A mixture's token passes through its active experts only.
        let block = self
            .attention_params()
            .saturating_add(self.mlp_params_of(true));
        let stacks = match self.kind {
            TransformerKind::EncoderDecoder => {
                // Decoder blocks add cross-attention.
                l.saturating_mul(2)
                    .saturating_mul(block)
                    .saturating_add(l.saturating_mul(self.attention_params()))
            }
            _ => l.saturating_mul(block),
        };
        let head = match self.kind {
            TransformerKind::Encoder => h.saturating_mul(h),
            _ => u64::from(self.vocab).saturating_mul(h),
        };
        stacks.saturating_add(head)
    }

    /// Exact parameter count, following the Hugging Face implementation of
    /// `hf_class`, with the usual two labels on an encoder's classifier.
    pub fn params(&self) -> u64 {
        self.params_for(2)
    }

    /// Exact parameter count with `labels` outputs on an encoder's
    /// classifier (a decoder's head is its vocabulary, whatever the labels).
    pub fn params_for(&self, labels: u32) -> u64 {
        let labels = u64::from(labels);
        let h = u64::from(self.hidden);
        let v = u64::from(self.vocab);
        let l = u64::from(self.layers);
        let embed = v.saturating_mul(h);
        let block = self.attention_params().saturating_add(self.mlp_params());
        let lm_head = if self.tied_embeddings { 0 } else { embed }
            .saturating_add(if self.lm_head_bias { v } else { 0 });
        let embed = embed.saturating_add(if self.embed_norm {
            self.norm_params()
        } else {
            0
        });
        match self.kind {
            TransformerKind::Encoder => {
                let pos = u64::from(self.max_positions).saturating_add(
                    if self.hf_class.starts_with("Roberta") {
                        2
                    } else {
                        0
                    },
                );
                let embeddings = embed
                    .saturating_add(pos.saturating_mul(h))
                    .saturating_add(u64::from(self.type_vocab).saturating_mul(h))
                    .saturating_add(h.saturating_mul(2));
                // Heads: BERT has a pooler (h*h + h) and a classifier (h*labels
                // + labels); RoBERTa and DistilBERT a dense layer (h*h + h) and
                // a projection to the labels.
                let head = h
                    .saturating_mul(h)
                    .saturating_add(h)
                    .saturating_add(h.saturating_add(1).saturating_mul(labels));
                embeddings
                    .saturating_add(l.saturating_mul(block))
                    .saturating_add(head)
            }
            TransformerKind::Decoder => {
                let pos = if self.positions == Positions::Learned {
                    u64::from(self.max_positions).saturating_mul(h)
                } else {
                    0
                };
                embed
                    .saturating_add(pos)
                    .saturating_add(l.saturating_mul(block))
                    .saturating_add(self.norm_params())
                    .saturating_add(lm_head)
            }
            TransformerKind::EncoderDecoder => {
                // T5: shared embedding, relative-position tables in the first block
                // of each stack (32 buckets x heads), a final norm per stack, and the
                // decoder blocks' cross-attention.
                let rel = u64::from(self.heads).saturating_mul(64);
                embed
                    .saturating_add(l.saturating_mul(2).saturating_mul(block))
                    .saturating_add(l.saturating_mul(self.attention_params()))
                    .saturating_add(rel)
                    .saturating_add(self.norm_params().saturating_mul(2))
                    .saturating_add(lm_head)
            }
        }
    }
}

/// A zoo entry.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "family", rename_all = "lowercase")]
pub enum Model {
    /// Traced vision model.
    Vision(VisionModel),
    /// Transformer described by its config.
    Transformer(TransformerModel),
}

impl Model {
    /// Display name.
    pub fn name(&self) -> &str {
        match self {
            Model::Vision(v) => &v.name,
            Model::Transformer(t) => &t.name,
        }
    }

    /// The family measured runs are pooled by (calibration) and the app
    /// shows.
    pub fn family(&self) -> ModelFamily {
        match self {
            Model::Vision(_) => ModelFamily::Vision,
            Model::Transformer(t) => match t.kind {
                TransformerKind::Encoder => ModelFamily::Encoder,
                TransformerKind::Decoder => ModelFamily::Decoder,
                TransformerKind::EncoderDecoder => ModelFamily::EncoderDecoder,
            },
        }
    }
}

/// A model's family: what measured runs are pooled by, worded as
/// `enum.family.*` (kebab-case in JSON and keys).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub enum ModelFamily {
    /// CNNs and vision transformers.
    Vision,
    /// Encoder-only transformers (BERT).
    Encoder,
    /// Decoder-only transformers (GPT, Llama).
    Decoder,
    /// Encoder-decoder transformers (T5).
    EncoderDecoder,
}

impl ModelFamily {
    /// Every family.
    pub const ALL: [Self; 4] = [
        Self::Vision,
        Self::Encoder,
        Self::Decoder,
        Self::EncoderDecoder,
    ];

    /// The family as spelled in JSON and catalog keys.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Vision => "vision",
            Self::Encoder => "encoder",
            Self::Decoder => "decoder",
            Self::EncoderDecoder => "encoder-decoder",
        }
    }
}

impl std::fmt::Display for ModelFamily {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A named zoo entry.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ZooEntry {
    /// Lowercase id (`resnet50`, `llama-2-7b`).
    pub id: String,
    /// The model.
    pub model: Model,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct VisionFile {
    model: BTreeMap<String, VisionModel>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TransformerFile {
    model: BTreeMap<String, TransformerModel>,
}

/// All models, sorted by id.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelZoo {
    entries: Vec<ZooEntry>,
}

impl ModelZoo {
    /// Parses the vision and transformer files (`(name, text)` pairs) and validates them.
    pub fn from_toml(vision: (&str, &str), transformers: (&str, &str)) -> Result<Self, DataError> {
        let (vf, vt) = vision;
        let (tf, tt) = transformers;
        let v: VisionFile = toml::from_str(vt).map_err(|e| DataError::from_toml(vf, vt, &e))?;
        let t: TransformerFile =
            toml::from_str(tt).map_err(|e| DataError::from_toml(tf, tt, &e))?;
        let mut entries = Vec::new();
        for (id, m) in v.model {
            validate_vision(vf, vt, &id, &m)?;
            entries.push(ZooEntry {
                id,
                model: Model::Vision(m),
            });
        }
        for (id, m) in t.model {
            let table = format!("model.{id}");
            validate_transformer(&m).map_err(|r| {
                DataError::refused(
                    tf,
                    tt,
                    Refusal {
                        table: table.clone(),
                        ..r
                    },
                )
            })?;
            if !valid_observed(&m.observed) {
                return Err(DataError::invalid(
                    tf,
                    tt,
                    &table,
                    "observed",
                    "not YYYY-MM or YYYY-MM-DD",
                ));
            }
            if entries.iter().any(|e: &ZooEntry| e.id == id) {
                return Err(DataError::invalid(
                    tf,
                    tt,
                    &table,
                    "",
                    "id already used by a vision model",
                ));
            }
            entries.push(ZooEntry {
                id,
                model: Model::Transformer(m),
            });
        }
        entries.sort_by(|a, b| a.id.cmp(&b.id));
        Ok(Self { entries })
    }

    /// All entries.
    pub fn entries(&self) -> &[ZooEntry] {
        &self.entries
    }

    /// Finds a model by id (case-insensitive); the error lists the ids.
    pub fn get(&self, id: &str) -> Result<&ZooEntry, InputError> {
        let want = id.trim().to_ascii_lowercase();
        self.entries.iter().find(|e| e.id == want).ok_or_else(|| {
            InputError::unknown(
                "model",
                "model id",
                id,
                self.entries.iter().map(|e| e.id.as_str()),
                "gpuplan models",
            )
        })
    }
}

fn validate_vision(file: &str, text: &str, id: &str, m: &VisionModel) -> Result<(), DataError> {
    let table = format!("model.{id}");
    let bad = |key: &str, msg: String| Err(DataError::invalid(file, text, &table, key, msg));
    let positive: [(&str, f64); 4] = [
        ("saved_bytes_per_sample", m.saved_bytes_per_sample),
        (
            "largest_saved_bytes_per_sample",
            m.largest_saved_bytes_per_sample,
        ),
        ("forward_flops_per_sample", m.forward_flops_per_sample),
        ("params_fixed", m.params_fixed as f64),
    ];
    for (key, v) in positive {
        if !(v.is_finite() && v > 0.0) {
            return bad(key, format!("must be a positive number, got {v}"));
        }
    }
    if !(1.0..=3.0).contains(&m.saved_resolution_exponent) {
        return bad(
            "saved_resolution_exponent",
            format!("{} is outside 1 to 3", m.saved_resolution_exponent),
        );
    }
    if !(0.3..=1.0).contains(&m.amp_saved_ratio) {
        return bad(
            "amp_saved_ratio",
            format!("{} is outside 0.3 to 1", m.amp_saved_ratio),
        );
    }
    if !(0.0..=1.0).contains(&m.conv_flop_fraction) {
        return bad(
            "conv_flop_fraction",
            format!("{} is outside 0 to 1", m.conv_flop_fraction),
        );
    }
    if !(0.0..=1.0).contains(&m.winograd_flop_fraction) {
        return bad(
            "winograd_flop_fraction",
            format!("{} is outside 0 to 1", m.winograd_flop_fraction),
        );
    }
    if m.family != "vision" {
        return bad("family", format!("expected `vision`, got `{}`", m.family));
    }
    if !(16..=4096).contains(&m.ref_resolution) {
        return bad(
            "ref_resolution",
            format!("{} is outside 16 to 4096", m.ref_resolution),
        );
    }
    if m.default_classes == 0 {
        return bad("default_classes", "must be at least 1".into());
    }
    if !valid_observed(&m.observed) {
        return bad("observed", "not YYYY-MM or YYYY-MM-DD".into());
    }
    match &m.attention {
        Some(a) => validate_vision_attention(a).map_err(|(key, msg)| {
            DataError::invalid(file, text, &table, "attention", format!("{key}: {msg}"))
        }),
        None => Ok(()),
    }
}

/// A vision transformer's attention description: stages with heads, a
/// patch and window a real model could have, traced with eager or SDPA.
fn validate_vision_attention(a: &VisionAttention) -> Result<(), (&'static str, String)> {
    if a.depths.is_empty() || a.depths.len() != a.heads.len() || a.depths.len() > 8 {
        return Err((
            "depths",
            "one to eight stages, as many as `heads`".to_owned(),
        ));
    }
    let ranges: [(&'static str, u32, u32, u32); 2] =
        [("patch", a.patch, 1, 64), ("window", a.window, 0, 64)];
    for (key, v, lo, hi) in ranges {
        if !(lo..=hi).contains(&v) {
            return Err((key, format!("{v} is outside {lo} to {hi}")));
        }
    }
    if a.extra_tokens > 16 {
        return Err(("extra_tokens", format!("{} is above 16", a.extra_tokens)));
    }
    for (key, list) in [("depths", &a.depths), ("heads", &a.heads)] {
        if list.iter().any(|&n| !(1..=256).contains(&n)) {
            return Err((key, "each must be 1 to 256".to_owned()));
        }
    }
    if a.traced == AttentionImpl::Flash {
        return Err((
            "traced",
            "a vision model is traced with eager or sdpa".to_owned(),
        ));
    }
    Ok(())
}

/// Each transformer size's range: (field, lowest, highest).
const SIZE_RANGES: [(&str, u32, u32); 8] = [
    ("layers", 1, 1024),
    ("hidden", 8, 65_536),
    ("heads", 1, 1024),
    ("kv_heads", 1, 1024),
    ("intermediate", 8, 1_048_576),
    ("vocab", 2, 4_194_304),
    ("max_positions", 1, 16_777_216),
    // BERT's token types: 2 in every released config; a few hundred at most.
    ("type_vocab", 0, 1024),
];

/// Range checks shared by bundled data, custom models and imported configs.
/// Returns the offending key and a message.
pub fn validate_transformer(m: &TransformerModel) -> Result<(), Refusal> {
    let values = [
        m.layers,
        m.hidden,
        m.heads,
        m.kv_heads,
        m.intermediate,
        m.vocab,
        m.max_positions,
        m.type_vocab,
    ];
    for ((key, lo, hi), v) in SIZE_RANGES.into_iter().zip(values) {
        if !(lo..=hi).contains(&v) {
            return Err(Refusal::range("", key, v, lo, hi, false));
        }
    }
    if let Some(e) = m.experts {
        if !(1..=1024).contains(&e) {
            return Err(Refusal::range("", "experts", e, 1, 1024, false));
        }
        if let Some(k) = m.experts_active.filter(|k| *k == 0 || *k > e) {
            return Err(Refusal::range("", "experts_active", k, 1, e, false));
        }
    }
    for (key, v, hi) in [
        ("head_dim", m.head_dim, 1024),
        ("norms_per_layer", m.norms_per_layer, 8),
        ("expert_intermediate", m.expert_intermediate, 1_048_576),
        (
            "shared_expert_intermediate",
            m.shared_expert_intermediate,
            1_048_576,
        ),
    ] {
        if let Some(v) = v {
            if !(1..=hi).contains(&v) {
                return Err(Refusal::range("", key, v, 1, hi, false));
            }
        }
    }
    // An explicit head width decouples heads from the hidden size (Gemma, T5).
    if m.head_dim.is_none() && !m.hidden.is_multiple_of(m.heads) {
        return Err(Refusal::new(
            "",
            "heads",
            format!(
                "hidden size {} is not divisible by {} heads",
                m.hidden, m.heads
            ),
            Message::new("error.headsDivide")
                .with("hidden", m.hidden)
                .with("heads", m.heads),
        ));
    }
    if !m.heads.is_multiple_of(m.kv_heads) {
        return Err(Refusal::new(
            "",
            "kv_heads",
            format!(
                "{} heads are not divisible by {} key/value heads",
                m.heads, m.kv_heads
            ),
            Message::new("error.kvHeadsDivide")
                .with("heads", m.heads)
                .with("kv_heads", m.kv_heads),
        ));
    }
    Ok(())
}

/// The `config.json` key a student reads for each of the estimator's
/// sizes (`heads` is `num_attention_heads`), for errors about a pasted
/// config.
fn config_key(key: &str) -> &str {
    match key {
        "layers" => "num_hidden_layers",
        "hidden" => "hidden_size",
        "heads" => "num_attention_heads",
        "kv_heads" => "num_key_value_heads",
        "intermediate" => "intermediate_size",
        "vocab" => "vocab_size",
        "max_positions" => "max_position_embeddings",
        "type_vocab" => "type_vocab_size",
        "experts" => "num_local_experts",
        "experts_active" => "num_experts_per_tok",
        "expert_intermediate" => "moe_intermediate_size",
        "shared_expert_intermediate" => "shared_expert_intermediate_size",
        other => other,
    }
}

/// The name a config's `_name_or_path` gives: a Hub id (`Qwen/Qwen2-7B`) as
/// it is, a folder it was saved from (`/home/me/models/qwen2`,
/// `C:\\models\\qwen2`, `./qwen2`) by its last part: the model, not where
/// someone kept it.
fn model_name(name_or_path: &str) -> String {
    let local = name_or_path.starts_with(['/', '~', '.', '\\'])
        || name_or_path.contains('\\')
        || name_or_path.get(1..2) == Some(":");
    if !local {
        return name_or_path.to_owned();
    }
    name_or_path
        .split(['/', '\\'])
        .rfind(|p| !p.is_empty() && *p != "." && *p != "..")
        .map_or_else(|| name_or_path.to_owned(), str::to_owned)
}

/// Builds a transformer from a pasted Hugging Face `config.json`: Llama,
/// Mistral, Qwen2, Phi-3 and Gemma(-2) style decoders, Mixtral and Qwen-MoE
/// mixtures of experts, GPT-2, GPT-NeoX, Falcon, Phi-2 and BLOOM, BERT and
/// RoBERTa encoders, T5 and mT5 encoder-decoders; RoPE scaling lengthens the
/// accepted sequence. Unknown keys are ignored because real configs carry
/// dozens of unrelated ones; the keys the estimator needs are required and
/// range-checked, and errors name them. Values past what a field can hold are
/// errors, never truncated. A config without `_name_or_path` is named
/// "custom transformer"; [`from_hf_config_named`] names it otherwise.
pub fn from_hf_config(json: &str) -> Result<TransformerModel, InputError> {
    from_hf_config_named(json, "custom transformer")
}

/// [`from_hf_config`], naming a config without `_name_or_path` `fallback`
/// (the shell's choice: the folder or file it was read from, the same in
/// every language).
pub fn from_hf_config_named(json: &str, fallback: &str) -> Result<TransformerModel, InputError> {
    let allowed = || {
        (
            "a Hugging Face config.json object".to_owned(),
            Message::new("allowed.hfConfig"),
        )
    };
    let v: serde_json::Value =
        serde_json::from_str(json).map_err(|e| InputError::not_json("config", &e, allowed()))?;
    let obj = v.as_object().ok_or_else(|| {
        InputError::new("config", "the JSON is not an object", allowed().0)
            .said(Message::new("error.parse.notJsonObject"), Some(allowed().1))
    })?;
    // serde_json keeps the last of two equal keys; a config saying
    // hidden_size twice is refused rather than read either way.
    if let Ok(TopKeys(keys)) = serde_json::from_str::<TopKeys>(json) {
        let mut seen = std::collections::BTreeSet::new();
        if let Some(k) = keys.into_iter().find(|k| !seen.insert(k.clone())) {
            let k = crate::error::short(&k);
            return Err(
                InputError::new(&k, "the key is written twice", "each key once").said(
                    Message::new("error.duplicateKey"),
                    Some(Message::new("allowed.eachKeyOnce")),
                ),
            );
        }
    }
    let c = HfConfig { obj };
    let model_type = c.text("model_type").to_ascii_lowercase();
    let f = Family::of(&model_type);
    // Read in the order the keys' errors are reported.
    let shape = Shape::read(&c, &f)?;
    let max_positions = max_positions(&c, &f)?;
    // An architecture the estimator does not know (Mamba, RWKV, a typo) is
    // refused by name rather than estimated as a Llama.
    if !KNOWN_MODEL_TYPES.contains(&model_type.as_str()) {
        let shown = crate::error::short(&model_type);
        return Err(InputError::new(
            "model_type",
            format!("{shown} is not an architecture gpuplan estimates"),
            KNOWN_MODEL_TYPES.join(", "),
        )
        .said(
            Message::new("error.modelType").with("value", shown),
            Some(Message::new("error.oneOf").with("list", KNOWN_MODEL_TYPES.join(", "))),
        ));
    }
    let experts = c.optional(&["num_local_experts", "num_experts", "n_routed_experts"])?;
    let experts_active = c.optional(&["num_experts_per_tok", "moe_top_k"])?;
    let expert_intermediate = c.optional(&["moe_intermediate_size"])?;
    let shared_expert_intermediate = c.optional(&["shared_expert_intermediate_size"])?;
    let (activation, gated) = activation(&c, &f);
    let m = TransformerModel {
        name: model_name(&c.short_text("_name_or_path", fallback)),
        hf_class: c
            .obj
            .get("architectures")
            .and_then(|a| a.get(0))
            .and_then(|a| a.as_str())
            .unwrap_or("custom")
            .chars()
            .take(80)
            .collect(),
        kind: f.kind(),
        layers: shape.layers,
        hidden: shape.hidden,
        heads: shape.heads,
        kv_heads: shape.kv_heads,
        intermediate: shape.intermediate,
        mlp: if gated { MlpKind::Glu } else { MlpKind::Gelu },
        activation,
        norm: if f.layernorm() {
            NormKind::Layernorm
        } else {
            NormKind::Rmsnorm
        },
        attention: if f.t5 {
            AttentionImpl::Eager
        } else {
            AttentionImpl::Sdpa
        },
        positions: f.positions(),
        vocab: shape.vocab,
        max_positions,
        type_vocab: if f.bert {
            c.optional(&["type_vocab_size"])?.unwrap_or(2)
        } else {
            0
        },
        tied_embeddings: c
            .flag("tie_word_embeddings")?
            .unwrap_or(f.tied_by_default()),
        qkv_bias: c
            .flag("attention_bias")?
            .unwrap_or(f.biases(&c)? || f.model_type == "qwen2" || f.model_type == "qwen2_moe"),
        dropout: f.gpt2 || f.bert || f.t5,
        head_dim: shape.head_dim,
        norms_per_layer: f.norms_per_layer(&c)?,
        embed_norm: f.bloom,
        lm_head_bias: f.phi2,
        experts,
        experts_active,
        expert_intermediate,
        shared_expert_intermediate,
        params_reference: None,
        source: "imported Hugging Face config.json".into(),
        observed: "2026-01-01".into(),
        confidence: Confidence::Medium,
    };
    validate_transformer(&m).map_err(|r| {
        let key = config_key(&r.key).to_owned();
        Refusal { key, ..r }.into_input()
    })?;
    Ok(m)
}

/// The `model_type`s a pasted config may name: the families [`Family`]
/// tells apart, and the Llama-style decoders (RMSNorm, rotary positions, a
/// gated MLP, grouped key/value heads) estimated as Llama is.
const KNOWN_MODEL_TYPES: [&str; 24] = [
    "llama",
    "mistral",
    "mixtral",
    "qwen2",
    "qwen2_moe",
    "qwen3",
    "qwen3_moe",
    "phi3",
    "internlm2",
    "granite",
    "olmo2",
    "gemma",
    "gemma2",
    "gemma3_text",
    "gpt2",
    "gpt_neox",
    "falcon",
    "phi",
    "bloom",
    "bert",
    "roberta",
    "t5",
    "mt5",
    "umt5",
];

/// A pasted `config.json`, read key by key.
struct HfConfig<'a> {
    obj: &'a serde_json::Map<String, serde_json::Value>,
}

impl HfConfig<'_> {
    /// The first of `keys` the config sets (a `null` is not set), as a
    /// whole number: a value of another kind (a string, a negative or
    /// fractional number) is an error naming the key, never skipped for a
    /// default.
    fn get(&self, keys: &[&str]) -> Result<Option<u64>, InputError> {
        let Some((key, v)) = keys
            .iter()
            .find_map(|k| self.obj.get(*k).filter(|v| !v.is_null()).map(|v| (*k, v)))
        else {
            return Ok(None);
        };
        v.as_u64().map(Some).ok_or_else(|| {
            let shown = crate::error::short(&v.to_string());
            // A negative whole number is whole, just out of range.
            let (english, key_said) = if v.as_i64().is_some() {
                (format!("{shown} is out of range"), "error.outOfRange")
            } else {
                (format!("{shown} is not a whole number"), "error.notWhole")
            };
            InputError::new(key, english, "a positive integer").said(
                Message::new(key_said).with("value", shown),
                Some(Message::new("allowed.positiveWhole")),
            )
        })
    }

    /// A true/false setting; another kind of value is an error naming it.
    fn flag(&self, key: &str) -> Result<Option<bool>, InputError> {
        match self.obj.get(key) {
            None | Some(serde_json::Value::Null) => Ok(None),
            Some(v) => v.as_bool().map(Some).ok_or_else(|| {
                let shown = crate::error::short(&v.to_string());
                InputError::new(
                    key,
                    format!("{shown} is not true or false"),
                    "true or false",
                )
                .said(
                    Message::new("error.notFlag").with("value", shown),
                    Some(Message::new("allowed.trueFalse")),
                )
            }),
        }
    }

    fn text(&self, key: &str) -> &str {
        self.obj.get(key).and_then(|a| a.as_str()).unwrap_or("")
    }

    /// A text value cut to 80 characters, or `default` when absent or empty.
    fn short_text(&self, key: &str, default: &str) -> String {
        self.obj
            .get(key)
            .and_then(|n| n.as_str())
            .filter(|n| !n.is_empty())
            .unwrap_or(default)
            .chars()
            .take(80)
            .collect()
    }

    /// An optional whole number, converted as strictly as a required one: a
    /// value past u32 is an error, never truncated into a small valid-looking
    /// number.
    fn optional(&self, keys: &[&str]) -> Result<Option<u32>, InputError> {
        match self.get(keys)? {
            None => Ok(None),
            Some(n) => u32::try_from(n).map(Some).map_err(|_| {
                // The size's own range where it has one, not u32's.
                let (lo, hi) = SIZE_RANGES
                    .iter()
                    .find(|(field, _, _)| config_key(field) == keys[0])
                    .map_or((1, u32::MAX), |(_, lo, hi)| (*lo, *hi));
                InputError::out_of_range(
                    keys[0],
                    n,
                    (
                        format!("a whole number from {lo} to {hi}"),
                        Message::new("allowed.whole")
                            .with("min", lo)
                            .with("max", hi),
                    ),
                )
            }),
        }
    }

    /// A required whole number (the first of `keys` names it in errors).
    fn need(&self, keys: &[&str]) -> Result<u32, InputError> {
        self.optional(keys)?.ok_or_else(|| {
            InputError::new(keys[0], "missing", "a positive integer").said(
                Message::new("error.configMissing").with("name", keys[0]),
                Some(Message::new("allowed.positiveWhole")),
            )
        })
    }
}

/// The architecture family a `model_type` names, and what each family's
/// configs leave unsaid.
struct Family<'a> {
    model_type: &'a str,
    gpt2: bool,
    bert: bool,
    t5: bool,
    gemma: bool,
    falcon: bool,
    neox: bool,
    phi2: bool,
    bloom: bool,
}

impl<'a> Family<'a> {
    fn of(mt: &'a str) -> Self {
        Self {
            model_type: mt,
            gpt2: mt == "gpt2",
            bert: matches!(mt, "bert" | "roberta"),
            t5: matches!(mt, "t5" | "mt5" | "umt5"),
            gemma: matches!(mt, "gemma" | "gemma2" | "gemma3_text"),
            falcon: mt == "falcon",
            neox: mt == "gpt_neox",
            phi2: mt == "phi",
            bloom: mt == "bloom",
        }
    }

    /// The families with LayerNorm (and plain, ungated MLPs).
    fn layernorm(&self) -> bool {
        self.gpt2 || self.bert || self.falcon || self.neox || self.phi2 || self.bloom
    }

    fn kind(&self) -> TransformerKind {
        if self.bert {
            TransformerKind::Encoder
        } else if self.t5 {
            TransformerKind::EncoderDecoder
        } else {
            TransformerKind::Decoder
        }
    }

    fn positions(&self) -> Positions {
        if self.gpt2 || self.bert {
            Positions::Learned
        } else if self.t5 {
            Positions::Relative
        } else if self.bloom {
            Positions::Alibi
        } else {
            Positions::Rope
        }
    }

    /// Whether the input and output embeddings are shared when the config
    /// does not say.
    fn tied_by_default(&self) -> bool {
        self.gpt2
            || self.bert
            || self.gemma
            || self.bloom
            || self.falcon
            || (self.t5 && !matches!(self.model_type, "mt5" | "umt5"))
    }

    /// Whether the linear layers carry biases.
    fn biases(&self, c: &HfConfig<'_>) -> Result<bool, InputError> {
        Ok(c.flag("bias")?.unwrap_or(!self.falcon)
            && (self.gpt2 || self.bert || self.neox || self.phi2 || self.bloom))
    }

    /// Norms per layer where the family differs from two.
    fn norms_per_layer(&self, c: &HfConfig<'_>) -> Result<Option<u32>, InputError> {
        let new_decoder = c.flag("new_decoder_architecture")?.unwrap_or(false);
        Ok(if (self.falcon && !new_decoder) || self.phi2 {
            Some(1)
        } else if matches!(self.model_type, "gemma2" | "gemma3_text") {
            Some(4)
        } else {
            None
        })
    }
}

/// The sizes every transformer config gives, under its family's key names.
struct Shape {
    layers: u32,
    hidden: u32,
    heads: u32,
    kv_heads: u32,
    head_dim: Option<u32>,
    intermediate: u32,
    vocab: u32,
}

impl Shape {
    fn read(c: &HfConfig<'_>, f: &Family<'_>) -> Result<Self, InputError> {
        let layers = c.need(&["num_hidden_layers", "n_layer", "num_layers"])?;
        let hidden = c.need(&["hidden_size", "n_embd", "d_model", "n_embed"])?;
        let heads = c.need(&["num_attention_heads", "n_head", "num_heads"])?;
        // Falcon's first models share one key/value head (multi-query).
        let kv_heads = if f.falcon
            && c.flag("multi_query")?.unwrap_or(true)
            && !c.flag("new_decoder_architecture")?.unwrap_or(false)
        {
            1
        } else {
            c.optional(&[
                "num_key_value_heads",
                "multi_query_group_num",
                "num_kv_heads",
            ])?
            .unwrap_or(heads)
        };
        Ok(Self {
            layers,
            hidden,
            heads,
            kv_heads,
            head_dim: c.optional(&["head_dim", "d_kv"])?,
            intermediate: c
                .optional(&["intermediate_size", "n_inner", "ffn_hidden_size", "d_ff"])?
                .unwrap_or_else(|| hidden.saturating_mul(4)),
            vocab: c.need(&["vocab_size", "padded_vocab_size"])?,
        })
    }
}

/// The longest sequence the model accepts: its position table, times a
/// RoPE scaling factor (linear, dynamic, YaRN, Llama 3); ALiBi and relative
/// positions have no table and accept what memory allows.
fn max_positions(c: &HfConfig<'_>, f: &Family<'_>) -> Result<u32, InputError> {
    let positions_default = if f.bloom || f.t5 { Some(65_536) } else { None };
    let table = match c.optional(&["max_position_embeddings", "n_positions", "seq_length"])? {
        Some(p) if !f.t5 => p,
        other => other.or(positions_default).ok_or_else(|| {
            InputError::new("max_position_embeddings", "missing", "a positive integer").said(
                Message::new("error.configMissing").with("name", "max_position_embeddings"),
                Some(Message::new("allowed.positiveWhole")),
            )
        })?,
    };
    let rope_factor = match c.obj.get("rope_scaling").and_then(|r| r.get("factor")) {
        None | Some(serde_json::Value::Null) => 1.0,
        Some(v) => match v.as_f64() {
            Some(x) if x.is_finite() && (1.0..=1024.0).contains(&x) => x,
            // The value as the config gave it, so the student finds it.
            _ => {
                let shown = crate::error::short(&v.to_string());
                return Err(InputError::new(
                    "rope_scaling.factor",
                    format!("{shown} is not a RoPE scaling factor"),
                    "a factor from 1 to 1024",
                )
                .said(
                    Message::new("error.outOfRange").with("value", shown),
                    Some(
                        Message::new("allowed.between")
                            .with("min", 1)
                            .with("max", 1024),
                    ),
                ));
            }
        },
    };
    Ok((f64::from(table) * rope_factor).min(f64::from(u32::MAX)) as u32)
}

/// The MLP's activation, and whether the MLP is gated (Llama-style SwiGLU,
/// Gemma's GeGLU, T5 v1.1's gated-gelu).
fn activation(c: &HfConfig<'_>, f: &Family<'_>) -> (Activation, bool) {
    let act = c
        .obj
        .get("hidden_act")
        .or_else(|| c.obj.get("hidden_activation"))
        .or_else(|| c.obj.get("activation_function"))
        .or_else(|| c.obj.get("feed_forward_proj"))
        .and_then(|a| a.as_str())
        .unwrap_or(if f.gpt2 {
            "gelu_new"
        } else if f.falcon || f.bloom {
            "gelu"
        } else {
            "silu"
        });
    let activation = match act {
        "gelu_new" => Activation::GeluNew,
        "gelu" | "gelu_pytorch_tanh" | "gelu_fast" | "gated-gelu" => Activation::Gelu,
        "relu" => Activation::Relu,
        _ => Activation::Silu,
    };
    let gated = if f.t5 {
        act.starts_with("gated")
    } else {
        !f.layernorm()
    };
    (activation, gated)
}

/// The top-level keys of a JSON object in the order written, repeats kept.
struct TopKeys(Vec<String>);

impl<'de> serde::Deserialize<'de> for TopKeys {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = TopKeys;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut m: A,
            ) -> Result<TopKeys, A::Error> {
                let mut keys = Vec::new();
                while let Some((k, _)) = m.next_entry::<String, serde::de::IgnoredAny>()? {
                    keys.push(k);
                }
                Ok(TopKeys(keys))
            }
        }
        d.deserialize_map(Visit)
    }
}

#[cfg(test)]
mod duplicate_key_tests {
    #[test]
    fn a_config_writing_a_key_twice_is_refused_by_that_key() {
        let config = r#"{"model_type": "llama", "hidden_size": 4096, "hidden_size": 8192,
            "num_hidden_layers": 32, "num_attention_heads": 32, "intermediate_size": 11008,
            "vocab_size": 32000, "max_position_embeddings": 4096}"#;
        let e = super::from_hf_config(config).expect_err("hidden_size twice");
        assert_eq!(e.field, "hidden_size", "the repeated key is named");
        let once = config.replace(r#""hidden_size": 8192,"#, "");
        assert!(
            super::from_hf_config(&once).is_ok(),
            "the same config with the key once reads"
        );
    }
}

#[cfg(test)]
mod name_tests {
    use super::model_name;

    #[test]
    fn a_config_saved_from_a_folder_is_named_by_the_model_not_the_folder_path() {
        // (_name_or_path, name, why)
        let cases = [
            ("Qwen/Qwen2-7B", "Qwen/Qwen2-7B", "a Hub id stays as it is"),
            (
                "/home/student/models/qwen2",
                "qwen2",
                "an absolute folder: its last part",
            ),
            (
                "./out/checkpoint-500/",
                "checkpoint-500",
                "a relative folder, trailing slash",
            ),
            ("C:\\models\\llama", "llama", "a Windows path"),
            ("~/llama", "llama", "a home folder"),
            ("bert-base-uncased", "bert-base-uncased", "a bare Hub name"),
        ];
        for (given, want, why) in cases {
            assert_eq!(model_name(given), want, "{why}");
        }
    }
}
