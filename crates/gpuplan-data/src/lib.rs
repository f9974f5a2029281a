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

/// Every bundled file with its repository path, for tests that load them all.
pub const ALL: &[(&str, &str)] = &[
    ("data/gpus.toml", GPUS_TOML),
    ("data/models/vision.toml", VISION_MODELS_TOML),
    ("data/models/transformers.toml", TRANSFORMER_MODELS_TOML),
];
