// i18next over the one message catalog both shells use (data/locales/*.json,
// bundled at build time; the Rust side reads the same files). The chosen
// language is remembered in the app's settings table.
import i18next from "i18next";
import zh from "../../../data/locales/zh.json";
import en from "../../../data/locales/en.json";
import type { Message } from "../bindings/Message";

export const catalogs = { zh, en } as const;

export async function initI18n(lang: string) {
  await i18next.init({ lng: lang, fallbackLng: "en", resources: { zh: { translation: zh }, en: { translation: en } }, interpolation: { escapeValue: false } });
  return i18next;
}

/**
 * A duration parameter (whole seconds: the `_s` parameters of bill lines)
 * as a reader says it, the Rust side's `labels::duration`: seconds under a
 * minute, minutes under an hour, then hours to two places.
 */
export function duration(seconds: string, lang: string): string {
  // A range of durations, "a..b": each worded, joined by a dash.
  const range = seconds.split("..");
  if (range.length === 2) return `${duration(range[0], lang)}–${duration(range[1], lang)}`;
  const s = Number(seconds);
  if (seconds.trim() === "" || !Number.isFinite(s)) return seconds;
  const zh = lang.startsWith("zh");
  if (s > 0 && s < 1) return `${s.toFixed(1)} ${zh ? "秒" : "s"}`;
  if (s < 60) return `${Math.round(s)} ${zh ? "秒" : "s"}`;
  // Half up, as the Rust side and the money are: s / 6 and s / 36 are the
  // tenths of a minute and hundredths of an hour, exact at the halves for
  // whole seconds (toFixed printed 3690 s as 1.02 h).
  if (s < 3600) {
    const tenths = Math.round(s / 6);
    return `${tenths % 10 === 0 ? String(tenths / 10) : (tenths / 10).toFixed(1)} ${zh ? "分钟" : "min"}`;
  }
  return `${(Math.round(s / 36) / 100).toFixed(2)} ${zh ? "小时" : "h"}`;
}

/**
 * Parameters as the catalog shows them: a value that is itself a catalog key
 * under `enum.` (a package period, say) is translated, and a `_s` duration
 * is worded, as the Rust side does.
 */
export function shownParams(params: Record<string, string>, t: (k: string) => string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(params)) {
    out[k] = v.startsWith("enum.") && i18next.exists(v) ? t(v) : k.endsWith("_s") ? duration(v, i18next.language ?? "zh") : v;
  }
  return out;
}

/** A message's parameters with those given in both languages (`name.zh`, `name.en`) as `name` in the UI's. */
export function localizedParams(params: Record<string, string>): Record<string, string> {
  const own = (i18next.language ?? "zh").startsWith("zh") ? ".zh" : ".en";
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(params)) {
    const m = /^(.*)\.(zh|en)$/.exec(k);
    if (!m) out[k] = v;
    else if (k.endsWith(own)) out[m[1]] = v;
  }
  return out;
}

/**
 * Parameters ready for i18next: a whole-number `count` (a core message
 * carries every parameter as text) goes as a number, so i18next picks the
 * English singular `key_one` for 1, as the Rust `Catalog::fill` does.
 */
export function counted(params: Record<string, unknown>): Record<string, unknown> {
  const c = params.count;
  return typeof c === "string" && /^\d+$/.test(c) ? { ...params, count: Number(c) } : params;
}

/** A core message (key + parameters) in the current language. */
export function messageText(m: Message, t: (k: string, o?: Record<string, unknown>) => string): string {
  return t(m.key, counted(shownParams(localizedParams(m.params as Record<string, string>), (k) => t(k))));
}

export { i18next };
