//! The shapes that cross IPC, designed for the screens that show them. The
//! TypeScript declarations in `ui/src/bindings/` are generated from these
//! (ts-rs) and a test fails when they are stale.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// Text in both languages.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export_to = "bindings/")]
pub struct Text {
    /// 简体中文.
    pub zh: String,
    /// English.
    pub en: String,
}

/// A zoo model for the picker.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[ts(export_to = "bindings/")]
pub struct ModelInfo {
    /// Id.
    pub id: String,
    /// Name.
    pub name: String,
    /// vision, encoder, decoder, encoder-decoder.
    pub family: String,
    /// Parameters in millions.
    pub params_m: f64,
}

/// A catalog card.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[ts(export_to = "bindings/")]
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
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[ts(export_to = "bindings/")]
pub struct PlatformInfo {
    /// Id.
    pub id: String,
    /// Names.
    pub name: Text,
    /// Kind.
    pub kind: String,
    /// GPU ids offered.
    pub gpus: Vec<String>,
}

/// A preset job (the seeds' and a course pack's).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export_to = "bindings/")]
pub struct Preset {
    /// Key (stable, for tests and translations).
    pub key: String,
    /// Names.
    pub name: Text,
    /// The job.
    pub job: JobInput,
}

/// The course a pack set up.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[ts(export_to = "bindings/")]
pub struct CourseInfo {
    /// Course name.
    pub name: String,
    /// Instructor.
    pub instructor: String,
    /// Budget cap, CNY.
    pub budget_cap: Option<f64>,
    /// Platform to start on.
    pub default_platform: Option<String>,
}

/// Everything the UI needs at start.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[ts(export_to = "bindings/")]
pub struct AppInfo {
    /// Models.
    pub models: Vec<ModelInfo>,
    /// GPUs.
    pub gpus: Vec<GpuInfo>,
    /// Platforms.
    pub platforms: Vec<PlatformInfo>,
    /// Presets (the seeds' and the course's).
    pub presets: Vec<Preset>,
    /// The imported course, if any.
    pub course: Option<CourseInfo>,
    /// Something to tell the user at start (a database set aside).
    pub notice: Option<String>,
}

/// A job as the form holds it; numbers may be missing (defaults apply).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, TS)]
#[ts(export_to = "bindings/")]
pub struct JobInput {
    /// Zoo model id.
    pub model: String,
    /// Samples per step.
    pub batch: Option<f64>,
    /// Image side.
    pub resolution: Option<f64>,
    /// Tokens per sequence.
    pub seq_len: Option<f64>,
    /// Classes.
    pub classes: Option<f64>,
    /// fp32, fp16-amp, bf16-amp, bf16.
    pub precision: Option<String>,
    /// sgd, adam, adamw, adamw-8bit.
    pub optimizer: Option<String>,
    /// train, lora, qlora, infer.
    pub mode: Option<String>,
    /// LoRA rank.
    pub lora_rank: Option<f64>,
    /// Gradient checkpointing.
    pub grad_checkpointing: bool,
    /// Samples per epoch.
    pub dataset_samples: Option<f64>,
    /// Epochs per run.
    pub epochs: Option<f64>,
}

/// One memory component.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[ts(export_to = "bindings/")]
pub struct Component {
    /// weights, gradients, optimizer, activations, logits, kv_cache, workspace, allocator, context.
    pub key: String,
    /// GiB.
    pub gib: f64,
}

/// One card's fit.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[ts(export_to = "bindings/")]
pub struct GpuRow {
    /// Id.
    pub id: String,
    /// Name.
    pub name: String,
    /// Memory, GiB.
    pub vram_gib: f64,
    /// fits, tight, does-not-fit, unsupported.
    pub verdict: String,
    /// Largest batch that fits.
    pub max_batch: u32,
    /// Seconds per step.
    pub step_seconds: f64,
    /// Seconds per run, if known.
    pub run_seconds: Option<f64>,
}

/// A fix that makes the job fit.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[ts(export_to = "bindings/")]
pub struct FixView {
    /// amp, grad-checkpointing, adamw-8bit, lora, qlora, smaller-batch.
    pub kind: String,
    /// Peak after the change, GiB.
    pub peak_gib: f64,
    /// Seconds per effective step.
    pub step_seconds: f64,
    /// Micro-batch.
    pub batch: u32,
    /// Accumulation steps.
    pub accumulation_steps: Option<u32>,
}

/// The memory screen.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[ts(export_to = "bindings/")]
pub struct EstimateView {
    /// Model id.
    pub model: String,
    /// Model name.
    pub model_name: String,
    /// Parameters.
    pub params: f64,
    /// Peak, GiB.
    pub peak_gib: f64,
    /// Breakdown.
    pub components: Vec<Component>,
    /// Every card.
    pub gpus: Vec<GpuRow>,
    /// Card the fixes are for.
    pub target_gpu: String,
    /// Fixes.
    pub fixes: Vec<FixView>,
    /// Breakdown chart (SVG).
    pub chart_svg: String,
}

