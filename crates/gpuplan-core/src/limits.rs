//! The allowed range of every number a student types, in one table.
//!
//! The validators ([`crate::job::JobSpec::resolve`], [`crate::recommend::Situation::check`],
//! [`crate::plan::Plan::check`]) and the app's forms read the same limits, so a
//! form can say "batch must be a whole number from 1 to 1,000,000" beside the
//! field while the student types, and never disagree with what the core later
//! accepts. `tests/tests/limits.rs` feeds each limit's edges to the validators.

use serde::Serialize;

/// Largest batch accepted: far beyond any card, small enough to keep arithmetic exact.
pub const MAX_BATCH: u32 = 1_000_000;
/// Largest image side accepted.
pub const MAX_RESOLUTION: u32 = 8192;
/// Largest LoRA rank accepted.
pub const MAX_LORA_RANK: u32 = 4096;

/// Most GPUs one instance holds; more means several nodes (campus clusters).
pub const MAX_GPUS_PER_NODE: u32 = 8;
/// Most GPUs a plan may use in all: 128 nodes of 8, the largest published
/// runs the estimator is checked against (InternLM's 1,024 A100s; issue 25).
pub const MAX_GPUS: u32 = 1024;

/// GPUs spread evenly over nodes: at most [`MAX_GPUS_PER_NODE`] per node and
/// the same number on every node (torchrun and Accelerate start as many
/// processes on each node; Slurm asks for one GPU count per node).
pub fn splits_evenly(gpus: u32) -> bool {
    let nodes = gpus.div_ceil(MAX_GPUS_PER_NODE).max(1);
    gpus.is_multiple_of(nodes)
}

/// Refuses a GPU count that cannot be laid out evenly over nodes, naming
/// the nearest counts that can (so the plan bills exactly the GPUs the
/// launch scripts start).
pub fn check_node_split(gpus: u32) -> Result<(), crate::error::InputError> {
    if splits_evenly(gpus) {
        return Ok(());
    }
    let below = (1..gpus).rev().find(|g| splits_evenly(*g)).unwrap_or(1);
    let above = (gpus..=MAX_GPUS).find(|g| splits_evenly(*g));
    let nodes = gpus.div_ceil(MAX_GPUS_PER_NODE);
    let (nearest, said) = match above {
        Some(a) => (
            format!("{below} or {a} GPUs"),
            crate::message::Message::new("allowed.nearestGpus")
                .with("below", below)
                .with("above", a),
        ),
        None => (
            format!("{below} GPUs"),
            crate::message::Message::new("allowed.gpuCount").with("gpus", below),
        ),
    };
    Err(crate::error::InputError::new(
        "gpus",
        format!(
            "{gpus} GPUs do not split evenly over {nodes} nodes of at most {MAX_GPUS_PER_NODE}"
        ),
        nearest,
    )
    .said(
        crate::message::Message::new("error.gpusSplit")
            .with("gpus", gpus)
            .with("nodes", nodes)
            .with("per_node", MAX_GPUS_PER_NODE),
        Some(said),
    ))
}

/// Largest number of runs a plan (or a recommendation) may ask for.
pub const MAX_RUNS: u32 = 87_600;
/// Most instances a plan may rent at once.
pub const MAX_PARALLEL: u32 = 64;
/// Largest amount of money a plan may name, CNY: far beyond a student's means.
pub const MAX_CNY: i64 = 10_000_000;
/// Largest price per hour a plan may name, CNY.
pub const MAX_PRICE_PER_HOUR: i64 = 10_000;
/// Largest storage or dataset a plan may name, GB.
pub const MAX_GB: i64 = 1_000_000;
/// Longest period (storage kept, schedule) a plan may name, days: ten years.
pub const MAX_DAYS: i64 = 3650;
/// Largest number of hours a plan may name: ten years of continuous
/// running, far beyond any student plan.
pub const MAX_HOURS: i64 = 87_600;
/// Decimal places of money (the fen): a budget, a package's price.
pub const MONEY_PLACES: u32 = 2;
/// Decimal places of a price per hour (platforms price to the thousandth of
/// a yuan per hour; one more place is kept). A price with more would be
/// billed at places the bill's rate does not print.
pub const PRICE_PLACES: u32 = 4;
/// Decimal places of hours a user types (a ledger shows hundredths).
pub const HOURS_PLACES: u32 = 2;

