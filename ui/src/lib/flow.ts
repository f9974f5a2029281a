// The flow's pure logic: step navigation, the plan form's fields over the
// Rust `Plan`, formatting and exports (error text: messages.ts). No Tauri, no DOM:
// unit-tested with Vitest. Defaults come from Rust (`AppInfo.defaults`).
import type { Plan } from "../bindings/Plan";
import type { Chart } from "../bindings/Chart";
import type { FieldLimit } from "../bindings/FieldLimit";
import type { ImportedRun } from "../bindings/ImportedRun";
import { NUMBER, normalizeNumber, type UnitKind } from "./numbers";

export const STEPS = ["situation", "job", "memory", "options", "plan", "before"] as const;
export type Step = (typeof STEPS)[number];

export function nextStep(s: Step): Step {
  const i = STEPS.indexOf(s);
  return STEPS[Math.min(i + 1, STEPS.length - 1)];
}

export function prevStep(s: Step): Step {
  const i = STEPS.indexOf(s);
  return STEPS[Math.max(i - 1, 0)];
}

/** The plan screen's fields as the user types them (text), over a `Plan`. */
export type PlanForm = {
  runs: string;
  hours: string;
  storageGb: string;
  storageDays: string;
  stops: string;
  stopHours: string;
  dataGb: string;
  forgotten: string;
  checkpoint: string;
  budget: string;
};

const text = (v: string | number | null | undefined): string => (v === null || v === undefined ? "" : String(v));

/** The form showing `plan`. */
export function formOf(plan: Plan): PlanForm {
  return {
    runs: text(plan.run.reduce((n, r) => n + r.count, 0) || 1),
    hours: text(plan.job.hours),
    storageGb: text(plan.storage?.gb ?? "0"),
    storageDays: text(plan.storage?.days ?? ""),
    stops: text(plan.stops?.count ?? 0),
    stopHours: text(plan.stops?.hours_each ?? "0"),
    dataGb: text(plan.data?.size_gb ?? "0"),
    forgotten: text(plan.forgotten_shutdown_hours),
    checkpoint: text(plan.spot?.checkpoint_every_epochs ?? (plan.spot?.checkpoint_every_hours ? "" : "5")),
    budget: text(plan.budget),
  };
}

/** The catalog key Rust names a plan's unnamed run group with (`quote::schedule::DEFAULT_GROUP`). */
export const UNNAMED_GROUP = "enum.group.run";

const positive = (s: string): boolean => s.trim() !== "" && Number(s) > 0;
const orZero = (s: string): string => (s.trim() === "" ? "0" : s.trim());

/**
 * The plan the form describes. Numbers stay text: Rust parses them as exact
 * decimals and names the field when one is wrong.
 */
export function applyForm(plan: Plan, f: PlanForm, uploadMbps = ""): Plan {
  const runs = Math.round(Number(f.runs));
  return {
    ...plan,
    budget: f.budget.trim() === "" ? null : f.budget.trim(),
    forgotten_shutdown_hours: orZero(f.forgotten),
    job: { ...plan.job, hours: f.hours.trim() === "" ? null : f.hours.trim(), model: f.hours.trim() === "" ? plan.job.model : null },
    // A plan with several run groups (from a plan file) keeps them; the form
    // edits the count of a single group.
    // One run of a plan that lists none stays unlisted (Rust names that
    // group in the reader's language); more runs get a group named by the
    // same catalog key, never an English word.
    run: plan.run.length > 1 ? plan.run
      : plan.run.length === 0 && runs === 1 ? []
      : [{ ...(plan.run[0] ?? { name: UNNAMED_GROUP, hours: null, minutes: null, epochs: null }), count: Number.isFinite(runs) ? runs : 0 }],
    storage: positive(f.storageGb) ? { gb: f.storageGb.trim(), days: f.storageDays.trim() === "" ? null : f.storageDays.trim(), on: plan.storage?.on ?? "instance" } : null,
    stops: positive(f.stops) ? { count: Math.round(Number(f.stops)), hours_each: orZero(f.stopHours) } : null,
    data: positive(f.dataGb) ? { size_gb: f.dataGb.trim(), upload_mbps: plan.data?.upload_mbps ?? uploadMbps, download_gb: plan.data?.download_gb ?? null } : null,
    // An interval typed here is in epochs and replaces the plan's own; left
    // empty, the plan keeps whichever interval it had (an option chosen on
    // the Options screen checkpoints every hour).
    spot: plan.payment === "spot"
      ? f.checkpoint.trim() === ""
        ? { checkpoint_every_hours: null, checkpoint_every_epochs: null, preemptions_per_day: "2", restart_minutes: "5", ...plan.spot }
        : { ...(plan.spot ?? { preemptions_per_day: "2", restart_minutes: "5" }), checkpoint_every_hours: null, checkpoint_every_epochs: f.checkpoint.trim() }
      : null,
  };
}