/// The student's situation (step 1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export_to = "bindings/")]
pub struct SituationInput {
    /// first-demo, course-project, thesis-research, competition-sprint.
    pub stage: String,
    /// Budget, CNY.
    pub budget: Option<f64>,
    /// Hours until results are needed.
    pub deadline_hours: Option<f64>,
    /// Linux/SSH.
    pub linux: bool,
    /// Slurm.
    pub slurm: bool,
    /// Campus cluster account.
    pub campus: bool,
    /// Outside mainland China.
    pub abroad: bool,
    /// Needs persistent data.
    pub persistence: bool,
    /// Tolerates interruption.
    pub interruptible: bool,
    /// Runs in the experiment plan.
    pub runs: u32,
}

/// One line of money.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[ts(export_to = "bindings/")]
pub struct Money {
    /// Category key.
    pub category: String,
    /// CNY, exact decimal text.
    pub amount: String,
}

/// A ranked option.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[ts(export_to = "bindings/")]
pub struct OptionView {
    /// Platform id.
    pub platform: String,
    /// Platform names.
    pub platform_name: Text,
    /// Kind.
    pub kind: String,
    /// GPU id.
    pub gpu: String,
    /// on-demand or spot.
    pub payment: String,
    /// Cash cost, exact text.
    pub cost: String,
    /// Hours to result.
    pub time_to_result_hours: f64,
    /// Reasons.
    pub reasons: Vec<Text>,
    /// Watch out.
    pub watch_out: Vec<Text>,
    /// Cost by category.
    pub breakdown: Vec<Money>,
}

/// An option ruled out.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[ts(export_to = "bindings/")]
pub struct RuledOutView {
    /// Platform id.
    pub platform: String,
    /// GPU id.
    pub gpu: String,
    /// Why.
    pub reason: Text,
}

/// The options screen.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[ts(export_to = "bindings/")]
pub struct RecommendationView {
    /// Ranked options.
    pub options: Vec<OptionView>,
    /// Ruled out.
    pub ruled_out: Vec<RuledOutView>,
    /// Cost breakdown of the top options (SVG).
    pub chart_svg: String,
}

/// A plan as the plan screen holds it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export_to = "bindings/")]
pub struct PlanInput {
    /// Name.
    pub name: String,
    /// Platform id.
    pub platform: String,
    /// GPU id.
    pub gpu: String,
    /// Budget, CNY.
    pub budget: Option<f64>,
    /// Start date YYYY-MM-DD.
    pub start_date: Option<String>,
    /// Student certification.
    pub student: bool,
    /// on-demand or spot.
    pub payment: String,
    /// Runs.
    pub runs: u32,
    /// Hours per run (when not estimated).
    pub hours: Option<f64>,
    /// The job (estimated when `hours` is empty).
    pub job: JobInput,
    /// Storage kept, GB.
    pub storage_gb: f64,
    /// Days kept.
    pub storage_days: f64,
    /// Stop/start cycles.
    pub stops: u32,
    /// Hours per stop.
    pub stop_hours: f64,
    /// Dataset, GB.
    pub data_gb: f64,
    /// Idle hours before noticing.
    pub forgotten_shutdown_hours: f64,
    /// Epochs between checkpoints: the spot quote and the resumable template use the same.
    pub checkpoint_every_epochs: u32,
    /// The situation the plan came from.
    pub situation: Option<SituationInput>,
}

/// A warning with its parameters; the UI words it in the chosen language.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[ts(export_to = "bindings/")]
pub struct WarningView {
    /// Kind (see docs/plans.md).
    pub kind: String,
    /// Parameters by name.
    pub params: std::collections::BTreeMap<String, String>,
}

/// The plan and budget screen.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[ts(export_to = "bindings/")]
pub struct QuoteView {
    /// Platform id.
    pub platform: String,
    /// GPU id.
    pub gpu: String,
    /// Lines: category, label and amount.
    pub lines: Vec<LineView>,
    /// Cash total, exact text.
    pub cash_total: String,
    /// Total with own time.
    pub total: String,
    /// Hours to result.
    pub time_to_result_hours: f64,
    /// Warnings.
    pub warnings: Vec<WarningView>,
    /// Day, cumulative CNY.
    pub timeline: Vec<DayView>,
    /// Cumulative spend against the budget (SVG).
    pub chart_svg: String,
}

