//! The core's shared vocabulary: the multi-GPU engines and the
//! interconnects that jobs, plans, platforms and the estimators all name,
//! and the byte units.
//! It imports nothing else of the core but its error type, so every module
//! can use it without an import running back up (what each engine does to
//! memory and time is `crate::parallel`'s).

use serde::{Deserialize, Serialize};

use crate::error::InputError;

/// One gibibyte in bytes.
pub const GIB: f64 = 1024.0 * 1024.0 * 1024.0;
/// One mebibyte in bytes.
pub const MIB: f64 = 1024.0 * 1024.0;

/// A multi-GPU training engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub enum Engine {
    /// PyTorch DistributedDataParallel: everything replicated.
    Ddp,
    /// FSDP `FULL_SHARD`: parameters, gradients and states sharded. A plan
    /// file may say `fsdp`, as the CLI's `--engine fsdp` does.
    #[serde(alias = "fsdp", alias = "full_shard")]
    FsdpFull,
    /// FSDP `SHARD_GRAD_OP`: gradients and states sharded.
    #[serde(alias = "shard_grad_op")]
    FsdpGradOp,
    /// DeepSpeed ZeRO-1: optimizer states sharded.
    #[serde(alias = "zero-1")]
    Zero1,
    /// DeepSpeed ZeRO-2: gradients and optimizer states sharded.
    #[serde(alias = "zero-2")]
    Zero2,
    /// DeepSpeed ZeRO-3: parameters, gradients and optimizer states sharded.
    #[serde(alias = "zero-3")]
    Zero3,
    /// FSDP `HYBRID_SHARD` (HSDP): full sharding within each node, replicas
    /// across nodes; only the gradient shards cross the inter-node links.
    #[serde(alias = "hybrid_shard", alias = "hybrid-shard")]
    Hsdp,
}

impl Engine {
    /// Every engine, least memory-saving first.
    pub const VALUES: [Self; 7] = [
        Self::Ddp,
        Self::Zero1,
        Self::Zero2,
        Self::FsdpGradOp,
        Self::Hsdp,
        Self::Zero3,
        Self::FsdpFull,
    ];

    /// Parses `ddp`, `fsdp`, `fsdp-grad-op`, `hsdp`, `zero1`, `zero2`, `zero3`.
    pub fn parse(s: &str) -> Result<Self, InputError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "ddp" => Ok(Self::Ddp),
            "fsdp" | "fsdp-full" | "full_shard" => Ok(Self::FsdpFull),
            "fsdp-grad-op" | "shard_grad_op" => Ok(Self::FsdpGradOp),
            "hsdp" | "hybrid_shard" | "hybrid-shard" => Ok(Self::Hsdp),
            "zero1" | "zero-1" => Ok(Self::Zero1),
            "zero2" | "zero-2" => Ok(Self::Zero2),
            "zero3" | "zero-3" => Ok(Self::Zero3),
            other => Err(InputError::unknown_choice(
                "engine",
                "engine",
                other,
                "ddp, fsdp, fsdp-grad-op, hsdp, zero1, zero2 or zero3",
            )),
        }
    }
}

/// How GPUs of one instance talk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub enum Interconnect {
    /// PCIe (through the host on consumer cards).
    Pcie,
    /// NVLink / NVSwitch.
    Nvlink,
}

impl Interconnect {
    /// Parses `pcie` or `nvlink`.
    pub fn parse(s: &str) -> Result<Self, InputError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "pcie" => Ok(Self::Pcie),
            "nvlink" | "nvswitch" => Ok(Self::Nvlink),
            other => Err(InputError::unknown_choice(
                "interconnect",
                "interconnect",
                other,
                "pcie or nvlink",
            )),
        }
    }
}
