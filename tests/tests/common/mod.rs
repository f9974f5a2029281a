//! Helpers shared by the integration tests: the bundled data, and the
//! translation of a calibration measurement into the job it ran.

#![allow(dead_code)]

pub mod hostile;

use gpuplan_core::job::{LoraTarget, Mode, Optimizer, Precision};
use gpuplan_core::platform::PlatformSet;
use gpuplan_core::{GpuCatalog, JobSpec, ModelZoo};
use serde::Deserialize;
use std::sync::LazyLock;

/// The repository root (tests read the files the repository ships).
pub fn root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The bundled catalog, parsed once per process: property tests ask for it
/// on every case.
pub fn catalog() -> &'static GpuCatalog {
    static CATALOG: LazyLock<GpuCatalog> = LazyLock::new(|| {
        GpuCatalog::from_toml("data/gpus.toml", gpuplan_data::GPUS_TOML)
            .expect("bundled catalog parses")
    });
    &CATALOG
}

/// The bundled zoo, parsed once per process.
pub fn zoo() -> &'static ModelZoo {
    static ZOO: LazyLock<ModelZoo> = LazyLock::new(|| {
        ModelZoo::from_toml(
            ("data/models/vision.toml", gpuplan_data::VISION_MODELS_TOML),
            (
                "data/models/transformers.toml",
                gpuplan_data::TRANSFORMER_MODELS_TOML,
            ),
        )
        .expect("bundled zoo parses")
    });
    &ZOO
}

/// The bundled platform profiles, parsed once per process.
pub fn platforms() -> &'static PlatformSet {
    static PLATFORMS: LazyLock<PlatformSet> = LazyLock::new(|| {
        PlatformSet::from_files(gpuplan_data::PLATFORMS.iter().copied(), catalog())
            .expect("bundled platforms parse")
    });
    &PLATFORMS
}

/// The bundled data as the use cases load it, once per process (a
/// `Planner` takes its own copy).
pub fn bundled() -> gpuplan_usecases::Bundled {
    static BUNDLED: LazyLock<gpuplan_usecases::Bundled> =
        LazyLock::new(|| gpuplan_usecases::Bundled::load().expect("bundled data loads"));
    BUNDLED.clone()
}

/// How many cases a property test runs: `PROPTEST_CASES` when set (the
/// fast tier sets a small number, the full tier a large one), else `default`.
pub fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A proptest configuration with [`cases`] cases.
pub fn proptest_config(default: u32) -> proptest::test_runner::Config {
    let cases = cases(default);
    proptest::test_runner::Config {
        // A property that assumes away a share of its inputs (a stop past
        // the platform's deadline) rejects in proportion to the cases run:
        // the allowance grows with them, so a long run does not abort.
        max_global_rejects: cases.saturating_mul(2).max(1024),
        ..proptest::test_runner::Config::with_cases(cases)
    }
}

/// One line of a `measure_vram.py` results file.
#[derive(Debug, Deserialize)]
pub struct Row {
    pub kind: String,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub family: String,
    pub res: Option<u32>,
    pub seq: Option<u32>,
    #[serde(default)]
    pub batch: u32,
    #[serde(default)]
    pub precision: String,
    #[serde(default)]
    pub optimizer: String,
    pub lora_r: Option<u32>,
    pub grad_ckpt: Option<bool>,
    pub params: Option<u64>,
    pub step_s: Option<f64>,
    pub nvml_used_mib: Option<f64>,
    pub nvml_used_before_mib: Option<f64>,
    pub ok: Option<bool>,
}

/// Loads a results file: the idle-device baseline from its `env` line and the
/// successful workloads.
pub fn load_rows(text: &str) -> (f64, Vec<Row>) {
    let mut baseline = 615.0625;
    let mut rows = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let row: Row = serde_json::from_str(line).expect("calibration line is JSON");
        match row.kind.as_str() {
            "env" => baseline = row.nvml_used_before_mib.unwrap_or(baseline),
            "workload" if row.ok == Some(true) => rows.push(row),
            _ => {}
        }
    }
    (baseline, rows)
}

/// The zoo id of the architecture a workload ran, from the prefix of its name
/// (the measurement script names workloads `<model>-<shape>-...`). This only
/// identifies the model; no measured number is used.
pub fn model_id(name: &str) -> Option<&'static str> {
    const PREFIXES: &[(&str, &str)] = &[
        ("resnet18-", "resnet18"),
        ("resnet34-", "resnet34"),
        ("resnet50-", "resnet50"),
        ("resnet101-", "resnet101"),
        ("vgg16-", "vgg16"),
        ("mobilenetv3l-", "mobilenet-v3-large"),
        ("efficientnetb0-", "efficientnet-b0"),
        ("efficientnetb3-", "efficientnet-b3"),
        ("densenet121-", "densenet121"),
        ("convnext-tiny-", "convnext-tiny"),
        ("swin-t-", "swin-t"),
        ("vit-b16-", "vit-b-16"),
        ("vit-s16-", "vit-s-16"),
        ("vit-l16-", "vit-l-16"),
        ("deeplabv3-", "deeplabv3-resnet50"),
        ("bert-base-", "bert-base"),
        ("bert-large-", "bert-large"),
        ("distilbert-", "distilbert-base"),
        ("roberta-base-", "roberta-base"),
        ("gpt2-124m-", "gpt2"),
        ("gpt2-355m-", "gpt2-medium"),
        ("gpt2-774m-", "gpt2-large"),
        ("qwen2-0.5b-", "qwen2-0.5b"),
        ("qwen2.5-1.5b-", "qwen2.5-1.5b"),
        ("tinyllama-1.1b-", "tinyllama-1.1b"),
        ("llama-7b-", "llama-2-7b"),
        ("llama-2-7b-", "llama-2-7b"),
        ("mistral-7b-", "mistral-7b"),
    ];
    PREFIXES
        .iter()
        .find(|(p, _)| name.starts_with(p))
        .map(|(_, id)| *id)
}

