// The exports of a bill: the CSV a spreadsheet opens and the one-page
// printable report. Pure functions of what the screen shows.
import { svgDataUrl } from "./flow";

function csvCell(s: string): string {
  // Quote every cell and neutralise spreadsheet formulas in user text (but a
  // plain negative number, such as a credit, stays a number).
  const safe = /^[=+\-@]/.test(s) && !/^-\d+(\.\d+)?$/.test(s) ? `'${s}` : s;
  return `"${safe.replace(/"/g, '""')}"`;
}

/**
 * A bill line as the exports show it: category and text already translated,
 * `amount` as the screen writes it (¥0.03) and `value` the plain number
 * (0.03) a spreadsheet sums.
 */
export type BillRow = { category: string; text: string; amount: string; value: string };

/** The byte order mark Excel needs to read a CSV as UTF-8 (without it, Chinese Windows shows mojibake). */
export const UTF8_BOM = "\uFEFF";

/**
 * The bill as CSV: a header naming each column (category, line, amount
 * with its currency), one row per line with the amount as a plain number,
 * the total as a plain number, then the note. Starts with a UTF-8 BOM and
 * ends lines with CRLF, as spreadsheets expect.
 */
export function billCsv(rows: BillRow[], total: string, header: [string, string, string], totalLabel: string, note = ""): string {
  const all = [header, ...rows.map((r) => [r.category, r.text, r.value]), [totalLabel, "", total]];
  if (note) all.push(["", note, ""]);
  return UTF8_BOM + all.map((r) => r.map(csvCell).join(",")).join("\r\n") + "\r\n";
}

function esc(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");
}

/** A titled list of lines in the printable report. */
export type ReportSection = { heading: string; lines: string[] };

/**
 * A printable, self-contained one-page HTML report: the plan's title, its
 * sections (job, memory, options considered, time), the bill, the spend
 * chart and the checklist, all in the UI language. Every string is escaped;
 * the chart is an image (a data URL), never markup.
 */
export function billHtml(
  title: string,
  subtitle: string,
  rows: BillRow[],
  totalLabel: string,
  total: string,
  warnings: string[],
  lang: string,
  extra: { sections?: ReportSection[]; chartSvg?: string; checklistHeading?: string; checklist?: string[]; billHeading?: string; note?: string } = {},
): string {
  const body = rows.map((r) => `<tr><td>${esc(r.category)}</td><td>${esc(r.text)}</td><td class="n">${esc(r.amount)}</td></tr>`).join("");
  const warn = warnings.map((w) => `<li>${esc(w)}</li>`).join("");
  const sections = (extra.sections ?? [])
    .filter((s) => s.lines.length > 0)
    .map((s) => `<section><h2>${esc(s.heading)}</h2><ul>${s.lines.map((l) => `<li>${esc(l)}</li>`).join("")}</ul></section>`)
    .join("");
  const chart = extra.chartSvg ? `<img class="chart" alt="" src="${esc(svgDataUrl(extra.chartSvg))}">` : "";
  const checklist = extra.checklist?.length
    ? `<section><h2>${esc(extra.checklistHeading ?? "")}</h2><ul class="check">${extra.checklist.map((c) => `<li>${esc(c)}</li>`).join("")}</ul></section>`
    : "";
  return `<!doctype html><html lang="${lang === "zh" ? "zh-CN" : "en"}"><head><meta charset="utf-8"><title>${esc(title)}</title>` +
    `<style>@page{size:A4;margin:12mm}body{font-family:"Noto Sans CJK SC",sans-serif;font-size:11px;margin:0 auto;max-width:190mm;color:#1d2733}` +
    `h1{font-size:18px;margin:0}h2{font-size:13px;margin:10px 0 4px}p.sub{margin:2px 0 8px;color:#4d5a66}` +
    `.cols{display:grid;grid-template-columns:1fr 1fr;gap:0 16px}ul{margin:0;padding-left:16px}td{padding:2px 6px;border-bottom:1px solid #ddd}` +
    `.n{text-align:right}.chart{width:100%;max-height:70mm;object-fit:contain}ul.check li{list-style:"☐ "}</style></head><body>` +
    `<h1>${esc(title)}</h1><p class="sub">${esc(subtitle)}</p>` +
    `<div class="cols">${sections}</div>` +
    (extra.billHeading ? `<h2>${esc(extra.billHeading)}</h2>` : "") +
    `<table>${body}<tr><th colspan="2">${esc(totalLabel)}</th><th class="n">${esc(total)}</th></tr></table>` +
    (extra.note ? `<p class="note">${esc(extra.note)}</p>` : "") +
    chart +
    (warn ? `<ul>${warn}</ul>` : "") + checklist + `</body></html>`;
}
