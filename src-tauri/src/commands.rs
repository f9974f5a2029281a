//! Tauri commands: adapters from IPC to one use case each. Arguments arrive
//! as core and use-case types; errors leave as [`AppError`].

use gpuplan_core::job::JobSpec;
use gpuplan_core::plan::{Payment, Plan};
use gpuplan_core::recommend::Situation;
use gpuplan_core::report::MAX_REPORT_BYTES;
use gpuplan_usecases::calibration::CalibrationView;
use gpuplan_usecases::views::*;
use gpuplan_usecases::AppError;
use tauri::{AppHandle, State};

use crate::dto::ExportKind;
use crate::state::AppState;

type Res<T> = Result<T, AppError>;

/// Start-up data: models, cards, platforms, presets, the course, defaults.
#[tauri::command]
pub fn app_info(state: State<'_, AppState>) -> Res<AppInfo> {
    state.planner().info()
}

/// Memory and time of a job on every card, timed on a platform's host (step 3).
#[tauri::command]
pub async fn estimate(
    state: State<'_, AppState>,
    job: JobSpec,
    gpu: Option<String>,
    platform: Option<String>,
) -> Res<EstimateView> {
    state
        .snapshot()?
        .estimate_view(&job, gpu.as_deref(), platform.as_deref())
}

/// Ranked platform x GPU options (step 4): the first ten, or all.
#[tauri::command]
pub async fn recommend(
    state: State<'_, AppState>,
    situation: Situation,
    all: bool,
) -> Res<RecommendationView> {
    state.snapshot()?.recommend_view_of(&situation, all)
}

/// The situation's option on one offer: the plan screen's card, platform
/// or payment changed after an option was chosen (step 5).
#[tauri::command]
pub async fn offer_option(
    state: State<'_, AppState>,
    situation: Situation,
    platform: String,
    gpu: String,
    payment: Payment,
) -> Res<OfferOption> {
    state
        .snapshot()?
        .offer_option(&situation, (&platform, &gpu, payment))
}

/// Prices a plan (step 5).
#[tauri::command]
pub async fn quote(state: State<'_, AppState>, plan: Plan) -> Res<QuoteView> {
    state.snapshot()?.quote_view(&plan)
}

/// The before-you-rent kit for a plan (step 6).
#[tauri::command]
pub async fn kit(state: State<'_, AppState>, plan: Plan, command: String) -> Res<KitView> {
    state.planner().kit(&plan, &command)
}

/// Saves a plan (new when `id` is empty); returns its id.
#[tauri::command]
pub fn save_plan(
    state: State<'_, AppState>,
    id: Option<i64>,
    plan: Plan,
    situation: Option<Situation>,
) -> Res<i64> {
    state.planner().save_plan(id, &plan, situation.as_ref())
}

/// Saved plans, newest first, each with its error if it no longer validates.
#[tauri::command]
pub fn list_plans(state: State<'_, AppState>) -> Res<Vec<SavedPlanRow>> {
    state.planner().plans()
}

/// Deletes a saved plan; returns what undo puts back.
#[tauri::command]
pub fn delete_plan(state: State<'_, AppState>, id: i64) -> Res<DeletedPlan> {
    state.planner().delete_plan(id)
}

/// Puts a deleted plan back as it was (undo); returns its id.
#[tauri::command]
pub fn restore_plan(state: State<'_, AppState>, plan: DeletedPlan) -> Res<i64> {
    state.planner().restore_plan(&plan)
}

/// Deletes a ledger entry.
#[tauri::command]
pub fn delete_ledger(state: State<'_, AppState>, id: i64) -> Res<DeletedBill> {
    state.planner().delete_ledger(id)
}

/// Puts a deleted bill back (undo), with its run report.
#[tauri::command]
pub fn restore_ledger(state: State<'_, AppState>, bill: DeletedBill) -> Res<i64> {
    state.planner().restore_ledger(&bill)
}

/// Adds a real bill to the ledger.
#[tauri::command]
pub fn add_ledger(state: State<'_, AppState>, entry: LedgerInput) -> Res<i64> {
    state.planner().add_ledger(&entry)
}

/// The ledger with its month chart.
#[tauri::command]
pub fn list_ledger(state: State<'_, AppState>) -> Res<LedgerPage> {
    state.planner().ledger()
}

/// Reads a setting.
#[tauri::command]
pub fn get_setting(state: State<'_, AppState>, key: String) -> Res<Option<String>> {
    state.planner().setting(&key)
}

