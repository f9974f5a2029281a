//! Use case: how close step times came to published runs held out from
//! fitting, by card class, and peak memory against published fine-tuning
//! runs (the app's about text, `gpuplan gpus`, the line
//! under every estimate). Computed once per process from the bundled
//! published rows with the model in this binary, so a figure shown is one
//! the model earns today.

use gpuplan_core::heldout::{self, ClassFigures, HeldOutAccuracy};
use gpuplan_core::published;

use crate::{Bundled, Result};

impl Bundled {
    /// The held-out step-time and memory figures ([`HeldOutAccuracy`]).
    pub fn held_out(&self) -> Result<&HeldOutAccuracy> {
        if let Some(done) = self.held_out.get() {
            return Ok(done);
        }
        let rows = published::parse_rows(
            "data/benchmarks/published-training-2.toml",
            gpuplan_data::PUBLISHED_TRAINING_2_TOML,
        )?;
        let lambda = published::parse(
            "data/benchmarks/published-training.toml",
            gpuplan_data::PUBLISHED_TRAINING_TOML,
        )?;
        let memory = published::parse_memory(
            "data/benchmarks/published-memory.toml",
            gpuplan_data::PUBLISHED_MEMORY_TOML,
        )?;
        let scored = heldout::score(&rows, &lambda, &self.zoo, &self.catalog)?;
        let memory = heldout::score_memory(&memory, &self.zoo)?;
        Ok(self
            .held_out
            .get_or_init(|| HeldOutAccuracy::of(&scored, &memory)))
    }

    /// The held-out figures of the class of card `gpu` (a catalog id), when
    /// that class has held-out runs.
    pub fn held_out_for(&self, gpu: &str) -> Result<Option<ClassFigures>> {
        let held = self.held_out()?;
        Ok(self.catalog.get(gpu).ok().and_then(|g| held.for_gpu(g)))
    }
}
