// A stand-in for the Rust side in component tests: the api module over a
// fake `invoke` that keeps saved plans and bills in memory and prices a plan
// as 10 CNY per run (so a change of runs shows in the total). Every call is
// recorded, so a test can say what the UI asked for.
import { vi } from "vitest";
import { makeApi, type CloseRequest } from "../lib/api";
import { initI18n } from "../lib/i18n";
import { AppStore } from "../lib/store/app.svelte";
import type { AppInfo } from "../bindings/AppInfo";
import type { Plan } from "../bindings/Plan";
import type { JobSpec } from "../bindings/JobSpec";
import type { QuoteView } from "../bindings/QuoteView";
import type { SavedPlanRow } from "../bindings/SavedPlanRow";
import type { Situation } from "../bindings/Situation";
import type { EstimateView } from "../bindings/EstimateView";
import type { RankedOption } from "../bindings/RankedOption";
import type { LedgerRow } from "../bindings/LedgerRow";
import type { LedgerInput } from "../bindings/LedgerInput";
import type { Message } from "../bindings/Message";

const job: JobSpec = {
  model: "resnet18-cifar", hours: null, batch: null, resolution: null, seq_len: null, classes: null, precision: null, optimizer: null, mode: null,
  lora_rank: null, lora_targets: null, grad_checkpointing: null, dataset_samples: null, epochs: null,
};

export const plan0: Plan = {
  version: 1, name: "", platform: "autodl", gpu: "rtx3090", budget: "150", start_date: null, student: true, payment: "on-demand",
  own_time_per_hour: "0", forgotten_shutdown_hours: "1", setup_hours: "0.25", job, run: [{ name: "run", count: 1, hours: null, epochs: null }],
  debug: null, data: null, storage: { gb: "20", days: null, on: "instance" }, stops: null, spot: null, prices: {} as Plan["prices"],
};

const situation0: Situation = {
  stage: "course-project", budget: "150", deadline_hours: null, linux: true, slurm: false, mainland_china: true, needs_persistence: false,
  campus_access: false, interruptible: false, student: true, job, runs: 1, storage_gb: "20",
};

const limit = (field: string, min: number, max: number, integer = false, min_exclusive = false) => ({ field, min, max, integer, min_exclusive });

export const info: AppInfo = {
  models: [
    { id: "resnet18-cifar", name: "ResNet-18 (CIFAR)", family: "vision", params_m: 11.2, max_positions: null, attention: [] },
    { id: "vit-b-16", name: "ViT-B/16", family: "vision", params_m: 86.6, max_positions: null, attention: ["eager", "sdpa"] },
    { id: "llama-2-7b", name: "Llama 2 7B", family: "decoder", params_m: 6738, max_positions: 4096, attention: ["eager", "sdpa", "flash"] },
  ],
  gpus: [
    { id: "rtx3090", name: "NVIDIA GeForce RTX 3090", vram_gib: 24, bf16: true },
    { id: "rtx4090", name: "NVIDIA GeForce RTX 4090", vram_gib: 24, bf16: true },
  ],
  platforms: [{ id: "autodl", name: { zh: "AutoDL", en: "AutoDL" }, kind: "container-cloud", gpus: ["rtx3090", "rtx4090"], spot_gpus: [], facts: [], newcomer_terms: null }],
  presets: [
    { key: "resnet18-cifar", name: { zh: "ResNet-18", en: "ResNet-18" }, job: { ...job, batch: 128, epochs: 50 }, runs: 1 },
    { key: "llama7b-lora", name: { zh: "7B LoRA", en: "7B LoRA" }, job: { ...job, model: "llama-2-7b", mode: "lora", batch: 4 }, runs: 3 },
  ],
  course: null,
  defaults: { situation: situation0, plan: plan0, command: "python train.py", upload_mbps: 20, batch_slider_max: 512, report_max_bytes: 65536 },
  choices: { stage: ["first-demo", "course-project"], precision: ["fp32", "bf16"], optimizer: ["adamw", "sgd"], mode: ["train", "lora"], dataset: ["in-memory"], attention: ["sdpa"], engine: ["ddp"] },
  limits: [limit("budget", 0, 10000000), limit("runs", 1, 1000, true), limit("deadline_hours", 0, 87600, false, true), limit("batch", 1, 65536, true), limit("job.hours", 0, 87600, false, true), limit("storage.gb", 0, 100000), limit("price", 0, 10000)],
  notices: [],
  read_only: null,
  memory_parts: ["weights", "gradients", "optimizer", "activations", "logits", "kv_cache", "workspace", "allocator", "context"],
  accuracy: {
    classes: [{ class: "ampere-consumer", figures: { runs: 22, median_abs_error: 0.073, median_signed_error: -0.031, meets_bar: true } }],
    one_node: { runs: 39, median_abs_error: 0.133, median_signed_error: -0.042, meets_bar: false },
    several_nodes: null,
    all: { runs: 117, median_abs_error: 0.112, median_signed_error: 0.007, meets_bar: false },
    publishers: 8,
    memory: [{ mode: "lora", figures: { runs: 4, median_error: 0.089, median_abs_error: 0.089, worst_error: 0.025 } }],
    multi_gpu_memory: { runs: 4, median_error: 0.029, median_abs_error: 0.029, worst_error: -0.007 },
  },
} as unknown as AppInfo;

