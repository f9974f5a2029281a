//! The shapes the app's screens receive and send, beside the core types that
//! cross IPC as they are (`JobSpec`, `Plan`, `Situation`, `Quote`, ...). Money
//! is a decimal string with two places; ids are numbers.

use gpuplan_core::estimate::EstimateReport;
use gpuplan_core::job::{DatasetKind, JobSpec, Mode, Optimizer, Precision};
use gpuplan_core::plan::Plan;
use gpuplan_core::platform::{Localized, PlatformKind};
use gpuplan_core::quote::Quote;
use gpuplan_core::recommend::{Recommendation, Situation, Stage};
use gpuplan_core::Message;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

/// A chart as SVG in both languages: switching the language swaps the image
/// without asking Rust again.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Chart {
    /// 简体中文.
    pub zh: String,
    /// English.
    pub en: String,
}

/// A zoo model for the picker.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct ModelInfo {
    /// Id.
    pub id: String,
    /// Name.
    pub name: String,
    /// The model's family.
    pub family: gpuplan_core::zoo::ModelFamily,
    /// Parameters in millions.
    pub params_m: f64,
    /// Longest sequence a transformer accepts (none for vision models).
    pub max_positions: Option<u32>,
    /// The attention kernels a job on it may ask for (none for CNNs).
    pub attention: Vec<gpuplan_core::zoo::AttentionImpl>,
}

/// A catalog card.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct GpuInfo {
    /// Id.
    pub id: String,
    /// Name.
    pub name: String,
    /// Memory, GiB.
    pub vram_gib: f64,
    /// bf16 support.
    pub bf16: bool,
}

/// A platform for lists.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct PlatformInfo {
    /// Id.
    pub id: String,
    /// Names.
    pub name: Localized,
    /// Kind.
    pub kind: PlatformKind,
    /// GPU ids offered.
    pub gpus: Vec<String>,
    /// Whether offers have a spot price.
    pub spot_gpus: Vec<String>,
    /// Every figure of the profile with its grade and source (the
    /// platform page).
    pub facts: Vec<gpuplan_core::platform::FactRow>,
    /// What the newcomer coupon may be spent on, when restricted.
    pub newcomer_terms: Option<Localized>,
}

/// A preset job (bundled or from a course pack).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct PresetView {
    /// Stable key (`resnet18-cifar`, `course-0`).
    pub key: String,
    /// Names.
    pub name: Localized,
    /// The job.
    pub job: JobSpec,
    /// Runs of it.
    pub runs: u32,
}

/// The course a pack set up.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct CourseInfo {
    /// Course name.
    pub name: String,
    /// Instructor.
    pub instructor: String,
    /// Budget cap per student, CNY.
    #[cfg_attr(feature = "ts", ts(type = "string | null"))]
    pub budget_cap: Option<Decimal>,
    /// Platform to start on.
    pub default_platform: Option<String>,
    /// Platforms the pack brings.
    pub platforms: usize,
    /// Presets it brings.
    pub presets: usize,
    /// Measured runs it brings (they calibrate estimates; the student's own
    /// among them count as the student's).
    pub measured_runs: usize,
}

/// A new situation, plan and command, before the user changes anything.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Defaults {
    /// Step 1.
    pub situation: Situation,
    /// Step 5.
    pub plan: Plan,
    /// The training command in the kit.
    pub command: String,
    /// Upload speed, Mbit/s, for a plan that gains a dataset.
    pub upload_mbps: u32,
    /// The top of the batch sliders.
    pub batch_slider_max: u32,
    /// The largest run report the ledger reads, bytes.
    pub report_max_bytes: u32,
    /// Memory the driver keeps on an idle card, MiB: a job fits when its
    /// peak is under the card's memory less this.
    pub idle_device_mib: u32,
}