/// `v` has at most `places` decimal places (trailing zeros are none), else
/// the refusal names `table.key` and the places allowed.
pub fn at_most_places(
    table: &str,
    key: &str,
    v: rust_decimal::Decimal,
    places: u32,
) -> Result<(), crate::error::Refusal> {
    if v.normalize().scale() <= places {
        return Ok(());
    }
    Err(crate::error::Refusal::new(
        table,
        key,
        format!("{v} has more than {places} decimal places"),
        crate::message::Message::new("error.tooManyPlaces")
            .with("value", crate::error::short(&v.to_string()))
            .with("places", places),
    ))
}

/// Hours in a (365-day) year, for "that is N years" in messages.
const HOURS_PER_YEAR: i64 = 8_760;

/// `hours` as years to one decimal, for messages about runs too long for
/// a plan (saturating: a message must never fail).
pub fn years_of(hours: rust_decimal::Decimal) -> rust_decimal::Decimal {
    hours
        .checked_div(rust_decimal::Decimal::from(HOURS_PER_YEAR))
        .unwrap_or(rust_decimal::Decimal::MAX)
        .round_dp(1)
}

/// The range of one numeric field.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct FieldLimit {
    /// The field's name as the validators report it (`batch`, `budget`…).
    pub field: &'static str,
    /// Smallest value allowed (or the bound above it, see `min_exclusive`).
    pub min: f64,
    /// Largest value allowed.
    pub max: f64,
    /// `min` itself is not allowed (a duration of zero hours, say).
    pub min_exclusive: bool,
    /// Only whole numbers.
    pub integer: bool,
}

const fn whole(field: &'static str, min: u32, max: u32) -> FieldLimit {
    FieldLimit {
        field,
        min: min as f64,
        max: max as f64,
        min_exclusive: false,
        integer: true,
    }
}

const fn positive(field: &'static str, max: f64) -> FieldLimit {
    FieldLimit {
        field,
        min: 0.0,
        max,
        min_exclusive: true,
        integer: false,
    }
}

const fn non_negative(field: &'static str, max: f64) -> FieldLimit {
    FieldLimit {
        field,
        min: 0.0,
        max,
        min_exclusive: false,
        integer: false,
    }
}

/// Most epochs a run may have.
pub const MAX_EPOCHS: f64 = 100_000.0;
/// Most classes a classifier may have.
pub const MAX_CLASSES: u32 = 1_000_000;
/// Most data-loader workers.
pub const MAX_WORKERS: u32 = 256;
/// Smallest image side.
pub const MIN_IMAGE_SIDE: u32 = 16;
/// Longest sequence any model here accepts; each model's own limit is
/// smaller (its `max_positions`) and is checked against the model.
pub const MAX_SEQ_LEN: u32 = 1_048_576;

/// A job's batch per GPU.
pub const BATCH: FieldLimit = whole("batch", 1, MAX_BATCH);
/// Image side (square images, or the width).
pub const RESOLUTION: FieldLimit = whole("resolution", MIN_IMAGE_SIDE, MAX_RESOLUTION);
/// Image height of non-square images.
pub const IMAGE_HEIGHT: FieldLimit = whole("image_height", MIN_IMAGE_SIDE, MAX_RESOLUTION);
/// Classes of a classifier head.
pub const CLASSES: FieldLimit = whole("classes", 1, MAX_CLASSES);
/// Tokens per sample.
pub const SEQ_LEN: FieldLimit = whole("seq_len", 1, MAX_SEQ_LEN);
/// LoRA rank.
pub const LORA_RANK: FieldLimit = whole("lora_rank", 1, MAX_LORA_RANK);
/// Training samples.
pub const DATASET_SAMPLES: FieldLimit = whole("dataset_samples", 1, u32::MAX);
/// Validation samples.
pub const VAL_SAMPLES: FieldLimit = whole("val_samples", 0, u32::MAX);
/// Data-loader workers.
pub const NUM_WORKERS: FieldLimit = whole("num_workers", 0, MAX_WORKERS);
/// GPUs a job trains on.
pub const GPUS: FieldLimit = whole("gpus", 1, MAX_GPUS);
/// The PCIe link a board gives each GPU, GB/s each way: from PCIe 1.0 x1
/// (0.25) to beyond 6.0 x16 (121).
pub const PCIE_GBPS: FieldLimit = FieldLimit {
    field: "pcie_gbps",
    min: 0.25,
    max: 128.0,
    min_exclusive: false,
    integer: false,
};
/// Epochs of a run.
pub const EPOCHS: FieldLimit = positive("epochs", MAX_EPOCHS);
/// Evaluate every so many epochs (0: never).
pub const EVAL_EVERY: FieldLimit = non_negative("eval_every_epochs", MAX_EPOCHS);
/// Checkpoint every so many epochs (0: never).
pub const SAVE_EVERY: FieldLimit = non_negative("save_every_epochs", MAX_EPOCHS);

