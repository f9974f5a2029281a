//! The GPU catalog: the cards a student can rent, with sourced specs.
//!
//! Parsed from TOML text handed in by the caller (`data/gpus.toml` is the
//! bundled one). Unknown fields are rejected and every number is range-checked,
//! so a typo in a reviewed data file fails loudly with its file, line and field.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::error::{DataError, InputError};
use crate::sourced::{valid_observed, Sourced};

/// GPU architecture generation, oldest first. Feature support follows from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Generation {
    /// P100: packed FP16, no tensor cores.
    Pascal,
    /// V100: first tensor cores, FP16 only.
    Volta,
    /// T4, RTX 20xx: FP16 tensor cores.
    Turing,
    /// A100, RTX 30xx: BF16 and TF32.
    Ampere,
    /// RTX 40xx, L20, L40S.
    Ada,
    /// H100, H800, H20, H200.
    Hopper,
    /// RTX 50xx.
    Blackwell,
}

/// One card as the catalog file describes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GpuSpec {
    /// Full marketing name.
    pub name: String,
    /// Other ids users type (`3090`, `a100`).
    #[serde(default)]
    pub aliases: Vec<String>,
    /// Architecture generation.
    pub generation: Generation,
    /// Total memory as nvidia-smi reports it, MiB.
    pub vram_mib: Sourced<f64>,
    /// Dense FP32 CUDA-core TFLOPS.
    pub fp32_tflops: Sourced<f64>,
    /// Dense FP16/BF16 tensor TFLOPS with FP32 accumulate.
    pub tensor_tflops: Sourced<f64>,
    /// Memory bandwidth, GB/s.
    pub bandwidth_gbs: Sourced<f64>,
    /// Last-level (L2) cache, MiB: a tensor smaller than it is read back from
    /// the cache by the kernel that consumes it (`steptime`). Every bundled
    /// card has it (a test checks); a card without it gets no cache credit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub l2_mib: Option<Sourced<f64>>,
    /// The card's own PCIe link to the host, GB/s each way (generation x
    /// lanes: 15.75 for 3.0 x16, 31.5 for 4.0 x16, 63 for 5.0 x16). A board
    /// can give it less (fewer lanes, an older generation), never more
    /// (`parallel`). Every bundled card has it (a test checks).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pcie_gbs: Option<Sourced<f64>>,
    /// The names `nvidia-smi` and `torch.cuda.get_device_name()` print for
    /// this card (both read the driver's device name), each with where it
    /// was seen printed.
    #[serde(default)]
    pub printed_names: Vec<PrintedName>,
}

/// A device name as the driver prints it, and where it was seen.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PrintedName {
    /// The name, exactly as printed (`NVIDIA A100-SXM4-80GB`).
    pub name: String,
    /// Where it was seen printed (a log, an issue, a benchmark file).
    pub source: String,
}

/// Each printed name is non-empty, sourced, and names one card only.
fn check_printed_names(
    file: &str,
    text: &str,
    table: &str,
    spec: &GpuSpec,
    seen: &mut BTreeMap<String, String>,
    id: &str,
) -> Result<(), DataError> {
    for p in &spec.printed_names {
        let key = printed_key(&p.name);
        if key.is_empty() || p.source.trim().is_empty() {
            return Err(DataError::invalid(
                file,
                text,
                table,
                "printed_names",
                "every printed name has its text and where it was seen",
            ));
        }
        if let Some(other) = seen.insert(key, id.to_owned()) {
            return Err(DataError::invalid(
                file,
                text,
                table,
                "printed_names",
                format!("`{}` already names gpu `{other}`", p.name),
            ));
        }
    }
    Ok(())
}