/// The values each choice in the forms offers, in order (the UI lists none
/// of its own).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Choices {
    /// Stages.
    pub stage: Vec<Stage>,
    /// Precisions.
    pub precision: Vec<Precision>,
    /// Optimizers.
    pub optimizer: Vec<Optimizer>,
    /// Modes.
    pub mode: Vec<Mode>,
    /// Dataset formats.
    pub dataset: Vec<DatasetKind>,
    /// Attention kernels (transformers).
    pub attention: Vec<gpuplan_core::zoo::AttentionImpl>,
    /// Multi-GPU engines.
    pub engine: Vec<gpuplan_core::parallel::Engine>,
}

/// Everything the UI needs at start.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct AppInfo {
    /// Models.
    pub models: Vec<ModelInfo>,
    /// GPUs.
    pub gpus: Vec<GpuInfo>,
    /// Platforms (bundled, packs, overrides applied).
    pub platforms: Vec<PlatformInfo>,
    /// Presets: the bundled ones, then the course's.
    pub presets: Vec<PresetView>,
    /// The newest imported course, if any.
    pub course: Option<CourseInfo>,
    /// Defaults of a new plan.
    pub defaults: Defaults,
    /// What each choice offers.
    pub choices: Choices,
    /// The range of every number the forms take: the validators' own.
    pub limits: Vec<gpuplan_core::limits::FieldLimit>,
    /// The parts of peak memory in the order every screen lists them (the
    /// CLI's, the chart's): an estimate's `components` map has no order.
    pub memory_parts: Vec<&'static str>,
    /// What to tell the user at start (a database set aside, a course pack
    /// replaced or not imported), in the catalog's words.
    pub notices: Vec<gpuplan_core::Message>,
    /// Why nothing can be saved this session, when the user's database
    /// could not be opened: the app browses, says so in a banner, and every
    /// save fails with this reason.
    pub read_only: Option<String>,
    /// How close step times came to published runs held out from fitting,
    /// by card class: the about text.
    pub accuracy: gpuplan_core::heldout::HeldOutAccuracy,
}

/// The memory screen.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct EstimateView {
    /// The estimate, as `gpuplan estimate --json` prints it.
    pub report: EstimateReport,
    /// Memory breakdown against the cards around the peak.
    pub chart: Chart,
    /// Where the whole run's time goes on the target card, when the dataset
    /// size is known.
    pub run_chart: Option<Chart>,
    /// The same parts as rows, in the order the chart stacks them (empty when
    /// the dataset size is unknown).
    pub run_parts: Vec<RunPartRow>,
    /// How close step times came on the target card's class, against
    /// published runs held out from fitting, as one line (none: no such
    /// runs).
    pub accuracy: Option<gpuplan_core::Message>,
}

impl RunPartRow {
    /// The rows of `run`, in the order the chart stacks them; none without a run.
    pub fn all(run: Option<&gpuplan_core::pipeline::RunParts>) -> Vec<RunPartRow> {
        run.map(|r| {
            r.parts()
                .iter()
                .zip(r.percents())
                .map(|((key, seconds), percent)| RunPartRow {
                    key: (*key).to_owned(),
                    seconds: *seconds,
                    percent,
                })
                .collect()
        })
        .unwrap_or_default()
    }
}

/// One part of a run: its catalog key under `run.parts.` and its seconds.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct RunPartRow {
    /// `compute`, `input`, `eval`, `checkpoint`, `warmup` or `cold-cache`.
    pub key: String,
    /// Seconds of the run spent on it.
    pub seconds: f64,
    /// Its share of the run, whole percent; the rows add up to 100.
    pub percent: u32,
}

/// The options screen.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct RecommendationView {
    /// Ranked options (the first ten, or all when asked) and what was
    /// ruled out.
    pub recommendation: Recommendation,
    /// Options ranked beyond those listed (none when all are).
    pub more: u32,
    /// Cost breakdown of the top options.
    pub chart: Chart,
}

/// What the situation's job comes to on one offer: its option (the plan an
/// option on the options screen would open), or why it is ruled out. For a
/// plan screen whose card, platform or payment changed after an option was
/// chosen: hours given for an RTX 3090 and a fix that made the job fit are
/// the new card's, not the card chosen first.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct OfferOption {
    /// The best-ranked option on that offer, when it is one.
    pub option: Option<gpuplan_core::recommend::RankedOption>,
    /// Why the offer is not an option (none when it is, or when the
    /// platform does not rent that card that way).
    pub ruled_out: Option<Message>,
}

