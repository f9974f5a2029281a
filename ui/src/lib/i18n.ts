// i18next with the two bundled languages; the chosen one is remembered in the
// app's settings table.
import i18next from "i18next";
import zh from "../locales/zh.json";
import en from "../locales/en.json";

export async function initI18n(lang: string) {
  await i18next.init({ lng: lang, fallbackLng: "en", resources: { zh: { translation: zh }, en: { translation: en } }, interpolation: { escapeValue: false } });
  return i18next;
}

export { i18next };