/// A printed device name, compared without case, with runs of spaces as
/// one, and without the `NVIDIA ` that drivers before R470 did not print
/// (`A100-SXM4-40GB`, `GeForce RTX 3090`): nothing else differs between
/// drivers and tools for a whole GPU (data/gpu-names-research.md).
fn printed_key(s: &str) -> String {
    let joined = s
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_ascii_lowercase();
    match joined.strip_prefix("nvidia ") {
        Some(rest) => rest.to_owned(),
        None => joined,
    }
}

/// A catalog card with its id.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Gpu {
    /// Lowercase id (`rtx3090`, `a100-80g-sxm`).
    pub id: String,
    /// The card's specs.
    #[serde(flatten)]
    pub spec: GpuSpec,
}

impl Gpu {
    /// Whether the card computes in bfloat16 (Ampere and newer).
    pub fn supports_bf16(&self) -> bool {
        self.spec.generation >= Generation::Ampere
    }

    /// Whether the card has tensor cores (Volta and newer).
    pub fn has_tensor_cores(&self) -> bool {
        self.spec.generation >= Generation::Volta
    }

    /// TF32 tensor TFLOPS, which cuDNN uses for FP32 convolutions by default
    /// (`torch.backends.cudnn.allow_tf32 = True`); half the FP16 tensor rate on
    /// Ampere and newer, absent before.
    pub fn tf32_tflops(&self) -> Option<f64> {
        (self.spec.generation >= Generation::Ampere).then(|| self.spec.tensor_tflops.value / 2.0)
    }

    /// L2 cache in bytes (0 when the catalog does not say).
    pub fn l2_bytes(&self) -> f64 {
        self.spec
            .l2_mib
            .as_ref()
            .map_or(0.0, |l| l.value * 1024.0 * 1024.0)
    }

    /// The card's own PCIe link to the host, GB/s each way, when the
    /// catalog says.
    pub fn pcie_gbs(&self) -> Option<f64> {
        self.spec.pcie_gbs.as_ref().map(|p| p.value)
    }

    /// Memory in GiB as nvidia-smi reports it.
    pub fn vram_gib(&self) -> f64 {
        self.spec.vram_mib.value / 1024.0
    }

