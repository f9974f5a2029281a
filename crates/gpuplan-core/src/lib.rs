//! gpuplan-core: the pure domain core of gpuplan.
//!
//! Everything here is a function of its arguments: no file or network IO, no
//! clock, no Tauri and no SQL. Data files arrive as text (`&str`) from whoever
//! found them (the `gpuplan-data` crate embeds the bundled ones), and the core
//! parses and validates them.
//!
//! Code map:
//! - [`sourced`]: numbers that carry source, observation date and confidence.
//! - [`catalog`]: the GPU catalog ([`catalog::GpuCatalog`]).
//! - [`zoo`]: the model zoo ([`zoo::ModelZoo`]) and Hugging Face `config.json` import.
//! - [`job`]: the job a user describes and its validation ([`job::JobSpec`] to [`job::Job`]).
//! - [`limits`]: the allowed range of every number a student types, shared with the forms.
//! - [`message`]: what the core says, as catalog keys with parameters.
//! - [`vram`]: the peak-memory model ([`vram::VramEstimate`]).
//! - [`steptime`]: the step-time model ([`steptime::StepTime`]).
//! - [`estimate`]: the whole estimate over the catalog: verdicts, max batch, fixes.
//! - [`parallel`]: several GPUs: DDP, FSDP, ZeRO; memory per GPU and step time.
//! - [`pipeline`]: the whole run around the steps: input pipeline, evaluation, checkpoints, warm-up.
//! - [`published`]: published training throughput of real cards, the cross-card check.
//! - [`calibration`]: the few constants fitted on measured jobs, each documented.
//! - [`correction`]: corrections learnt from measured runs (own and a class's), shrunk toward the estimate.
//! - [`report`]: run reports the kit's wrapper writes, parsed and checked as untrusted input.
//! - [`versus`]: why a measured run differed from its plan.
//! - [`platform`], [`plan`], [`quote`]: platform profiles, a rental plan, the cost engine.
//! - [`recommend`]: a student's situation to ranked options.
//! - [`pack`]: price overrides and course packs.
//! - [`scripts`]: the before-you-rent kit (templates in `templates/`).
//! - [`vocab`]: the shared vocabulary (engines, interconnects, units) at the bottom.
//! - [`digest`]: content digests.
//! - [`error`]: data and input errors that name the offending field.

pub mod calibration;
pub mod catalog;
pub mod correction;
pub mod digest;
pub mod error;
pub mod estimate;
pub mod heldout;
pub mod job;
pub mod limits;
pub mod message;
pub mod pack;
pub mod parallel;
pub mod pipeline;
pub mod plan;
pub mod platform;
pub mod published;
pub mod quote;
pub mod recommend;
pub mod report;
pub mod scripts;
pub mod sourced;
pub mod steptime;
pub mod versus;
pub mod vocab;
pub mod vram;
pub mod zoo;

// The shells' short paths; inside the core every module imports from the
// module that defines a name, so nothing imports this file.
pub use catalog::{Gpu, GpuCatalog};
pub use error::{DataError, InputError};
pub use estimate::{estimate, Estimate, Verdict};
pub use job::{Job, JobSpec, Mode, Optimizer, Precision};
pub use message::Message;
pub use vocab::{GIB, MIB};
pub use vram::VramEstimate;
pub use zoo::{Model, ModelZoo, ZooEntry};
