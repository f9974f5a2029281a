//! Tauri commands: adapters from IPC to one use case each. Arguments arrive
//! as core and use-case types; errors leave as [`AppError`].

use gpuplan_core::job::JobSpec;
use gpuplan_core::plan::Plan;
use gpuplan_core::recommend::Situation;
use gpuplan_usecases::userdata::ImportedRun;
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
        .planner()
        .estimate_view(&job, gpu.as_deref(), platform.as_deref())
}

/// Ranked platform x GPU options (step 4).
#[tauri::command]
pub async fn recommend(
    state: State<'_, AppState>,
    situation: Situation,
) -> Res<RecommendationView> {
    state.planner().recommend_view(&situation)
}

/// Prices a plan (step 5).
#[tauri::command]
pub async fn quote(state: State<'_, AppState>, plan: Plan) -> Res<QuoteView> {
    state.planner().quote_view(&plan)
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

/// Deletes a saved plan.
#[tauri::command]
pub fn delete_plan(state: State<'_, AppState>, id: i64) -> Res<()> {
    state.planner().delete_plan(id)
}

/// Deletes a ledger entry.
#[tauri::command]
pub fn delete_ledger(state: State<'_, AppState>, id: i64) -> Res<()> {
    state.planner().delete_ledger(id)
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

/// Imports the run report the user picks into the ledger; `None` when the
/// dialog was cancelled.
#[tauri::command]
pub async fn import_report(app: AppHandle, state: State<'_, AppState>) -> Res<Option<ImportedRun>> {
    let Some(path) = crate::export::pick_report(&app)? else {
        return Ok(None);
    };
    state.planner().import_report_file(&path, None).map(Some)
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