/// The plan and budget screen.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct QuoteView {
    /// The bill.
    pub quote: Quote,
    /// The quote's warnings as catalog messages, in the quote's order.
    pub warnings: Vec<Message>,
    /// Cumulative spend against the budget.
    pub chart: Chart,
    /// Where one estimated run's time goes on the platform's host (empty
    /// when the plan gives hours).
    pub run_parts: Vec<RunPartRow>,
    /// How old the prices behind the bill are.
    pub prices: PriceAge,
}

/// How old the prices behind a bill are: the oldest dated price that moved
/// the total, its age today, and whether it is past the stated age (the
/// use cases pass `defaults::PRICE_STALE_DAYS`; then say so at the total,
/// with the way to refresh: your own price, or a newer course pack).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct PriceAge {
    /// The date (`YYYY-MM-DD`), when any price is dated.
    pub observed: Option<String>,
    /// Days since then.
    pub days: Option<i64>,
    /// Older than the stated age.
    pub stale: bool,
    /// The course pack the platform's figures came from, when one replaced
    /// the bundled profile (the newest import of it).
    pub pack: Option<String>,
    /// Which price the date is (the oldest), when any is dated.
    pub figure: Option<gpuplan_core::quote::Figure>,
    /// The student's own price can replace that figure: the advice for an
    /// old one is to set it; else only a newer course pack renews it.
    pub own_price_refreshes: bool,
}

impl PriceAge {
    /// The age of `observed` (the date of price `figure`) on `today`; stale
    /// past `stale_after` days.
    pub fn of(
        observed: Option<(&str, gpuplan_core::quote::Figure)>,
        today: chrono::NaiveDate,
        stale_after: i64,
        pack: Option<&str>,
    ) -> Self {
        let figure = observed.map(|(_, f)| f);
        let observed = observed.map(|(d, _)| d);
        let date = observed.and_then(|d| chrono::NaiveDate::parse_from_str(d, "%Y-%m-%d").ok());
        let days = date.map(|d| today.signed_duration_since(d).num_days().max(0));
        Self {
            observed: observed.map(str::to_owned),
            days,
            stale: days.is_some_and(|d| d > stale_after),
            pack: pack.map(str::to_owned),
            figure,
            own_price_refreshes: figure.is_some_and(|f| f.own_price_replaces()),
        }
    }
}

/// A saved plan in lists. A plan that no longer validates is listed with its
/// error, never hidden.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct SavedPlanRow {
    /// Id.
    pub id: i64,
    /// Name.
    pub name: String,
    /// Last saved, ISO-8601.
    pub updated_at: String,
    /// The plan, when it validates.
    pub plan: Option<Plan>,
    /// The situation it came from, if kept.
    pub situation: Option<Situation>,
    /// Why it does not validate.
    pub error: Option<String>,
    /// The plan file text (what `gpuplan quote` reads).
    pub toml: String,
}

/// A ledger entry as the form sends it (numbers as typed).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct LedgerInput {
    /// YYYY-MM-DD.
    pub date: String,
    /// Platform id or name.
    pub platform: String,
    /// GPU id or name.
    pub gpu: String,
    /// Hours billed (decimal text).
    pub hours: String,
    /// CNY paid (decimal text).
    pub cost: String,
    /// What went wrong.
    pub problems: String,
    /// Saved plan it belongs to.
    pub plan_id: Option<i64>,
}

/// A deleted ledger entry, whole, so that undo puts back exactly what was
/// there: the bill, and the run report and measured run it came with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct DeletedBill {
    /// The bill as the form would send it.
    pub entry: LedgerInput,
    /// The run report it was imported from.
    pub report: Option<String>,
    /// The anonymised measured run calibration learnt from.
    pub measured_run: Option<String>,
}

