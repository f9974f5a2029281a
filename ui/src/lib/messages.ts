// Messages from the Rust side in the UI language: keyed messages, errors
// (naming the field) and the notes beside answers (calibration, figures
// nobody checked), worded with the same catalog keys as the CLI.
import type { AppError } from "../bindings/AppError";
import type { Calibration } from "../bindings/Calibration";
import type { Message } from "../bindings/Message";
import type { Unverified } from "../bindings/Unverified";
import { counted, localizedParams } from "./i18n";

/**
 * A catalog message from Rust in the UI language: parameters that are
 * themselves catalog keys (a field, a noun, an enum value) are worded too,
 * and a `file` parameter is put before the message.
 */
export function said(m: Message, t: (k: string, o?: Record<string, unknown>) => string): string {
  const params: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(localizedParams(m.params as Record<string, string>))) {
    params[k] = v !== undefined && /^(enum|noun|field|allowed)\./.test(v) ? t(v, { defaultValue: v }) : v;
  }
  const text = t(m.key, counted(params));
  return m.params.file ? t("error.inFile", { file: m.params.file, message: text }) : text;
}

/** One sentence for an error, naming the field, in the UI language. */
export function errorText(e: unknown, t: (k: string, o?: Record<string, unknown>) => string): string {
  if (typeof e === "object" && e !== null && "kind" in e) {
    const err = e as AppError;
    switch (err.kind) {
      case "input": {
        // The field by its name in the UI language where the catalog has it;
        // a keyed error worded from the catalog, else its English text.
        const d = err.detail;
        const field = t(`field.${d.field.replace(/\./g, "-")}`, { defaultValue: d.field });
        const message = d.said ? said(d.said.message, t) : d.message;
        const allowed = d.said?.allowed ? said(d.said.allowed, t) : d.allowed;
        return allowed ? t("error.input", { field, message, allowed }) : t("error.inputBare", { field, message });
      }
      case "data": {
        // A keyed parse error (not TOML or JSON, a key or value the file's
        // schema refuses) says its line and column itself; a refused value
        // is shown at its line.
        const d = err.detail;
        if (!d.said) return t("error.data", { file: d.file, line: d.line, field: d.field, message: d.message });
        const message = said(d.said, t);
        const text = d.field && d.line > 0 && !d.said.key.startsWith("error.parse.") ? t("error.dataSaidFieldAt", { file: d.file, line: d.line, field: d.field, message }) : d.field ? t("error.dataSaidField", { file: d.file, field: d.field, message }) : t("error.dataSaid", { file: d.file, message });
        return d.allowed ? t("error.withAllowed", { message: text, allowed: said(d.allowed, t) }) : text;
      }
      case "store":
        return t("error.store", { message: err.detail.said ? said(err.detail.said, t) : err.detail.message });
      case "io":
        return t("error.io", { message: err.detail.said ? said(err.detail.said, t) : err.detail.message });
    }
  }
  return t("error.unknown", { message: String(e) });
}

/** A factor as a signed percentage ("+12%"), as the CLI writes it. */
export function factorPct(f: number): string {
  const p = Math.round((f - 1) * 100);
  // A factor that rounds to nothing is "0%", as the CLI says it.
  if (p === 0) return "0%";
  return `${p > 0 ? "+" : ""}${p}%`;
}

/** The list separator of the UI language (full-width in Chinese), from the catalog. */
function i18nSeparator(t: (k: string, o?: Record<string, unknown>) => string): string {
  const sep = t("calibration.separator");
  return sep.includes("separator") ? "; " : sep;
}

/** What calibration did to an answer, in one sentence (the CLI's words). */
export function calibrationNote(c: Calibration, t: (k: string, o?: Record<string, unknown>) => string): string {
  const changes: string[] = [];
  for (const [key, cappedKey, f] of [["calibration.time", "calibration.timeCapped", c.time], ["calibration.memory", "calibration.memoryCapped", c.memory]] as const) {
    if (f && f.applied !== 1) {
      // A capped factor's range is the runs' own: its sentence says both.
      changes.push(f.capped
        ? t(cappedKey, { pct: factorPct(f.applied), measured: factorPct(f.measured), low: factorPct(f.low), high: factorPct(f.high) })
        : t(key, { pct: factorPct(f.applied), low: factorPct(f.low), high: factorPct(f.high) }));
    }
  }
  // Nothing applied: what the runs suggest, and that they are not yet sure enough (95%) to move the estimate.
  const head = changes.length === 0 ? "calibration.noteNone" : "calibration.note";
  if (changes.length === 0) {
    for (const [key, f] of [["calibration.time", c.time], ["calibration.memory", c.memory]] as const) {
      if (f) changes.push(t("calibration.notApplied", { what: t(key, { pct: factorPct(f.measured), low: factorPct(f.low), high: factorPct(f.high) }) }));
    }
  }
  if (changes.length === 0) changes.push(t("calibration.unchanged"));
  return t(head, { own: c.own_runs, class: c.class_runs, on_card: c.on_card_runs, changes: changes.join(i18nSeparator(t)) });
}

/**
 * The note beside a bill's total when much of it rests on figures nobody
 * checked against the platform (the Rust `Catalog::unverified_note`, same
 * keys): empty when the share is under the stated threshold.
 */
export function unverifiedNote(u: Unverified, t: (k: string, o?: Record<string, unknown>) => string, lang: string): string {
  if (!u.noted) return "";
  const figures = u.figures.map((g) => {
    const figure = t(`figure.${g.figure}`);
    const grade = t(`enum.grade.${g.grade}`);
    return lang === "zh" ? `${figure}（${grade}）` : `${figure} (${grade})`;
  });
  return t("quote.unverified", { count: u.figures.length, percent: u.percent, figures: figures.join(lang === "zh" ? "、" : ", ") });
}