    /// The name a person reads ("RTX 3090 24 GB", "A100 80GB SXM"): the
    /// marketing name without the maker's prefix, with the memory when the
    /// name does not say it (the app's `cardLabel` does the same).
    pub fn label(&self) -> String {
        let name = self.spec.name.trim();
        let short = name
            .strip_prefix("NVIDIA ")
            .map(|n| n.strip_prefix("GeForce ").unwrap_or(n))
            .unwrap_or(name);
        let says_memory = short.split_whitespace().any(|w| {
            let w = w.to_ascii_uppercase();
            w.ends_with("GB") && w.trim_end_matches("GB").chars().any(|c| c.is_ascii_digit())
        }) || short.to_ascii_uppercase().contains(" GB");
        if says_memory {
            short.to_owned()
        } else {
            format!("{short} {:.0} GB", self.vram_gib())
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CatalogFile {
    gpu: BTreeMap<String, GpuSpec>,
}

/// The whole catalog, smallest memory first.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GpuCatalog {
    gpus: Vec<Gpu>,
}

impl GpuCatalog {
    /// Parses and validates catalog TOML. `file` names it in errors.
    pub fn from_toml(file: &str, text: &str) -> Result<Self, DataError> {
        let parsed: CatalogFile =
            toml::from_str(text).map_err(|e| DataError::from_toml(file, text, &e))?;
        let mut gpus = Vec::with_capacity(parsed.gpu.len());
        let mut seen: BTreeMap<String, String> = BTreeMap::new();
        let mut printed: BTreeMap<String, String> = BTreeMap::new();
        for (id, spec) in parsed.gpu {
            let table = format!("gpu.{id}");
            if id.is_empty()
                || !id
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
            {
                return Err(DataError::invalid(
                    file,
                    text,
                    &table,
                    "",
                    "ids are lowercase letters, digits and '-'",
                ));
            }
            let checks: [(&str, Option<&Sourced<f64>>, f64, f64); 6] = [
                ("vram_mib", Some(&spec.vram_mib), 1024.0, 1_048_576.0),
                ("fp32_tflops", Some(&spec.fp32_tflops), 0.1, 10_000.0),
                ("tensor_tflops", Some(&spec.tensor_tflops), 0.1, 100_000.0),
                ("bandwidth_gbs", Some(&spec.bandwidth_gbs), 10.0, 100_000.0),
                ("l2_mib", spec.l2_mib.as_ref(), 0.5, 4096.0),
                ("pcie_gbs", spec.pcie_gbs.as_ref(), 0.25, 256.0),
            ];
            for (key, v, lo, hi) in checks
                .into_iter()
                .filter_map(|(k, v, lo, hi)| v.map(|v| (k, v, lo, hi)))
            {
                if !(v.value.is_finite() && v.value >= lo && v.value <= hi) {
                    return Err(DataError::invalid(
                        file,
                        text,
                        &table,
                        key,
                        format!("value {} is outside {lo} to {hi}", v.value),
                    ));
                }
                if v.source.trim().is_empty() {
                    return Err(DataError::invalid(
                        file,
                        text,
                        &table,
                        key,
                        "source must not be empty",
                    ));
                }
                if !valid_observed(&v.observed) {
                    return Err(DataError::invalid(
                        file,
                        text,
                        &table,
                        key,
                        format!("observed `{}` is not YYYY-MM or YYYY-MM-DD", v.observed),
                    ));
                }
            }
            for name in std::iter::once(&id).chain(spec.aliases.iter()) {
                if let Some(other) = seen.insert(name.clone(), id.clone()) {
                    return Err(DataError::invalid(
                        file,
                        text,
                        &table,
                        "aliases",
                        format!("`{name}` already names gpu `{other}`"),
                    ));
                }
            }
            check_printed_names(file, text, &table, &spec, &mut printed, &id)?;
            gpus.push(Gpu { id, spec });
        }
        // Smallest card first: the order a student reads a fit table in.
        gpus.sort_by(|a, b| {
            a.spec
                .vram_mib
                .value
                .total_cmp(&b.spec.vram_mib.value)
                .then_with(|| a.id.cmp(&b.id))
        });
        if gpus.is_empty() {
            return Err(DataError::invalid(
                file,
                text,
                "gpu",
                "",
                "the catalog lists no GPU",
            ));
        }
        Ok(Self { gpus })
    }

    /// All cards.
    pub fn gpus(&self) -> &[Gpu] {
        &self.gpus
    }

    /// The card a device name printed by `nvidia-smi` or PyTorch names: one
    /// of its recorded printed names, or its catalog name or id, compared
    /// without case and extra spaces. Nothing is guessed: a name that is
    /// none of these (a laptop variant, a card the catalog lacks) is `None`,
    /// never the nearest card.
    pub fn by_printed_name(&self, printed: &str) -> Option<&Gpu> {
        let want = printed_key(printed);
        if want.is_empty() {
            return None;
        }
        self.gpus.iter().find(|g| {
            printed_key(&g.spec.name) == want
                || g.id == want
                || g.spec
                    .printed_names
                    .iter()
                    .any(|p| printed_key(&p.name) == want)
        })
    }

    /// Finds a card by id or alias (case-insensitive); the error lists close ids.
    pub fn get(&self, id: &str) -> Result<&Gpu, InputError> {
        let want = id.trim().to_ascii_lowercase();
        self.gpus
            .iter()
            .find(|g| g.id == want || g.spec.aliases.contains(&want))
            .ok_or_else(|| {
                InputError::unknown(
                    "gpu",
                    "GPU id",
                    id,
                    self.gpus.iter().flat_map(|g| {
                        std::iter::once(g.id.as_str())
                            .chain(g.spec.aliases.iter().map(String::as_str))
                    }),
                    "gpuplan gpus",
                )
            })
    }
}
