// Typed wrappers over the Tauri commands. Every shape comes from Rust through
// the generated bindings in ../bindings (core and use-case types).
import { invoke } from "@tauri-apps/api/core";
import { getCurrentWindow } from "@tauri-apps/api/window";
import type { AppError } from "../bindings/AppError";
import type { AppInfo } from "../bindings/AppInfo";
import type { EstimateView } from "../bindings/EstimateView";
import type { JobSpec } from "../bindings/JobSpec";
import type { Situation } from "../bindings/Situation";
import type { Plan } from "../bindings/Plan";
import type { RecommendationView } from "../bindings/RecommendationView";
import type { OfferOption } from "../bindings/OfferOption";
import type { Payment } from "../bindings/Payment";
import type { QuoteView } from "../bindings/QuoteView";
import type { SavedPlanRow } from "../bindings/SavedPlanRow";
import type { DeletedPlan } from "../bindings/DeletedPlan";
import type { LedgerInput } from "../bindings/LedgerInput";
import type { LedgerPage } from "../bindings/LedgerPage";
import type { ExportKind } from "../bindings/ExportKind";
import type { KitView } from "../bindings/KitView";
import type { OverrideRow } from "../bindings/OverrideRow";
import type { PackRow } from "../bindings/PackRow";
import type { ImportedRunView } from "../bindings/ImportedRunView";
import type { DeletedBill } from "../bindings/DeletedBill";
import type { VersusView } from "../bindings/VersusView";
import type { CalibrationView } from "../bindings/CalibrationView";

export type Invoke = (cmd: string, args?: Record<string, unknown>) => Promise<unknown>;
/** A request to close the window; `preventDefault` keeps it open. */
export type CloseRequest = { preventDefault(): void };
/**
 * Registers what runs when the student closes the window (the title bar's
 * close, Alt+F4): the window closes after it unless it prevented that.
 */
export type OnClose = (handler: (e: CloseRequest) => Promise<void>) => Promise<() => void>;

const windowClose: OnClose = async (handler) => getCurrentWindow().onCloseRequested(handler);

/** The commands, over an injectable `invoke` so UI logic is testable without Tauri. */
export function makeApi(call: Invoke = invoke, onClose: OnClose = windowClose) {
  return {
    onClose,
    appInfo: () => call("app_info") as Promise<AppInfo>,
    estimate: (job: JobSpec, gpu: string | null, platform: string | null) => call("estimate", { job, gpu, platform }) as Promise<EstimateView>,
    /** Ranked options: the first ten, or every one when `all`. */
    recommend: (situation: Situation, all = false) => call("recommend", { situation, all }) as Promise<RecommendationView>,
    /** The situation's option on one offer (the plan screen's card changed after an option was chosen). */
    offerOption: (situation: Situation, platform: string, gpu: string, payment: Payment) => call("offer_option", { situation, platform, gpu, payment }) as Promise<OfferOption>,
    quote: (plan: Plan) => call("quote", { plan }) as Promise<QuoteView>,
    kit: (plan: Plan, command: string) => call("kit", { plan, command }) as Promise<KitView>,
    savePlan: (id: number | null, plan: Plan, situation: Situation | null) => call("save_plan", { id, plan, situation }) as Promise<number>,
    listPlans: () => call("list_plans") as Promise<SavedPlanRow[]>,
    /** Deletes a plan; what comes back puts it back as it was (undo). */
    deletePlan: (id: number) => call("delete_plan", { id }) as Promise<DeletedPlan>,
    restorePlan: (plan: DeletedPlan) => call("restore_plan", { plan }) as Promise<number>,
    /** Deletes a bill; what comes back puts it back whole (undo). */
    deleteLedger: (id: number) => call("delete_ledger", { id }) as Promise<DeletedBill>,
    restoreLedger: (bill: DeletedBill) => call("restore_ledger", { bill }) as Promise<number>,
    /** Opens the native dialog in Rust and imports the chosen run report; null when cancelled. */
    importReport: () => call("import_report") as Promise<ImportedRunView | null>,
    /** Imports the text of a run report dropped on the ledger (the web view never sees its path). */
    importReportText: (name: string, text: string) => call("import_report_text", { name, text }) as Promise<ImportedRunView>,
    runVersus: (id: number) => call("run_versus", { id }) as Promise<VersusView>,
    calibration: () => call("calibration") as Promise<CalibrationView>,
    setCalibration: (on: boolean) => call("set_calibration", { on }) as Promise<CalibrationView>,
    /** Asks where to save (in Rust) and writes the anonymised measured runs; the path, or null when cancelled. */
    exportMeasuredRuns: () => call("export_measured_runs") as Promise<string | null>,
    addLedger: (entry: LedgerInput) => call("add_ledger", { entry }) as Promise<number>,
    listLedger: () => call("list_ledger") as Promise<LedgerPage>,
    getSetting: (key: string) => call("get_setting", { key }) as Promise<string | null>,
    setSetting: (key: string, value: string) => call("set_setting", { key, value }) as Promise<null>,
    setOverride: (platform: string, gpu: string, price: string, note: string) => call("set_override", { platform, gpu, price, note }) as Promise<OverrideRow>,
    listOverrides: () => call("list_overrides") as Promise<OverrideRow[]>,
    /** Opens the native dialog in Rust and imports the chosen pack; null when cancelled. */
    importPack: () => call("import_pack") as Promise<AppInfo | null>,
    listPacks: () => call("list_packs") as Promise<PackRow[]>,
    removePack: (name: string) => call("remove_pack", { name }) as Promise<null>,
    /** Asks where to save (the native dialog, opened in Rust) and writes there; the written path, or null when cancelled. */
    exportFile: (kind: ExportKind, fileName: string, content: string) => call("export_file", { kind, fileName, content }) as Promise<string | null>,
    exportPng: (fileName: string, svg: string) => call("export_png", { fileName, svg }) as Promise<string | null>,
  };
}

export type Api = ReturnType<typeof makeApi>;

/** Whether a thrown value is the app's tagged error. */
export function isAppError(e: unknown): e is AppError {
  return typeof e === "object" && e !== null && "kind" in e && "detail" in e;
}
