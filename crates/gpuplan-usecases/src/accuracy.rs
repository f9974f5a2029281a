//! Use case: how close step times came to published runs held out from
//! fitting, by card class, and peak memory against published fine-tuning
//! runs (the app's about text, `gpuplan gpus`, the line
//! under every estimate). Computed once per process from the bundled
//! published rows with the model in this binary, so a figure shown is one
//! the model earns today.

use gpuplan_core::heldout::{self, HeldOutAccuracy};
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

    /// The line under an estimate of `report`: held-out figures of its
    /// target card's class, or of its multi-GPU scale.
    pub fn held_out_note(
        &self,
        report: &gpuplan_core::estimate::EstimateReport,
    ) -> Result<Option<gpuplan_core::Message>> {
        let held = self.held_out()?;
        let layout = report.parallel.as_ref().map(|p| &p.layout);
        Ok(self
            .catalog
            .get(&report.target_gpu)
            .ok()
            .and_then(|g| held.note_for(g, layout)))
    }
}