/// A saved plan as it was when deleted, which undo puts back
/// (`Planner::restore_plan`): the row and the ledger entries that named it.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct DeletedPlan {
    /// Its id, which undo gives it again when free.
    pub id: i64,
    /// Name.
    pub name: String,
    /// The plan's text.
    pub body: String,
    /// The text's format.
    pub format: String,
    /// The situation it came from (JSON).
    pub situation: Option<String>,
    /// When first saved.
    pub created_at: String,
    /// When last saved.
    pub updated_at: String,
    /// The ledger entries that named it.
    pub ledger_ids: Vec<i64>,
}

/// A run that reused another run's id and part number ([`ImportedRun::run_id_reused`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct RunIdReused {
    /// The bill that holds that part already; none when it is a report
    /// earlier in the same import.
    pub bill: Option<i64>,
    /// The run id, as the report gave it (cut to 100 characters).
    pub run_id: String,
    /// The part number.
    pub part: u32,
}

/// A ledger entry with plan-versus-actual.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct LedgerRow {
    /// Id.
    pub id: i64,
    /// Date.
    pub date: String,
    /// Platform.
    pub platform: String,
    /// GPU.
    pub gpu: String,
    /// Hours.
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub hours: Decimal,
    /// CNY paid.
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub cost: Decimal,
    /// Problems, as the student typed them.
    pub problems: String,
    /// The app's own note (what an imported run report said, how its cost
    /// was found), in the catalog's words.
    pub note: Vec<gpuplan_core::Message>,
    /// The saved plan it is the bill of.
    pub plan_id: Option<i64>,
    /// Planned CNY, when linked to a plan.
    #[cfg_attr(feature = "ts", ts(type = "string | null"))]
    pub planned_cost: Option<Decimal>,
    /// Whether it was imported from a run report (plan versus actual can
    /// be shown).
    pub has_report: bool,
}

/// A measured run against its plan, with its chart.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct VersusView {
    /// The figures and what explains the gap.
    pub versus: PlanVersusActual,
    /// Planned and measured bars, as a percentage of the plan.
    pub chart: Chart,
}

/// What importing a run report added, with plan versus actual drawn.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct ImportedRunView {
    /// The new ledger entry.
    pub run: ImportedRun,
    /// Plan versus actual, when the report named a saved plan.
    pub versus: Option<VersusView>,
}

/// The ledger screen.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct LedgerPage {
    /// Entries, newest first (the newest 500).
    pub entries: Vec<LedgerRow>,
    /// Spend by month.
    pub chart: Chart,
    /// Total spent over every entry.
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub total: Decimal,
}

/// A generated script.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct ScriptView {
    /// Stable key (shutdown, slurm, slurm-requeue, probe, offline, resume).
    pub key: String,
    /// File name to save as.
    pub file_name: String,
    /// The script.
    pub text: String,
    /// Notes for the student.
    pub notes: Vec<Message>,
}

/// The before-you-rent screen.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct KitView {
    /// Checklist tailored to platform and plan.
    pub checklist: Vec<Message>,
    /// Ready-to-paste scripts.
    pub scripts: Vec<ScriptView>,
}

/// A user's price override.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct OverrideRow {
    /// Platform id.
    pub platform: String,
    /// GPU id.
    pub gpu: String,
    /// CNY per GPU-hour.
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub price_per_hour: Decimal,
    /// Where or when the user saw it.
    pub note: String,
    /// The day it was set, when known.
    pub set_on: Option<String>,
}

/// An imported course pack in lists.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct PackRow {
    /// Course name.
    pub name: String,
    /// Platforms it brings.
    pub platforms: usize,
    /// Presets it brings.
    pub presets: usize,
    /// When imported.
    pub imported_at: String,
    /// Why it no longer loads, if it does not.
    pub error: Option<String>,
}