const chart = { zh: "<svg/>", en: "<svg/>" };

/** The fake's quote: 10 CNY per run, with the budget warning when over. */
export function fakeQuote(plan: Plan): QuoteView {
  const runs = plan.run.length ? plan.run.reduce((n, r) => n + r.count, 0) : 1;
  const total = (10 * runs).toFixed(2);
  const over = plan.budget !== null && Number(total) > Number(plan.budget);
  const warnings: Message[] = over ? [{ key: "warning.budget-exceeded", params: { total, budget: plan.budget! } }] : [];
  return {
    quote: {
      plan: plan.name, platform: plan.platform, gpu: plan.gpu, price_per_hour: "1.0000",
      lines: [{ category: "gpu-compute", kind: "runs", params: { count: String(runs), name: "run", time_s: "3600", gpu: plan.gpu }, hours: "1", amount: total }],
      by_category: { "gpu-compute": total }, cash_total: total, total, run_hours: "1", longest_run_hours: "1", longest_run_seconds: "3600",
      time_to_result_hours: "1", time: { waiting: "0", setup: "0.25", running: "1", reruns: "0", gaps: "0", total: "1.25" },
      time_seconds: { waiting: "0", setup: "900", running: "3600", reruns: "0", gaps: "0", total: "4500" },
      run_parts: null, calibration: null, spot: null, packages: null, timeline: [], warnings: [], unverified: { amount: "0", percent: 0, figures: [], noted: false },
      prices_observed: "2026-01-01",
      prices_oldest: "price-per-hour",
    },
    warnings, chart, run_parts: [], prices: { observed: "2026-01-01", days: 334, stale: true, pack: null, figure: "price-per-hour", own_price_refreshes: true },
  } as unknown as QuoteView;
}

