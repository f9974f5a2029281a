import { describe, expect, it, vi } from "vitest";
import { STEPS, nextStep, prevStep, parseNumber, formatCny, errorText, quoteCsv, quoteHtml, svgDataUrl, defaultJob, defaultSituation, defaultPlan } from "./flow";
import { makeApi, isAppError } from "./api";
import zh from "../locales/zh.json";
import en from "../locales/en.json";

function keys(o: Record<string, unknown>, prefix = ""): string[] {
  return Object.entries(o).flatMap(([k, v]) => (typeof v === "object" && v !== null ? keys(v as Record<string, unknown>, `${prefix}${k}.`) : [`${prefix}${k}`]));
}

describe("flow navigation", () => {
  it("walks forward and back without leaving the six steps", () => {
    expect(nextStep("situation")).toBe("job");
    expect(nextStep("before")).toBe("before");
    expect(prevStep("situation")).toBe("situation");
    expect(STEPS.length).toBe(6);
  });
});

describe("form numbers", () => {
  it.each([
    ["", null, "empty means default"],
    [" 128 ", 128, "spaces are trimmed"],
    ["abc", NaN, "text is not a number (the backend names the field)"],
    ["1e3", 1000, "exponent form"],
  ] as [string, number | null, string][])("parseNumber(%j)", (text, want, why) => {
    expect(parseNumber(text), why).toEqual(want);
  });
});

describe("money", () => {
  it("formats CNY for zh-CN with the yuan sign and two decimals", () => {
    expect(formatCny("16", "zh")).toBe("¥16.00");
    expect(formatCny(1234.5, "en")).toContain("1,234.50");
  });
});

describe("errors", () => {
  const t = (k: string, o?: Record<string, unknown>) => `${k}:${JSON.stringify(o)}`;
  it("names the field of an input error", () => {
    const e = { kind: "input", detail: { field: "batch", message: "0 is out of range", allowed: "1..=1000000" } };
    expect(isAppError(e)).toBe(true);
    expect(errorText(e, t)).toContain('"field":"batch"');
  });
  it("survives a non-app error", () => {
    expect(errorText(new Error("boom"), t)).toContain("error.unknown");
  });
});

describe("exports", () => {
  const q = { platform: "autodl", gpu: "rtx3090", lines: [{ category: "gpu-compute", key: "runs", label: "=HYPERLINK(\"x\")", hours: 6, amount: "15.00" }], cash_total: "15.00", total: "15.00", time_to_result_hours: 6, warnings: [], timeline: [], chart_svg: "" };
  it("CSV quotes cells and defuses formulas", () => {
    const csv = quoteCsv(q);
    expect(csv).toContain(`"'=HYPERLINK(""x"")"`);
    expect(csv.trim().split("\n").length).toBe(3);
  });
  it("HTML report escapes a plan named <script>", () => {
    const plan = { ...defaultPlan(defaultJob(), defaultSituation()), name: "<script>alert(1)</script>" };
    const html = quoteHtml(plan, q, "Report", "en", ["<b>x</b>"]);
    expect(html).not.toContain("<script>alert");
    expect(html).toContain("&lt;script&gt;");
    expect(html).toContain("&lt;b&gt;");
  });
  it("SVG is shown through a data URL, never as markup", () => {
    expect(svgDataUrl("<svg><text>&lt;script&gt;</text></svg>")).toMatch(/^data:image\/svg\+xml/);
  });
});

describe("api (mocked IPC)", () => {
  it("passes arguments by the command's parameter names", async () => {
    const call = vi.fn().mockResolvedValue(7);
    const api = makeApi(call);
    await api.savePlan(null, defaultPlan(defaultJob(), defaultSituation()));
    expect(call).toHaveBeenCalledWith("save_plan", expect.objectContaining({ id: null }));
    await api.estimate(defaultJob(), "rtx3090", "zh");
    expect(call).toHaveBeenLastCalledWith("estimate", { job: defaultJob(), gpu: "rtx3090", lang: "zh" });
  });
});

describe("translations", () => {
  it("zh and en have exactly the same keys", () => {
    expect(keys(zh).sort()).toEqual(keys(en).sort());
  });
  it("no translation is empty", () => {
    for (const [name, d] of [["zh", zh], ["en", en]] as const) {
      for (const k of keys(d)) {
        const v = k.split(".").reduce<unknown>((o, p) => (o as Record<string, unknown>)[p], d);
        expect(typeof v === "string" && v.trim().length > 0, `${name}:${k}`).toBe(true);
      }
    }
  });
});
