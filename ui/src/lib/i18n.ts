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
 * Parameters as the catalog shows them: a value that is itself a catalog key
 * under `enum.` (a package period, say) is translated, as the Rust side does.
 */
export function shownParams(params: Record<string, string>, t: (k: string) => string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(params)) out[k] = v.startsWith("enum.") && i18next.exists(v) ? t(v) : v;
  return out;
}

/** A core message (key + parameters) in the current language. */
export function messageText(m: Message, t: (k: string, o?: Record<string, unknown>) => string): string {
  return t(m.key, shownParams(m.params as Record<string, string>, (k) => t(k)));
}

export { i18next };