/// What importing a run report added to the ledger (or found there).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct ImportedRun {
    /// The report's bill: new, or the one it already was.
    pub ledger_id: i64,
    /// The report was imported before: nothing was added.
    pub already_imported: bool,
    /// The report's identity (a digest of its content).
    pub identity: String,
    /// The saved plan it was matched to, by name.
    pub plan_id: Option<i64>,
    /// Day the billing window opened.
    pub date: String,
    /// Platform id.
    pub platform: String,
    /// Catalog id of the GPU, or its name as measured when the catalog
    /// does not know it.
    pub gpu: String,
    /// Whether the GPU is a catalog card (else nothing is learnt from it).
    pub gpu_in_catalog: bool,
    /// Whether calibration learns from this run (a plan with a model, a
    /// catalog card, the plan's number of GPUs).
    pub teaches_calibration: bool,
    /// Its time and memory are both off the estimate the same way, as
    /// another batch size or sequence length would be: set aside.
    pub set_aside: bool,
    /// The GPUs the run trained on, where that is not its plan's job's
    /// number (a data-parallel run filed under a one-GPU plan): it teaches
    /// calibration nothing.
    pub trained_on_gpus: Option<u32>,
    /// The report was made for another job than its plan's now (the plan
    /// was edited since its kit was made, or the plan file given is
    /// another job): not compared with the plan, nothing taught.
    pub plan_changed: bool,
    /// The plan file given with the report is another job than the one the
    /// run's scripts were made for: not compared, nothing taught.
    pub plan_file_other: bool,
    /// The report names a plan no saved plan is named (and no plan file
    /// was given): nothing to compare with, nothing taught.
    pub plan_not_found: bool,
    /// The report measured no card (nvidia-smi did not answer): billed as
    /// its plan's card, nothing taught.
    pub card_assumed: bool,
    /// Another bill already holds this part of this run, from a billing
    /// window this one does not overlap: a later run that reused the run
    /// id. Billed, but not joined with it, and nothing taught.
    pub run_id_reused: Option<RunIdReused>,
    /// Billed hours (the window, rounded up to the hundredth).
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub hours: Decimal,
    /// CNY.
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub cost: Decimal,
    /// Whether the cost was computed from the price rather than given.
    pub cost_estimated: bool,
    /// Peak GPU memory, MiB.
    pub peak_memory_mib: Option<u64>,
    /// The job's exit status.
    pub exit_status: u32,
    /// The plan's estimate beside what was measured, when the report named
    /// a saved plan.
    pub versus: Option<PlanVersusActual>,
}

/// Why a measured run differs from its plan; the catalog words each as
/// `ledger.gap.<key>`.
pub const GAP_KEYS: [&str; 10] = {
    let all = gpuplan_core::versus::RunGap::ALL;
    let mut keys = [""; 10];
    let mut i = 0;
    while i < 10 {
        keys[i] = all[i].key();
        i += 1;
    }
    keys
};

/// A measured run against the plan it came from: one run's time, memory and
/// cost, and what explains the gap.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct PlanVersusActual {
    /// Hours one run was estimated to take (the plan's longest run).
    pub planned_hours: f64,
    /// Hours it took.
    pub measured_hours: f64,
    /// Peak GPU memory estimated, GiB (when the plan names a model).
    pub planned_peak_gib: Option<f64>,
    /// Peak GPU memory measured, GiB.
    pub measured_peak_gib: Option<f64>,
    /// Seconds per training step estimated, averaged over an epoch with its
    /// data loading, evaluation and checkpoint (when the plan names a model).
    pub planned_step_seconds: Option<f64>,
    /// The same, measured from the spacing of the log's epoch lines (when the
    /// log printed at least two).
    pub measured_step_seconds: Option<f64>,
    /// CNY one run was planned to cost (the plan's cash total over its runs).
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub planned_cost: Decimal,
    /// CNY it cost.
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub cost: Decimal,
    /// What explains the gap (`ledger.gap.<key>` words each).
    pub gaps: Vec<gpuplan_core::versus::RunGap>,
}

/// What importing a plan file did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportedPlan {
    /// The saved plan holding it.
    pub id: i64,
    /// Its name.
    pub name: String,
    /// It was saved before (nothing new was saved).
    pub already_saved: bool,
}
