// Numbers as people type them (full-width digits, thousands separators,
// the field's unit) and the app's first language: pure, unit-tested.

/** A plain decimal number, as Rust's parsers read it. */
export const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/** Units a number field accepts after (or, for money, before) the number. */
export type UnitKind = "cny" | "hours" | "gb" | "days" | "count" | "cny-per-hour";
const UNIT_WORDS: Record<UnitKind, string[]> = {
  cny: ["元", "块", "块钱", "cny", "rmb", "yuan"],
  hours: ["小时", "个小时", "钟头", "h", "hr", "hrs", "hour", "hours"],
  gb: ["gb", "gib", "g"],
  days: ["天", "日", "d", "day", "days"],
  count: ["次", "个", "轮", "runs", "run"],
  "cny-per-hour": ["元/小时", "元/时", "元/h", "元每小时", "/小时", "/h", "cny/h", "/hr", "元"],
};
const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");

/**
 * A number as people type it, as plain ASCII decimal text: full-width digits
 * and punctuation ("１５０．５"), thousands separators ("1,000", "1，000"),
 * a currency sign before or the field's own unit after it ("¥150", "150 元",
 * "6h", "6 小时", "20GB") and spaces around it are accepted; what is left
 * must be a number (checkNumber says so when it is not). Only the units in
 * `units` are taken off: "150GB" stays wrong in a money field.
 * Returns the cleaned text; "" for empty.
 */
export function normalizeNumber(text: string, units: readonly UnitKind[] = []): string {
  // NFKC folds full-width digits, ．，＋－ and the ideographic space to ASCII.
  let s = text.normalize("NFKC").replace(/[\s\u00a0\u3000]+/g, " ").trim();
  if (s === "") return "";
  s = s.replace(/[。]$/, "").trim();
  const money = units.includes("cny") || units.includes("cny-per-hour");
  if (money) s = s.replace(/^(cn)?[¥￥]\s*/i, "").replace(/^(cny|rmb)\s*/i, "");
  const words = units.flatMap((u) => UNIT_WORDS[u]).sort((a, b) => b.length - a.length);
  if (words.length) s = s.replace(new RegExp(`\\s*(${words.map(escapeRe).join("|")})$`, "i"), "");
  s = s.trim();
  // Thousands separators only where they group digits by three.
  if (/^[+-]?\d{1,3}(,\d{3})+(\.\d*)?$/.test(s)) s = s.replace(/,/g, "");
  if (/^\+/.test(s)) s = s.slice(1);
  // Exponent forms become plain decimals (what Rust's decimal parser reads).
  if (NUMBER.test(s) && /e/i.test(s)) {
    const n = Number(s);
    if (Number.isFinite(n)) s = n.toLocaleString("en-US", { useGrouping: false, maximumFractionDigits: 20 });
  }
  return s;
}

/** Parses a form number: empty means "use the default" (null); not a number is NaN. */
export function parseNumber(text: string, units?: readonly UnitKind[]): number | null {
  const t = normalizeNumber(text, units);
  if (t === "") return null;
  if (!NUMBER.test(t)) return NaN;
  const n = Number(t);
  return Number.isFinite(n) ? n : NaN;
}

/**
 * The app's first language: a saved choice wins; otherwise the system's
 * preferred languages in order (the first zh* is Chinese, the first en*
 * English), and Chinese when none of them is either.
 */
export function firstLanguage(saved: string | null, preferred: readonly string[]): "zh" | "en" {
  if (saved === "zh" || saved === "en") return saved;
  for (const l of preferred) {
    const p = l.toLowerCase();
    if (p === "zh" || p.startsWith("zh-") || p.startsWith("zh_")) return "zh";
    if (p === "en" || p.startsWith("en-") || p.startsWith("en_")) return "en";
  }
  return "zh";
}

