//! The bundled data files, embedded into the binary at compile time.
//!
//! `gpuplan-core` never reads files: it parses text it is handed. This crate is
//! the one place that knows where the bundled files live in the repository, so
//! the CLI and the app can hand the same text to the core without any runtime IO.

/// The GPU catalog, `data/gpus.toml`.
pub const GPUS_TOML: &str = include_str!("../../../data/gpus.toml");

/// Traced vision models of the zoo, `data/models/vision.toml` (generated).
pub const VISION_MODELS_TOML: &str = include_str!("../../../data/models/vision.toml");

/// Transformer models of the zoo, `data/models/transformers.toml`.
pub const TRANSFORMER_MODELS_TOML: &str = include_str!("../../../data/models/transformers.toml");

/// The bundled presets, a course pack loaded like any other, `data/packs/presets.toml`.
pub const PRESETS_PACK_TOML: &str = include_str!("../../../data/packs/presets.toml");

/// Published training throughput of real cards, the cross-card check,
/// `data/benchmarks/published-training.toml`.
pub const PUBLISHED_TRAINING_TOML: &str =
    include_str!("../../../data/benchmarks/published-training.toml");

/// Published training throughput from publishers beyond Lambda (single- and
/// multi-GPU, fit and held-out rows), `data/benchmarks/published-training-2.toml`.
pub const PUBLISHED_TRAINING_2_TOML: &str =
    include_str!("../../../data/benchmarks/published-training-2.toml");

/// Published peak memory of fine-tuning runs, the memory check beyond our
/// own measurements, `data/benchmarks/published-memory.toml`.
pub const PUBLISHED_MEMORY_TOML: &str =
    include_str!("../../../data/benchmarks/published-memory.toml");

/// The message catalog in Simplified Chinese, `data/locales/zh.json` (the UI
/// bundles the same file).
pub const LOCALE_ZH_JSON: &str = include_str!("../../../data/locales/zh.json");

/// The message catalog in English, `data/locales/en.json`.
pub const LOCALE_EN_JSON: &str = include_str!("../../../data/locales/en.json");

/// Every bundled data file (not platforms) with its repository path, for tests that load them all.
pub const ALL: &[(&str, &str)] = &[
    ("data/gpus.toml", GPUS_TOML),
    ("data/models/vision.toml", VISION_MODELS_TOML),
    ("data/models/transformers.toml", TRANSFORMER_MODELS_TOML),
    ("data/packs/presets.toml", PRESETS_PACK_TOML),
    (
        "data/benchmarks/published-training.toml",
        PUBLISHED_TRAINING_TOML,
    ),
    (
        "data/benchmarks/published-memory.toml",
        PUBLISHED_MEMORY_TOML,
    ),
    (
        "data/benchmarks/published-training-2.toml",
        PUBLISHED_TRAINING_2_TOML,
    ),
];

/// The bundled platform profiles, `platforms/*.toml`, as (repository path, text).
pub const PLATFORMS: &[(&str, &str)] = &[
    (
        "platforms/autodl.toml",
        include_str!("../../../platforms/autodl.toml"),
    ),
    (
        "platforms/campus-slurm.toml",
        include_str!("../../../platforms/campus-slurm.toml"),
    ),
    (
        "platforms/colab.toml",
        include_str!("../../../platforms/colab.toml"),
    ),
    (
        "platforms/gongji.toml",
        include_str!("../../../platforms/gongji.toml"),
    ),
    (
        "platforms/gpushare.toml",
        include_str!("../../../platforms/gpushare.toml"),
    ),
    (
        "platforms/kaggle.toml",
        include_str!("../../../platforms/kaggle.toml"),
    ),
    (
        "platforms/lanrui.toml",
        include_str!("../../../platforms/lanrui.toml"),
    ),
    (
        "platforms/matpool.toml",
        include_str!("../../../platforms/matpool.toml"),
    ),
    (
        "platforms/vast.toml",
        include_str!("../../../platforms/vast.toml"),
    ),
    (
        "platforms/youyun.toml",
        include_str!("../../../platforms/youyun.toml"),
    ),
];