/// A bill line.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[ts(export_to = "bindings/")]
pub struct LineView {
    /// Category key.
    pub category: String,
    /// Line key.
    pub key: String,
    /// Description (English; the UI labels by key).
    pub label: String,
    /// Hours behind the line, if time-based.
    pub hours: Option<f64>,
    /// CNY, exact text.
    pub amount: String,
}

/// A day of the timeline.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[ts(export_to = "bindings/")]
pub struct DayView {
    /// Day number.
    pub day: u32,
    /// Date, if the plan has a start date.
    pub date: Option<String>,
    /// Cumulative CNY.
    pub cumulative: f64,
}

/// A saved plan in lists.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[ts(export_to = "bindings/")]
pub struct SavedPlanView {
    /// Id.
    pub id: i32,
    /// Name.
    pub name: String,
    /// Last saved.
    pub updated_at: String,
    /// The plan.
    pub plan: PlanInput,
}

/// A ledger entry as the form sends it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[ts(export_to = "bindings/")]
pub struct LedgerInput {
    /// YYYY-MM-DD.
    pub date: String,
    /// Platform id.
    pub platform: String,
    /// GPU id.
    pub gpu: String,
    /// Hours billed (decimal text).
    pub hours: String,
    /// CNY paid (decimal text).
    pub cost: String,
    /// What went wrong.
    pub problems: String,
    /// Saved plan it belongs to.
    pub plan_id: Option<i32>,
}

/// A ledger entry with plan-versus-actual.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[ts(export_to = "bindings/")]
pub struct LedgerView {
    /// Id.
    pub id: i32,
    /// Date.
    pub date: String,
    /// Platform.
    pub platform: String,
    /// GPU.
    pub gpu: String,
    /// Hours.
    pub hours: String,
    /// CNY paid.
    pub cost: String,
    /// Problems.
    pub problems: String,
    /// Planned CNY, when linked to a plan.
    pub planned_cost: Option<String>,
}

/// The ledger screen.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[ts(export_to = "bindings/")]
pub struct LedgerPage {
    /// Entries, newest first.
    pub entries: Vec<LedgerView>,
    /// Spend by month (SVG).
    pub chart_svg: String,
    /// Total spent.
    pub total: String,
}

/// A generated script.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[ts(export_to = "bindings/")]
pub struct ScriptView {
    /// Stable key (shutdown, slurm, slurm-requeue, probe, offline, resume).
    pub key: String,
    /// File name to save as.
    pub file_name: String,
    /// The script.
    pub text: String,
    /// Notes for the student.
    pub notes: Vec<Text>,
}

/// The before-you-rent screen.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[ts(export_to = "bindings/")]
pub struct KitView {
    /// Checklist tailored to platform and plan.
    pub checklist: Vec<Text>,
    /// Ready-to-paste scripts.
    pub scripts: Vec<ScriptView>,
}

/// What a chart export writes.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
#[ts(export_to = "bindings/")]
pub enum ExportKind {
    /// An SVG chart.
    Svg,
    /// A printable HTML report.
    Html,
    /// CSV.
    Csv,
    /// A script (.sh, .sbatch or .py).
    Script,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fails when `ui/src/bindings/` does not match the Rust types. Regenerate
    /// with `UPDATE_BINDINGS=1 cargo test -p gpuplan-app bindings`. (One test
    /// both checks and writes, so no parallel test rewrites a file while it is
    /// being compared.)
    #[test]
    fn committed_typescript_bindings_are_fresh() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../ui/src/bindings");
        macro_rules! check {
            ($($t:ty),* $(,)?) => {$(
                let name = <$t as TS>::name(&Default::default());
                let want = <$t as TS>::export_to_string(&Default::default()).expect("ts-rs renders the type");
                let path = dir.join(format!("{name}.ts"));
                if std::env::var_os("UPDATE_BINDINGS").is_some() {
                    std::fs::create_dir_all(&dir).expect("bindings dir");
                    std::fs::write(&path, &want).expect("write binding");
                }
                let have = std::fs::read_to_string(&path).unwrap_or_default();
                assert_eq!(have, want, "{} is stale: run `UPDATE_BINDINGS=1 cargo test -p gpuplan-app bindings` and commit ui/src/bindings", path.display());
            )*};
        }
        check!(
            crate::error::AppError,
            Text,
            ModelInfo,
            GpuInfo,
            PlatformInfo,
            Preset,
            CourseInfo,
            AppInfo,
            JobInput,
            Component,
            GpuRow,
            FixView,
            EstimateView,
            SituationInput,
            Money,
            OptionView,
            RuledOutView,
            RecommendationView,
            PlanInput,
            WarningView,
            QuoteView,
            LineView,
            DayView,
            SavedPlanView,
            LedgerInput,
            LedgerView,
            LedgerPage,
            ExportKind,
        );
    }
}