export function fakeEstimate(): EstimateView {
  const fit = (id: string, verdict: string) => ({ id, name: id, vram_gib: 24, verdict, uncalibrated_verdict: null, max_batch: verdict === "fits" ? 256 : 0, step_seconds: 0.05, epoch_seconds: 10, run_seconds: 500, bound: null });
  return {
    report: {
      schema: 1, model: "resnet18-cifar", model_name: "ResNet-18", job: { batch: 128, resolution: 32, seq_len: 512, classes: 10, precision: "fp32", optimizer: "sgd", mode: "train", lora_rank: 16, epochs: 50, dataset_samples: 50000, height: 32, dataset: "in-memory", num_workers: 4, eval_every_epochs: 1, val_samples: 10000, save_every_epochs: 0, gpus: 1, engine: "ddp", attention: "sdpa" },
      params: 1, trainable_params: 1, peak_gib: 3.21, model_peak_gib: 3.21, calibration: null, phase: "backward", components: { weights: 0.1 },
      gpus: [fit("rtx3090", "fits"), fit("tiny", "does-not-fit")], gpu: null, step_seconds: null, target_gpu: "rtx3090", run: null,
      host: { vcpus: 8, ram_gb: 32, disk: "ssd" }, fixes: [], parallel: null, fits_with: null,
    },
    chart, run_chart: null, run_parts: [],
    accuracy: { key: "accuracy.line", params: { class: "enum.card-class.ampere-consumer", runs: "22", error: "7.3", bias: "-3.1", reading: "enum.bias.slightly-fast", verdict: "enum.bar.meets" } },
  } as unknown as EstimateView;
}

export function fakeOption(over: Partial<RankedOption> = {}): RankedOption {
  const q = fakeQuote(plan0);
  return {
    platform: "autodl", platform_name: { zh: "AutoDL", en: "AutoDL" }, kind: "container-cloud", gpu: "rtx3090", gpu_name: "RTX 3090 24 GB", payment: "on-demand",
    time_to_result_hours: "1", cost: q.quote.cash_total, score: 0, cost_points: 0, time_points: 0, risk: 0, hassle: 0, fit: "fits", fix: null, badges: [], reasons: [], watch_out: [], pitfalls: [],
    quote: q.quote, layout: null, plan: { ...plan0 }, ...over,
  } as RankedOption;
}

