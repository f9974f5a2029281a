// Typed wrappers over the Tauri commands. The shapes come from Rust
// (src-tauri/src/dto.rs) through the generated bindings in ../bindings.
import { invoke } from "@tauri-apps/api/core";
import type { AppError } from "../bindings/AppError";
import type { AppInfo } from "../bindings/AppInfo";
import type { EstimateView } from "../bindings/EstimateView";
import type { JobInput } from "../bindings/JobInput";
import type { SituationInput } from "../bindings/SituationInput";
import type { RecommendationView } from "../bindings/RecommendationView";
import type { PlanInput } from "../bindings/PlanInput";
import type { QuoteView } from "../bindings/QuoteView";
import type { SavedPlanView } from "../bindings/SavedPlanView";
import type { LedgerInput } from "../bindings/LedgerInput";
import type { LedgerPage } from "../bindings/LedgerPage";
import type { CourseInfo } from "../bindings/CourseInfo";
import type { ExportKind } from "../bindings/ExportKind";
import type { KitView } from "../bindings/KitView";

export type Invoke = (cmd: string, args?: Record<string, unknown>) => Promise<unknown>;

/** The commands, over an injectable `invoke` so UI logic is testable without Tauri. */
export function makeApi(call: Invoke = invoke) {
  return {
    appInfo: () => call("app_info") as Promise<AppInfo>,
    estimate: (job: JobInput, gpu: string | null, lang: string) => call("estimate", { job, gpu, lang }) as Promise<EstimateView>,
    recommend: (situation: SituationInput, job: JobInput, lang: string) =>
      call("recommend", { situation, job, lang }) as Promise<RecommendationView>,
    quote: (plan: PlanInput, lang: string) => call("quote", { plan, lang }) as Promise<QuoteView>,
    savePlan: (id: number | null, plan: PlanInput) => call("save_plan", { id, plan }) as Promise<number>,
    listPlans: () => call("list_plans") as Promise<SavedPlanView[]>,
    deletePlan: (id: number) => call("delete_plan", { id }) as Promise<null>,
    addLedger: (entry: LedgerInput) => call("add_ledger", { entry }) as Promise<number>,
    listLedger: (lang: string) => call("list_ledger", { lang }) as Promise<LedgerPage>,
    getSetting: (key: string) => call("get_setting", { key }) as Promise<string | null>,
    setSetting: (key: string, value: string) => call("set_setting", { key, value }) as Promise<null>,
    exportFile: (path: string, kind: ExportKind, content: string) => call("export_file", { path, kind, content }) as Promise<null>,
    importPack: (path: string) => call("import_pack", { path }) as Promise<CourseInfo>,
    setOverride: (platform: string, gpu: string, price: string, note: string) => call("set_override", { platform, gpu, price, note }) as Promise<null>,
    exportPng: (path: string, svg: string) => call("export_png", { path, svg }) as Promise<null>,
    kit: (plan: PlanInput, command: string) => call("kit", { plan, command }) as Promise<KitView>,
  };
}

export type Api = ReturnType<typeof makeApi>;

/** Whether a thrown value is the app's tagged error. */
export function isAppError(e: unknown): e is AppError {
  return typeof e === "object" && e !== null && "kind" in e && "detail" in e;
}