export { normalizeNumber, parseNumber, firstLanguage, NUMBER, type UnitKind } from "./numbers";
export { said, errorText, factorPct, calibrationNote, unverifiedNote } from "./messages";

/** CNY for the language: "¥16.00" in zh-CN, "CN¥16.00" in en. */
export function formatCny(amount: string | number, lang: string): string {
  const n = typeof amount === "number" ? amount : Number(amount);
  return new Intl.NumberFormat(lang === "zh" ? "zh-CN" : "en-US", { style: "currency", currency: "CNY", minimumFractionDigits: 2 }).format(n);
}

export function formatDuration(seconds: number | null, lang: string): string {
  if (seconds === null || !Number.isFinite(seconds)) return "-";
  const zh = lang === "zh";
  // Nothing at all still has its unit, as the CLI says it ("0 s", "0 秒").
  if (seconds === 0) return `0 ${zh ? "秒" : "s"}`;
  if (seconds < 1) return `${(seconds * 1000).toFixed(0)} ${zh ? "毫秒" : "ms"}`;
  if (seconds < 60) return `${seconds.toFixed(seconds < 10 ? 2 : 1)} ${zh ? "秒" : "s"}`;
  if (seconds < 3600) return `${(seconds / 60).toFixed(1)} ${zh ? "分钟" : "min"}`;
  return `${(seconds / 3600).toFixed(1)} ${zh ? "小时" : "h"}`;
}

/** Where the time to the last result goes, as Rust counts it to the second. */
export type TimeSeconds = { waiting: string; setup: string; running: string; reruns: string; gaps: string; total: string };
export type TimePart = Exclude<keyof TimeSeconds, "total">;

/**
 * The time to result and its parts in one unit, the total the sum of the
 * parts as shown, as a bill's total is of its lines. From an hour on, the
 * hours to two places the CLI prints (Rust's `time`: 3.50 h is 3.50 h here
 * too; tenths of an hour summed read 3.6); under an hour, minutes or
 * seconds to one decimal from the seconds: 12 + 15 + 8.2 is 35.2 min.
 */
export function timeSplit(q: { time: TimeSeconds; time_seconds: TimeSeconds }, lang: string): { total: string; parts: Record<TimePart, string> } {
  const zh = lang === "zh";
  const keys: TimePart[] = ["waiting", "setup", "running", "reruns", "gaps"];
  const ts = q.time_seconds;
  const all = Number(ts.total);
  if (all >= 3600) {
    const hours = (h: string) => `${Number(h).toFixed(2)} ${zh ? "小时" : "h"}`;
    const parts = Object.fromEntries(keys.map((k) => [k, hours(q.time[k])])) as Record<TimePart, string>;
    return { total: hours(q.time.total), parts };
  }
  const [size, unit] = all < 60 ? [1, zh ? "秒" : "s"] : [60, zh ? "分钟" : "min"];
  // Tenths of the unit as whole numbers: sums without floating-point drift.
  const tenths = (s: string) => Math.round((Number(s) / size) * 10);
  const shown = (n: number) => `${(n / 10).toFixed(1)} ${unit}`;
  const parts = Object.fromEntries(keys.map((k) => [k, shown(tenths(ts[k]))])) as Record<TimePart, string>;
  return { total: shown(keys.reduce((n, k) => n + tenths(ts[k]), 0)), parts };
}