/// The job a workload ran, as the estimator's input.
pub fn job_request(row: &Row) -> JobSpec {
    let mut req = JobSpec {
        batch: Some(f64::from(row.batch)),
        ..Default::default()
    };
    match row.family.as_str() {
        "vision" => {
            req.resolution = row.res.map(f64::from);
            // The script trains CIFAR-sized jobs with 10 classes, others with 1000.
            req.classes = Some(if row.name.contains("cifar") {
                10.0
            } else {
                1000.0
            });
            req.precision = Some(if row.precision == "fp16" {
                Precision::Fp16Amp
            } else {
                Precision::Fp32
            });
            req.optimizer = Some(match row.optimizer.as_str() {
                "sgd" => Optimizer::Sgd,
                "adam" => Optimizer::Adam,
                _ => Optimizer::Adamw,
            });
        }
        _ => {
            req.seq_len = row.seq.map(f64::from);
            req.optimizer = Some(Optimizer::Adamw);
            let (mode, precision) = match row.precision.as_str() {
                "fp32" | "full-fp32" => (Mode::Train, Precision::Fp32),
                "fp16" => (Mode::Train, Precision::Fp16Amp),
                "full-amp-bf16" => (Mode::Train, Precision::Bf16Amp),
                "full-bf16" => (Mode::Train, Precision::Bf16),
                "lora-bf16" => (Mode::Lora, Precision::Bf16),
                "infer-bf16" => (Mode::Infer, Precision::Bf16),
                other => panic!("unknown precision {other} in calibration row {}", row.name),
            };
            req.mode = Some(mode);
            req.precision = Some(precision);
            if mode == Mode::Lora {
                req.lora_rank = row.lora_r.map(f64::from);
                req.lora_targets = Some(vec![LoraTarget::Q, LoraTarget::V]);
            }
            req.grad_checkpointing = row.grad_ckpt;
        }
    }
    req
}

/// The `gpuplan` executable under test: Cargo builds it before this test
/// binary and names it here, so the tests never run stale code and never
/// run cargo themselves.
pub fn gpuplan_binary() -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_BIN_EXE_gpuplan"))
}

/// Polls `done` every 50 ms until it holds (true) or `within` has passed
/// (false): tests await conditions, they never sleep a fixed time.
pub fn wait_until(within: std::time::Duration, mut done: impl FnMut() -> bool) -> bool {
    let deadline = std::time::Instant::now() + within;
    loop {
        if done() {
            return true;
        }
        if std::time::Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// A stand-in `nvidia-smi` for the kit's run report: a machine of
/// `per_gpu_mib.len()` GPUs named `gpu` (driver `driver`), the job's
/// processes using `per_gpu_mib[i]` MiB on GPU i (a 0 is a GPU the job did
/// not use; the first GPU's use comes as two processes, as DDP's rank 0
/// often shows), each under process id 1, as a container shows them (none
/// of the job's ids: every process counts). Answers the queries the kit
/// asks, nothing else.
pub fn nvidia_smi_script(gpu: &str, driver: &str, per_gpu_mib: &[u64]) -> String {
    let bus = |i: usize| format!("00000000:{:02X}:00.0", i + 1);
    let mut apps = String::new();
    for (i, mib) in per_gpu_mib.iter().enumerate().filter(|(_, m)| **m > 0) {
        if i == 0 && *mib > 1 {
            apps.push_str(&format!(
                "1, {}, {}\n1, {}, {}\n",
                bus(i),
                mib / 2,
                bus(i),
                mib - mib / 2
            ));
        } else {
            apps.push_str(&format!("1, {}, {mib}\n", bus(i)));
        }
    }
    let index: String = (0..per_gpu_mib.len().max(1))
        .map(|i| format!("{i}, {}\n", bus(i)))
        .collect();
    let names: String = (0..per_gpu_mib.len().max(1))
        .map(|_| format!("{gpu}\n"))
        .collect();
    format!(
        "#!/bin/sh\ncase \"$*\" in\n  *query-compute-apps=pid,gpu_bus_id,used_memory*) printf '{apps}' ;;\n  *index,pci.bus_id*) printf '{index}' ;;\n  *name,driver_version*) echo '{gpu}, {driver}' ;;\n  *query-gpu=name*) printf '{names}' ;;\nesac\n"
    )
}

/// Writes `body` to `path` as an executable file (a stand-in for a program:
/// nvidia-smi, shutdown, a training script).
pub fn executable(path: &std::path::Path, body: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(path, body).expect("write the stand-in");
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
        .expect("make it executable");
}
