// The flow's pure logic: default state, step navigation, formatting, error
// text and exports. No Tauri, no DOM: unit-tested with Vitest.
import type { AppError } from "../bindings/AppError";
import type { JobInput } from "../bindings/JobInput";
import type { SituationInput } from "../bindings/SituationInput";
import type { PlanInput } from "../bindings/PlanInput";
import type { QuoteView } from "../bindings/QuoteView";

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

export function defaultSituation(): SituationInput {
  return { stage: "course-project", budget: 150, deadline_hours: null, linux: false, slurm: false, campus: false, abroad: false, persistence: false, interruptible: false, runs: 1 };
}

export function defaultJob(): JobInput {
  return {
    model: "resnet18", batch: 128, resolution: 32, seq_len: null, classes: 10, precision: "fp32", optimizer: "sgd",
    mode: "train", lora_rank: null, grad_checkpointing: false, dataset_samples: 50000, epochs: 50,
  };
}

export function defaultPlan(job: JobInput, situation: SituationInput): PlanInput {
  return {
    name: "", platform: "autodl", gpu: "rtx3090", budget: situation.budget, start_date: null, student: true, payment: "on-demand",
    runs: Math.max(1, situation.runs), hours: null, job, storage_gb: 20, storage_days: 7, stops: 0, stop_hours: 0, data_gb: 1,
    forgotten_shutdown_hours: 0, checkpoint_every_epochs: 5, situation,
  };
}

/** Parses a form number: empty means "use the default" (null). */
export function parseNumber(text: string): number | null {
  const t = text.trim();
  if (t === "") return null;
  const n = Number(t);
  return Number.isFinite(n) ? n : NaN;
}

/** CNY for the language: "¥16.00" in zh-CN, "CN¥16.00" in en. */
export function formatCny(amount: string | number, lang: string): string {
  const n = typeof amount === "number" ? amount : Number(amount);
  return new Intl.NumberFormat(lang === "zh" ? "zh-CN" : "en-US", { style: "currency", currency: "CNY", minimumFractionDigits: 2 }).format(n);
}

export function formatDuration(seconds: number | null, lang: string): string {
  if (seconds === null || !Number.isFinite(seconds)) return "-";
  const zh = lang === "zh";
  if (seconds < 60) return `${seconds.toFixed(3)} ${zh ? "秒" : "s"}`;
  if (seconds < 3600) return `${(seconds / 60).toFixed(1)} ${zh ? "分钟" : "min"}`;
  return `${(seconds / 3600).toFixed(1)} ${zh ? "小时" : "h"}`;
}

/** One sentence for an error, naming the field, in the UI language. */
export function errorText(e: unknown, t: (k: string, o?: Record<string, unknown>) => string): string {
  if (typeof e === "object" && e !== null && "kind" in e) {
    const err = e as AppError;
    switch (err.kind) {
      case "input":
        return t("error.input", { field: err.detail.field, message: err.detail.message, allowed: err.detail.allowed });
      case "data":
        return t("error.data", { file: err.detail.file, line: err.detail.line, field: err.detail.field, message: err.detail.message });
      case "store":
        return t("error.store", { message: err.detail.message });
      case "io":
        return t("error.io", { message: err.detail.message });
    }
  }
  return t("error.unknown", { message: String(e) });
}

/** An SVG string as an <img> source: shown as an image, never as markup. */
export function svgDataUrl(svg: string): string {
  return `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
}

function csvCell(s: string): string {
  // Quote every cell and neutralise spreadsheet formulas in user text.
  const safe = /^[=+\-@]/.test(s) ? `'${s}` : s;
  return `"${safe.replace(/"/g, '""')}"`;
}

/** The quote as CSV (category, line, amount). */
export function quoteCsv(q: QuoteView): string {
  const rows = [["category", "line", "amount_cny"], ...q.lines.map((l) => [l.category, l.label, l.amount]), ["total", "cash total", q.cash_total]];
  return rows.map((r) => r.map(csvCell).join(",")).join("\n") + "\n";
}

function esc(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");
}

/** A printable, self-contained HTML report. Every user string is escaped. */
export function quoteHtml(plan: PlanInput, q: QuoteView, title: string, lang: string, warnings: string[]): string {
  const rows = q.lines.map((l) => `<tr><td>${esc(l.category)}</td><td>${esc(l.label)}</td><td class="n">${esc(formatCny(l.amount, lang))}</td></tr>`).join("");
  const warn = warnings.map((w) => `<li>${esc(w)}</li>`).join("");
  return `<!doctype html><html lang="${lang === "zh" ? "zh-CN" : "en"}"><head><meta charset="utf-8"><title>${esc(title)}</title>` +
    `<style>body{font-family:sans-serif;margin:2em}td{padding:4px 8px;border-bottom:1px solid #ddd}.n{text-align:right}</style></head><body>` +
    `<h1>${esc(title)}</h1><p>${esc(plan.name)} · ${esc(q.platform)} · ${esc(q.gpu)}</p>` +
    `<table>${rows}<tr><th colspan="2">${esc(lang === "zh" ? "合计" : "Total")}</th><th class="n">${esc(formatCny(q.cash_total, lang))}</th></tr></table>` +
    (warn ? `<ul>${warn}</ul>` : "") + `</body></html>`;
}