/** A chart in the UI language, as an <img> source: shown as an image, never as markup. */
export function chartUrl(chart: Chart, lang: string): string {
  return svgDataUrl(lang === "zh" ? chart.zh : chart.en);
}

/** An SVG string as an <img> source. */
export function svgDataUrl(svg: string): string {
  return `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
}

/** What is wrong with a number as typed: a catalog key and its parameters, or null. */
export type FieldProblem = { key: string; params: Record<string, string> } | null;


/**
 * Checks a form number as the student types it against the range the core
 * uses for that field (`AppInfo.limits`, the validators' own table): an
 * empty optional field is fine, letters are not a number, fractions are not
 * whole, and values outside the range say the range.
 */
export function checkNumber(text: string, limit: FieldLimit | undefined, lang: string, required = false, units: readonly UnitKind[] = []): FieldProblem {
  const s = normalizeNumber(text, units);
  if (s === "") return required ? { key: "form.required", params: {} } : null;
  if (!NUMBER.test(s)) return { key: "form.notNumber", params: {} };
  const n = Number(s);
  // A number too large for a double (1e309) is a number out of range, not
  // "not a number": said with the range where the field has one.
  if (!Number.isFinite(n) && !limit) return { key: "form.notNumber", params: {} };
  if (!limit) return null;
  const fmt = new Intl.NumberFormat(lang === "zh" ? "zh-CN" : "en-US", { maximumFractionDigits: 2 });
  const params = { min: fmt.format(limit.min), max: fmt.format(limit.max) };
  if (limit.integer && Number.isFinite(n) && !Number.isInteger(n)) return { key: "form.whole", params };
  const low = limit.min_exclusive ? n <= limit.min : n < limit.min;
  if (low || n > limit.max) return { key: limit.integer ? "form.rangeWhole" : limit.min_exclusive ? "form.rangeAbove" : "form.range", params };
  return null;
}

/** A date as typed: empty (when optional) or a real calendar day as YYYY-MM-DD, in the years Rust takes (`years`). */
export function checkDate(text: string, required = false, years?: FieldLimit): FieldProblem {
  const s = text.trim();
  if (s === "") return required ? { key: "form.required", params: {} } : null;
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return { key: "form.date", params: {} };
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  const real = d.getUTCFullYear() === Number(m[1]) && d.getUTCMonth() === Number(m[2]) - 1 && d.getUTCDate() === Number(m[3]);
  if (!real) return { key: "form.date", params: {} };
  if (years && (d.getUTCFullYear() < years.min || d.getUTCFullYear() > years.max)) return { key: "form.dateRange", params: { min: `${years.min}-01-01`, max: `${years.max}-12-31` } };
  return null;
}

/** A date (`2026-11-30` or an RFC 3339 time) in the locale: 2026年11月30日, Nov 30, 2026. */
export function formatDate(iso: string, lang: string, withTime = false): string {
  const d = new Date(/^\d{4}-\d{2}-\d{2}$/.test(iso) ? `${iso}T00:00:00` : iso);
  if (Number.isNaN(d.getTime())) return iso;
  const opts: Intl.DateTimeFormatOptions = withTime
    ? { year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" }
    : { year: "numeric", month: "short", day: "numeric" };
  return new Intl.DateTimeFormat(lang === "zh" ? "zh-CN" : "en-US", opts).format(d);
}

/**
 * Text a person typed or a file gave, as shown: the characters that would
 * act rather than show (controls, zero-width marks, the bidirectional
 * overrides that make "evil" read "live") written as their code point, as
 * the CLI writes them (`gpuplan_core::error::is_hidden`).
 */
export function shown(s: string): string {
  return s.replace(/[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u200B-\u200F\u2028-\u202E\u2060-\u2069\uFEFF]/g, (c) => `[U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}]`);
}

/** A bill's hours as the ledger keeps them, to the hundredth: 1.25 h stays 1.25 h (as the CLI prints it). */
export function formatBillHours(hours: string | number, lang: string): string {
  return `${Number(hours).toFixed(2)} ${lang === "zh" ? "小时" : "h"}`;
}

/** Hours (as Rust sends them, text) as a duration in the locale. */
export function formatHours(hours: string | number, lang: string): string {
  return formatDuration(Number(hours) * 3600, lang);
}

/**
 * A card as students know it: "RTX 4090 24 GB". Listings say "24GB" for
 * 24 GiB of memory, so the catalog's GiB are rounded, not converted; the
 * vendor prefix is dropped and a name that already says its memory is kept.
 */
export function cardLabel(name: string, vramGib: number): string {
  const short = name.replace(/^NVIDIA\s+(GeForce\s+)?/, "");
  return /\d+\s?GB/i.test(short) ? short : `${short} ${Math.round(vramGib)} GB`;
}

/**
 * Lines every option shares are said once above the list, not under each
 * option: returns the shared ones and, per option, what is its own.
 */
export function splitShared<T>(lists: T[][], key: (x: T) => string): { shared: T[]; own: T[][] } {
  if (lists.length < 2) return { shared: [], own: lists };
  const counts = new Map<string, number>();
  for (const l of lists) for (const k of new Set(l.map(key))) counts.set(k, (counts.get(k) ?? 0) + 1);
  const isShared = (x: T) => counts.get(key(x)) === lists.length;
  const shared = lists[0].filter(isShared);
  return { shared, own: lists.map((l) => l.filter((x) => !isShared(x))) };
}

/** Which dropped files are run reports to import: `.json` files of at most
 * `maxBytes` (the Rust limit, `AppInfo.defaults.report_max_bytes`); the rest
 * are named so the student knows why they were skipped. */
export function droppedReports<F extends { name: string; size: number }>(files: F[], maxBytes: number): { reports: F[]; skipped: string[] } {
  const reports: F[] = [];
  const skipped: string[] = [];
  for (const f of files) {
    if (f.name.toLowerCase().endsWith(".json") && f.size <= maxBytes) reports.push(f);
    else skipped.push(f.name);
  }
  return { reports, skipped };
}

/** Why an imported run compares with nothing or teaches calibration nothing,
 * as catalog keys with their values (the CLI says the same lines). A report
 * imported before says only that. */
export function importNotes(run: ImportedRun): [string, Record<string, unknown>?][] {
  if (run.already_imported) return [];
  const notes: [string, Record<string, unknown>?][] = [];
  if (!run.gpu_in_catalog) notes.push(["cli.runUnknownGpu", { gpu: run.gpu }]);
  if (run.plan_not_found) notes.push(["cli.runNoPlan"]);
  if (run.set_aside) notes.push(["cli.runSetAside"]);
  if (run.plan_changed) notes.push(["cli.runPlanChanged"]);
  if (run.plan_file_other) notes.push(["cli.runPlanFileOther"]);
  if (run.card_assumed) notes.push(["cli.runCardAssumed", { gpu: run.gpu }]);
  const reused = run.run_id_reused;
  if (reused) notes.push([reused.bill === null ? "cli.runIdReusedHere" : "cli.runIdReused", { run: reused.run_id, part: reused.part, id: reused.bill }]);
  if (run.trained_on_gpus != null) notes.push(["cli.runOtherLayout", { count: run.trained_on_gpus }]);
  return notes;
}

/** A clause the catalog words in lower case, as a sentence of its own in a
 * toast: capitalised and stopped in English, stopped in Chinese. */
export function asSentence(text: string, lang: string): string {
  if (lang.startsWith("zh")) return /[。！？]$/.test(text) ? text : `${text}。`;
  const s = text.charAt(0).toUpperCase() + text.slice(1);
  return /[.!?]$/.test(s) ? s : `${s}.`;
}