/// Runs of a plan or a situation.
pub const RUNS: FieldLimit = whole("runs", 1, MAX_RUNS);
/// Budget, CNY.
pub const BUDGET: FieldLimit = non_negative("budget", MAX_CNY as f64);
/// Deadline, hours from now.
pub const DEADLINE_HOURS: FieldLimit = positive("deadline_hours", MAX_HOURS as f64);
/// Storage kept, GB (a situation's `storage_gb`, a plan's `storage.gb`).
pub const STORAGE_GB: FieldLimit = non_negative("storage_gb", MAX_GB as f64);
/// A plan's storage, GB.
pub const PLAN_STORAGE_GB: FieldLimit = non_negative("storage.gb", MAX_GB as f64);
/// Hours of one run, when given instead of a model.
pub const HOURS: FieldLimit = positive("job.hours", MAX_HOURS as f64);
/// Days storage is kept.
pub const STORAGE_DAYS: FieldLimit = non_negative("storage.days", MAX_DAYS as f64);
/// Data uploaded, GB.
pub const DATA_GB: FieldLimit = non_negative("data.size_gb", MAX_GB as f64);
/// Stops between sessions.
pub const STOPS: FieldLimit = whole("stops.count", 0, MAX_RUNS);
/// Hours of each stop.
pub const STOP_HOURS: FieldLimit = non_negative("stops.hours_each", MAX_HOURS as f64);
/// Hours an instance stays up after a forgotten shutdown.
pub const FORGOTTEN_HOURS: FieldLimit = non_negative("forgotten_shutdown_hours", MAX_HOURS as f64);
/// Hours between checkpoints on spot instances.
pub const CHECKPOINT_HOURS: FieldLimit = positive("spot.checkpoint_every_hours", MAX_HOURS as f64);

/// Epochs between checkpoints on spot instances.
pub const CHECKPOINT_EPOCHS: FieldLimit = positive("spot.checkpoint_every_epochs", MAX_EPOCHS);

/// Years a date a person gives may fall in (a plan's start, a bill's day, a
/// run report's window): from 2000 on; a year past 2100 is a typo.
pub const YEAR: FieldLimit = whole("year", 2000, 2100);
/// The student's own price per GPU-hour (`override set`, the price box).
pub const PRICE: FieldLimit = non_negative("price", MAX_PRICE_PER_HOUR as f64);

/// Every limit the forms check, in one list for the app.
pub const ALL: &[FieldLimit] = &[
    BATCH,
    RESOLUTION,
    IMAGE_HEIGHT,
    CLASSES,
    SEQ_LEN,
    LORA_RANK,
    DATASET_SAMPLES,
    VAL_SAMPLES,
    NUM_WORKERS,
    GPUS,
    PCIE_GBPS,
    EPOCHS,
    EVAL_EVERY,
    SAVE_EVERY,
    RUNS,
    BUDGET,
    DEADLINE_HOURS,
    STORAGE_GB,
    PLAN_STORAGE_GB,
    HOURS,
    STORAGE_DAYS,
    DATA_GB,
    STOPS,
    STOP_HOURS,
    FORGOTTEN_HOURS,
    CHECKPOINT_HOURS,
    CHECKPOINT_EPOCHS,
    YEAR,
    PRICE,
];

impl FieldLimit {
    /// Whether `v` is allowed.
    pub fn allows(&self, v: f64) -> bool {
        v.is_finite()
            && (!self.integer || v.fract() == 0.0)
            && v <= self.max
            && if self.min_exclusive {
                v > self.min
            } else {
                v >= self.min
            }
    }

    /// The range in words, for error messages: `a whole number in 1..=64`
    /// or `a number in (0, 87600]`.
    pub fn describe(&self) -> String {
        match (self.integer, self.min_exclusive) {
            (true, _) => format!("a whole number from {} to at most {}", self.min, self.max),
            (false, true) => format!("a number above {}, at most {}", self.min, self.max),
            (false, false) => format!("a number from {} to at most {}", self.min, self.max),
        }
    }

    /// The range in words and as a catalog message (`allowed.*`).
    pub fn allowed(&self) -> (String, crate::message::Message) {
        let key = match (self.integer, self.min_exclusive) {
            (true, _) => "allowed.whole",
            (false, true) => "allowed.above",
            (false, false) => "allowed.between",
        };
        (
            self.describe(),
            crate::message::Message::new(key)
                .with("min", self.min)
                .with("max", self.max),
        )
    }
}