/** A fake backend; `calls` records every command with its arguments. */
export function fakeBackend() {
  const plans = new Map<number, SavedPlanRow>();
  const bills = new Map<number, LedgerRow>();
  const settings = new Map<string, string>();
  let nextId = 1;
  const calls: { cmd: string; args: Record<string, unknown> }[] = [];
  let options: RankedOption[] = [fakeOption()];
  let estimate: () => EstimateView = fakeEstimate;
  const handlers: Record<string, (a: Record<string, unknown>) => unknown> = {
    app_info: () => structuredClone(info),
    get_setting: (a) => settings.get(String(a.key)) ?? null,
    set_setting: (a) => {
      settings.set(String(a.key), String(a.value));
      return null;
    },
    // Like Rust: the estimator times a model, never a job given in hours.
    estimate: (a) => {
      const j = a.job as JobSpec;
      if (j.hours) throw { kind: "input", detail: { field: "hours", message: "hours belong in a plan", allowed: "", said: { message: { key: "error.hoursNotEstimated", params: {} }, allowed: { key: "allowed.omitHours", params: {} } } } };
      if (!j.model) throw { kind: "input", detail: { field: "model", message: "no model given", allowed: "", said: { message: { key: "error.noModel", params: {} }, allowed: null } } };
      return estimate();
    },
    recommend: (a) => ({ recommendation: { options: a.all ? options : options.slice(0, 10), ruled_out: [], fixes: [], fixes_for: null }, more: a.all ? 0 : Math.max(0, options.length - 10), chart }),
    // Like Rust: the best option on that offer, else why it is ruled out.
    offer_option: (a) => {
      const option = options.find((o) => o.platform === a.platform && o.gpu === a.gpu && o.payment === a.payment) ?? null;
      return { option, ruled_out: option ? null : { key: "ruled.does-not-fit", params: {} } };
    },
    quote: (a) => fakeQuote(a.plan as Plan),
    kit: () => ({ checklist: [{ key: "checklist.release", params: {} }, { key: "checklist.certify", params: {} }], scripts: [] }),
    save_plan: (a) => {
      const p = a.plan as Plan;
      const id = (a.id as number | null) ?? nextId++;
      if (a.id !== null && !plans.has(id)) throw { kind: "input", detail: { field: "id", message: `no saved plan ${id}`, allowed: "", said: { message: { key: "error.noSuchPlan", params: { id: String(id) } }, allowed: null } } };
      plans.set(id, { id, name: p.name.trim() || `${p.platform}-${p.gpu}`, updated_at: new Date(Date.UTC(2026, 10, id)).toISOString(), plan: p, situation: a.situation as Situation, error: null, toml: "" });
      return id;
    },
    list_plans: () => [...plans.values()],
    delete_plan: (a) => {
      const id = a.id as number;
      const row = plans.get(id);
      if (!row) throw { kind: "input", detail: { field: "id", message: `no saved plan ${id}`, allowed: "", said: { message: { key: "error.noSuchPlan", params: { id: String(id) } }, allowed: null } } };
      plans.delete(id);
      // The row rides along (as JSON in the body) so restore puts back the same plan.
      return { id, name: row.name, body: JSON.stringify(row), format: "toml", situation: null, created_at: "", updated_at: row.updated_at, ledger_ids: [] };
    },
    restore_plan: (a) => {
      const d = a.plan as { id: number; body: string };
      const id = plans.has(d.id) ? nextId++ : d.id;
      plans.set(id, { ...(JSON.parse(d.body) as SavedPlanRow), id });
      return id;
    },
    list_packs: () => [],
    list_ledger: () => ({ entries: [...bills.values()], chart, total: [...bills.values()].reduce((n, b) => n + Number(b.cost), 0).toFixed(2) }),
    add_ledger: (a) => {
      const e = a.entry as LedgerInput;
      const id = nextId++;
      bills.set(id, { id, date: e.date, platform: e.platform, gpu: e.gpu, hours: e.hours, cost: e.cost, problems: e.problems, note: [], plan_id: e.plan_id, planned_cost: null, has_report: false });
      return id;
    },
    delete_ledger: (a) => {
      const b = bills.get(a.id as number)!;
      bills.delete(b.id);
      return { entry: { ...b }, report: null, measured_run: null };
    },
    restore_ledger: (a) => handlers.add_ledger({ entry: (a.bill as { entry: LedgerInput }).entry }),
    calibration: () => ({ enabled: true, own_runs: 0, class_runs: 0, set_aside: 0, rows: [] }),
    export_file: () => "/tmp/out",
    set_override: () => ({}),
  };
  const invoke = vi.fn(async (cmd: string, args: Record<string, unknown> = {}) => {
    calls.push({ cmd, args: JSON.parse(JSON.stringify(args)) });
    const h = handlers[cmd];
    if (!h) throw new Error(`no fake for ${cmd}`);
    return h(args);
  });
  // The window's close handler, as App registers it: `close()` plays the
  // title bar's close and says whether the window closed.
  let closeHandler: ((e: CloseRequest) => Promise<void>) | null = null;
  const onClose = async (h: (e: CloseRequest) => Promise<void>) => {
    closeHandler = h;
    return () => (closeHandler = null);
  };
  const close = async (): Promise<boolean> => {
    let kept = false;
    await closeHandler?.({ preventDefault: () => (kept = true) });
    return !kept;
  };
  return {
    api: makeApi(invoke, onClose),
    close,
    closeListened: () => closeHandler !== null,
    invoke,
    calls,
    plans,
    bills,
    setOptions: (o: RankedOption[]) => (options = o),
    setEstimate: (e: () => EstimateView) => (estimate = e),
    count: (cmd: string) => calls.filter((c) => c.cmd === cmd).length,
    last: (cmd: string) => calls.filter((c) => c.cmd === cmd).at(-1)?.args,
  };
}

/** A started store over a fake backend, in `lang`. */
export async function startedStore(lang = "en") {
  const backend = fakeBackend();
  await initI18n(lang);
  const app = new AppStore(backend.api);
  app.lang = lang;
  app.start(structuredClone(info));
  app.ready = true;
  return { app, backend };
}