/// Writes a setting (language, last step).
#[tauri::command]
pub fn set_setting(state: State<'_, AppState>, key: String, value: String) -> Res<()> {
    state.planner().set_setting(&key, &value)
}

/// Keeps the user's own price for a GPU on a platform.
#[tauri::command]
pub fn set_override(
    state: State<'_, AppState>,
    platform: String,
    gpu: String,
    price: String,
    note: String,
) -> Res<OverrideRow> {
    state.planner().set_override(&platform, &gpu, &price, &note)
}

/// The user's price overrides.
#[tauri::command]
pub fn list_overrides(state: State<'_, AppState>) -> Res<Vec<OverrideRow>> {
    state.planner().overrides()
}

/// Imports the course pack the user picks in the open dialog; returns the
/// new start-up data, or `None` when the dialog was cancelled.
#[tauri::command]
pub async fn import_pack(app: AppHandle, state: State<'_, AppState>) -> Res<Option<AppInfo>> {
    let Some(path) = crate::export::pick_pack(&app)? else {
        return Ok(None);
    };
    let mut planner = state.planner();
    planner.import_pack_file(&path)?;
    planner.info().map(Some)
}

/// Imports the run report the user picks into the ledger, with plan versus
/// actual; `None` when the dialog was cancelled.
#[tauri::command]
pub async fn import_report(
    app: AppHandle,
    state: State<'_, AppState>,
) -> Res<Option<ImportedRunView>> {
    let Some(path) = crate::export::pick_report(&app)? else {
        return Ok(None);
    };
    let text = gpuplan_usecases::files::read_text(&path, "report", MAX_REPORT_BYTES as u64)?;
    state
        .planner()
        .import_report_view(&path.display().to_string(), &text)
        .map(Some)
}

/// Imports a run report dropped on the ledger: the web view read the
/// dropped file's text (it never learns its path); `name` is only for
/// messages.
#[tauri::command]
pub fn import_report_text(
    state: State<'_, AppState>,
    name: String,
    text: String,
) -> Res<ImportedRunView> {
    let name: String = name.chars().filter(|c| !c.is_control()).take(100).collect();
    state.planner().import_report_view(&name, &text)
}

/// Plan versus actual for a ledger entry imported from a run report.
#[tauri::command]
pub fn run_versus(state: State<'_, AppState>, id: i64) -> Res<VersusView> {
    state.planner().run_versus(id)
}

/// What measured runs taught the estimator, and whether it applies it.
#[tauri::command]
pub fn calibration(state: State<'_, AppState>) -> Res<CalibrationView> {
    state.planner().calibration()
}

/// Turns calibration from measured runs on or off.
#[tauri::command]
pub fn set_calibration(state: State<'_, AppState>, on: bool) -> Res<CalibrationView> {
    let mut planner = state.planner();
    planner.set_calibration(on)?;
    planner.calibration()
}

/// Asks where to save the student's anonymised measured runs and writes
/// them there; the path, or `None` when cancelled.
#[tauri::command]
pub async fn export_measured_runs(
    app: AppHandle,
    state: State<'_, AppState>,
) -> Res<Option<String>> {
    let text = state.planner().export_measured_runs()?;
    crate::export::save_with_dialog(&app, ExportKind::Runs, "gpuplan-runs.json", text.as_bytes())
}

/// Imported course packs.
#[tauri::command]
pub fn list_packs(state: State<'_, AppState>) -> Res<Vec<PackRow>> {
    state.planner().packs()
}

/// Removes an imported course pack.
#[tauri::command]
pub fn remove_pack(state: State<'_, AppState>, name: String) -> Res<()> {
    state.planner().remove_pack(&name)
}

/// Asks where to save and writes the export there; returns the path, or
/// `None` when the dialog was cancelled.
#[tauri::command]
pub async fn export_file(
    app: AppHandle,
    kind: ExportKind,
    file_name: String,
    content: String,
) -> Res<Option<String>> {
    crate::export::save_with_dialog(&app, kind, &file_name, content.as_bytes())
}

/// Renders a chart to PNG, asks where to save it and writes it there.
#[tauri::command]
pub async fn export_png(app: AppHandle, file_name: String, svg: String) -> Res<Option<String>> {
    let png = crate::export::svg_to_png(&svg)?;
    crate::export::save_with_dialog(&app, ExportKind::Png, &file_name, &png)
}
