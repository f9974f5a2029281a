import { describe, expect, it, vi } from "vitest";
import { STEPS, nextStep, prevStep, parseNumber, formatCny, errorText, svgDataUrl, chartUrl, formOf, applyForm, checkNumber, checkDate, formatDate, formatHours, cardLabel, splitShared, calibrationNote, factorPct, droppedReports, unverifiedNote, timeSplit, shown, importNotes, asSentence } from "./flow";
import { billCsv, billHtml } from "./exports";
import type { FieldLimit } from "../bindings/FieldLimit";
import { makeApi, isAppError } from "./api";
import type { Plan } from "../bindings/Plan";

// A plan as Rust's defaults send it (the shape is checked by the compiler
// against the generated bindings).
const plan: Plan = {
  version: 1, name: "", platform: "autodl", gpu: "rtx3090", budget: "150", start_date: null, start_hour: null, parallel: 1, credit: null, balance: null, student: true, payment: "on-demand",
  own_time_per_hour: "0", forgotten_shutdown_hours: "0", setup_hours: "0.25",
  job: { model: "resnet18", hours: null, batch: 128, resolution: 32, seq_len: null, classes: 10, precision: "fp32", optimizer: "sgd", mode: "train", lora_rank: null, lora_targets: null, grad_checkpointing: null, dataset_samples: 50000, epochs: 50 },
  run: [{ name: "run", count: 1, hours: null, minutes: null, epochs: null }], debug: null, data: { size_gb: "1", upload_mbps: "20", download_gb: null }, storage: { gb: "20", days: "7", on: "instance" }, stops: null, schedule: null, spot: null,
  prices: { gpu_per_hour: null, debug_gpu_per_hour: null, spot_per_hour: null, stopped_fee_per_hour: null, storage_per_gb_day: null, storage_per_gb_month: null, persistent_per_gb_day: null, egress_per_gb: null, free_storage_gb: null, minimum_charge_minutes: null, granularity: null, package_price: null },
};

describe("flow navigation", () => {
  it("walks forward and back without leaving the six steps", () => {
    expect(nextStep("situation")).toBe("job");
    expect(nextStep("before")).toBe("before");
    expect(prevStep("situation")).toBe("situation");
    expect(STEPS.length).toBe(6);
  });
});

describe("plan form", () => {
  it("shows a plan and gives the same plan back when nothing changed", () => {
    expect(applyForm(plan, formOf(plan)), "a round trip keeps every field").toEqual(plan);
  });
  it.each([
    [{ storageGb: "0" }, (p: Plan) => p.storage === null, "no storage kept means no storage table"],
    [{ stops: "3", stopHours: "10" }, (p: Plan) => p.stops?.count === 3 && p.stops.hours_each === "10", "stops become a stops table"],
    [{ hours: "6" }, (p: Plan) => p.job.hours === "6" && p.job.model === null, "hours given replace the estimate"],
    [{ budget: "" }, (p: Plan) => p.budget === null, "an empty budget is no budget"],
    [{ runs: "-3" }, (p: Plan) => p.run[0].count === -3, "a bad run count is sent as typed, so Rust names the field (never silently 1)"],
  ] as [Record<string, string>, (p: Plan) => boolean, string][])("%j", (change, check, why) => {
    expect(check(applyForm(plan, { ...formOf(plan), ...change })), why).toBe(true);
  });
  it("keeps a spot checkpoint interval only for spot plans", () => {
    const spot = applyForm({ ...plan, payment: "spot" }, { ...formOf(plan), checkpoint: "3" });
    expect(spot.spot?.checkpoint_every_epochs, "spot plans checkpoint every N epochs").toBe("3");
    expect(applyForm(plan, formOf(plan)).spot, "on-demand plans have no spot table").toBeNull();
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
    expect(formatCny("16", "zh"), "yuan sign, two places").toBe("¥16.00");
    expect(formatCny(1234.5, "en"), "grouping in English").toContain("1,234.50");
  });
});

describe("errors", () => {
  const t = (k: string, o?: Record<string, unknown>) => `${k}:${JSON.stringify(o)}`;
  it("names the field of an input error", () => {
    const e = { kind: "input", detail: { field: "batch", message: "0 is out of range", allowed: "1..=1000000" } };
    expect(isAppError(e), "the tagged error is recognised").toBe(true);
    expect(errorText(e, t), "the field is named through the catalog").toContain("field.batch");
    const named = (k: string, o?: Record<string, unknown>) => (k === "field.batch" ? "批大小" : k === "error.input" || k === "error.inputBare" ? `${o?.field}: ${o?.message}` : String(o?.defaultValue ?? k));
    expect(errorText(e, named), "in the UI language").toBe("批大小: 0 is out of range");
    const other = { kind: "input", detail: { field: "lora_targets", message: "bad", allowed: "" } };
    expect(errorText(other, named), "a field without a name in the catalog is shown as is").toBe("lora_targets: bad");
  });
  it("words a keyed error from the catalog, not its English text", () => {
    const catalog: Record<string, string> = {
      "field.batch": "批大小",
      "field.model": "模型",
      "error.input": "{{field}}：{{message}}（允许：{{allowed}}）",
      "error.inputBare": "{{field}}：{{message}}",
      "error.outOfRange": "{{value}} 超出范围",
      "allowed.whole": "{{min}} 到 {{max}} 之间的整数",
      "error.unknownId": "没有叫“{{id}}”的{{what}}",
      "noun.model-id": "模型",
      "error.inFile": "{{file}}：{{message}}",
    };
    const zh = (k: string, o?: Record<string, unknown>) =>
      (catalog[k] ?? String(o?.defaultValue ?? k)).replace(/\{\{(\w+)\}\}/g, (_, n) => String(o?.[n] ?? ""));
    const e = {
      kind: "input",
      detail: {
        field: "batch",
        message: "0 is out of range",
        allowed: "a whole number from 1 to 64",
        said: { message: { key: "error.outOfRange", params: { value: "0" } }, allowed: { key: "allowed.whole", params: { min: "1", max: "64" } } },
      },
    };
    expect(errorText(e, zh), "every word from the Chinese catalog").toBe("批大小：0 超出范围（允许：1 到 64 之间的整数）");
    const unknown = {
      kind: "input",
      detail: { field: "model", message: "unknown model id `x`", allowed: "", said: { message: { key: "error.unknownId", params: { id: "x", what: "noun.model-id", file: "a.toml" } }, allowed: null } },
    };
    expect(errorText(unknown, zh), "a parameter that is a key is worded too, the file first").toContain("a.toml：没有叫“x”的模型");
  });
  it("words a keyed data error from the catalog, not the parser's English", () => {
    const catalog: Record<string, string> = {
      "error.data": "{{file}}:{{line}}：{{field}}：{{message}}",
      "error.dataSaid": "{{file}}：{{message}}",
      "error.dataSaidField": "{{file}}：{{field}}：{{message}}",
      "error.parse.notToml": "不是有效的 TOML 文件：第 {{line}} 行第 {{column}} 列有语法错误",
      "error.parse.unknownField": "第 {{line}} 行第 {{column}} 列：这里没有叫“{{name}}”的字段",
    };
    const zh = (k: string, o?: Record<string, unknown>) =>
      (catalog[k] ?? String(o?.defaultValue ?? k)).replace(/\{\{(\w+)\}\}/g, (_, n) => String(o?.[n] ?? ""));
    const data = (field: string, message: string, said: { key: string; params: Record<string, string> } | null) => ({
      kind: "data",
      detail: { file: "plan.toml", line: 2, field, message, said },
    });
    // (error, expected text, why)
    const cases: [unknown, string, string][] = [
      [
        data("", "key with no value, expected `=`", { key: "error.parse.notToml", params: { line: "2", column: "10" } }),
        "plan.toml：不是有效的 TOML 文件：第 2 行第 10 列有语法错误",
        "a syntax error in Chinese, with no parser English and no backticks",
      ],
      [
        data("foo", "unknown field `foo`, expected one of `name`", { key: "error.parse.unknownField", params: { line: "2", column: "1", name: "foo" } }),
        "plan.toml：foo：第 2 行第 1 列：这里没有叫“foo”的字段",
        "a key the schema refuses, its field named",
      ],
      [data("job.batch", "must be at least 1", null), "plan.toml:2：job.batch：must be at least 1", "an error not keyed yet keeps its own text"],
    ];
    for (const [e, text, why] of cases) expect(errorText(e, zh), why).toBe(text);
  });
  it("survives a non-app error", () => {
    expect(errorText(new Error("boom"), t), "unknown errors still get a sentence").toContain("error.unknown");
  });
});

describe("exports", () => {
  const rows = [{ category: "GPU 计算", text: '=HYPERLINK("x")', amount: "¥15.00", value: "15.00" }, { category: "credit", text: "credit", amount: "-¥5.00", value: "-5.00" }];
  it("CSV quotes cells and defuses formulas, but keeps negative amounts numbers", () => {
    const csv = billCsv(rows, "10.00", ["category", "line", "amount"], "total");
    expect(csv, "a formula is defused").toContain(`"'=HYPERLINK(""x"")"`);
    expect(csv, "a credit stays a number").toContain(`"-5.00"`);
    expect(csv.trim().split("\r\n").length, "header, two lines, total").toBe(4);
  });
  it("CSV opens in Excel on Chinese Windows: BOM, named columns, numbers a sheet can sum", () => {
    const csv = billCsv(rows, "10.00", ["类别", "明细", "金额（元）"], "现金合计");
    expect(csv.startsWith("\uFEFF"), "a UTF-8 byte order mark first").toBe(true);
    const lines = csv.slice(1).trim().split("\r\n");
    expect(lines[0], "the header names the columns it heads").toBe('"类别","明细","金额（元）"');
    expect(lines[1].endsWith('"15.00"'), "an amount is a plain number, not ¥15.00").toBe(true);
    expect(csv, "no currency sign in any amount").not.toContain("¥");
    expect(lines[3], "the total a plain number too").toBe('"现金合计","","10.00"');
  });
  it("HTML report escapes a plan named <script>", () => {
    const html = billHtml("Report", "<script>alert(1)</script>", rows, "Total", "10.00", ["<b>x</b>"], "en");
    expect(html, "no live script").not.toContain("<script>alert");
    expect(html, "escaped as text").toContain("&lt;script&gt;");
    expect(html, "warnings escaped").toContain("&lt;b&gt;");
  });
  it("the report is one page: job, memory, options, bill, chart and checklist", () => {
    const html = billHtml("计划与预算", "resnet18", rows, "合计", "¥10.00", [], "zh", {
      sections: [{ heading: "任务", lines: ["ResNet-18 (CIFAR)", "<i>FP32</i>"] }, { heading: "空", lines: [] }],
      chartSvg: "<svg><script>x</script></svg>",
      checklistHeading: "付钱前检查",
      checklist: ["设置自动关机"],
      billHeading: "账单",
    });
    expect(html, "the job section").toContain("ResNet-18 (CIFAR)");
    expect(html, "section lines escaped").toContain("&lt;i&gt;FP32");
    expect(html, "an empty section is left out").not.toContain("<h2>空</h2>");
    expect(html, "the chart is an image, never inline markup").toContain('<img class="chart" alt="" src="data:image/svg+xml');
    expect(html, "no live script from the chart").not.toContain("<script>x");
    expect(html, "the checklist").toContain("设置自动关机");
    expect(html, "printed on one A4 page").toContain("@page{size:A4");
    expect(html, "in the UI language").toContain('lang="zh-CN"');
  });
  it("SVG is shown through a data URL, never as markup, in the UI language", () => {
    expect(svgDataUrl("<svg><text>&lt;script&gt;</text></svg>"), "a data URL").toMatch(/^data:image\/svg\+xml/);
    expect(decodeURIComponent(chartUrl({ zh: "<svg>中</svg>", en: "<svg>en</svg>" }, "zh")), "the Chinese rendering").toContain("中");
  });
});

describe("api (mocked IPC)", () => {
  it("passes arguments by the command's parameter names", async () => {
    const call = vi.fn().mockResolvedValue(7);
    const api = makeApi(call);
    await api.savePlan(null, plan, null);
    expect(call, "save_plan gets id, plan and situation").toHaveBeenCalledWith("save_plan", { id: null, plan, situation: null });
    await api.estimate(plan.job, "rtx3090", "autodl");
    expect(call, "estimate gets the job, the card and the platform, no language").toHaveBeenLastCalledWith("estimate", { job: plan.job, gpu: "rtx3090", platform: "autodl" });
  });
});

describe("fields checked as they are typed", () => {
  const batch: FieldLimit = { field: "batch", min: 1, max: 1000000, min_exclusive: false, integer: true };
  const deadline: FieldLimit = { field: "deadline_hours", min: 0, max: 87600, min_exclusive: true, integer: false };
  const budget: FieldLimit = { field: "budget", min: 0, max: 10000000, min_exclusive: false, integer: false };
  // [text, limit, expected problem key or null, why]
  const cases: [string, FieldLimit, string | null, string][] = [
    ["128", batch, null, "a batch in range"],
    ["", batch, null, "empty means the default"],
    ["abc", batch, "form.notNumber", "letters are not silently ignored"],
    ["12abc", batch, "form.notNumber", "a number with letters after it is not a number"],
    ["1e309", batch, "form.rangeWhole", "too large for a double is out of range, not 'not a number'"],
    ["0", batch, "form.rangeWhole", "batch 0 is refused where it is typed"],
    ["999999999", batch, "form.rangeWhole", "beyond the core's largest batch"],
    ["1.5", batch, "form.whole", "a batch is whole"],
    ["-50", budget, "form.range", "a negative budget is refused on step 1"],
    ["0", budget, null, "a zero budget is allowed (free tiers)"],
    ["0", deadline, "form.rangeAbove", "a deadline of zero hours is refused"],
    ["99999999999", deadline, "form.rangeAbove", "a deadline past ten years is refused"],
    ["1e3", deadline, null, "scientific notation is a number"],
  ];
  for (const [text, limit, key, why] of cases) {
    it(why, () => {
      expect(checkNumber(text, limit, "en")?.key ?? null, why).toBe(key);
    });
  }
  it("says the range in the UI language", () => {
    const p = checkNumber("0", batch, "zh");
    expect(p?.params, "the bounds, formatted for zh-CN").toEqual({ min: "1", max: "1,000,000" });
    expect(checkNumber("", batch, "en", true)?.key, "a required field cannot be empty").toBe("form.required");
  });
});

describe("dates typed as YYYY-MM-DD", () => {
  // [text, required, expected key, why]
  const cases: [string, boolean, string | null, string][] = [
    ["2026-11-30", false, null, "a real day"],
    ["", false, null, "an optional date may be empty"],
    ["", true, "form.required", "a required date may not"],
    ["11/30/2026", false, "form.date", "the US format is not what files store"],
    ["2026-02-30", false, "form.date", "February has no 30th"],
    ["2026-13-01", false, "form.date", "no thirteenth month"],
  ];
  for (const [text, required, key, why] of cases) {
    it(why, () => expect(checkDate(text, required)?.key ?? null, why).toBe(key));
  }
  it("a year outside the years Rust takes says the range", () => {
    const years: FieldLimit = { field: "year", min: 2000, max: 2100, integer: true, min_exclusive: false };
    expect(checkDate("9999-12-31", false, years), "a typo'd year").toEqual({ key: "form.dateRange", params: { min: "2000-01-01", max: "2100-12-31" } });
    expect(checkDate("2100-12-31", false, years), "the last day allowed").toBeNull();
    expect(checkDate("1999-12-31", false, years)?.key).toBe("form.dateRange");
  });
});

describe("words a student knows", () => {
  it("dates and durations in the locale", () => {
    expect(formatDate("2026-11-30", "zh"), "a Chinese date").toBe("2026年11月30日");
    expect(formatDate("2026-11-30", "en"), "an English date").toBe("Nov 30, 2026");
    expect(formatHours("0.6", "zh"), "0.6 h is 36 minutes").toBe("36.0 分钟");
    expect(formatHours("2.5", "en"), "hours stay hours").toBe("2.5 h");
  });
  it("cards by name and memory", () => {
    expect(cardLabel("NVIDIA GeForce RTX 4090", 23.99), "the memory as listings say it").toBe("RTX 4090 24 GB");
    expect(cardLabel("NVIDIA A100 80GB SXM4", 80), "a name that says its memory is not repeated").toBe("A100 80GB SXM4");
    expect(cardLabel("NVIDIA H800 SXM", 80), "the vendor prefix dropped").toBe("H800 SXM 80 GB");
  });
  it("advice every option shares is said once", () => {
    const { shared, own } = splitShared([["a", "b"], ["a", "c"], ["a"]], (x) => x);
    expect(shared, "the line all three share").toEqual(["a"]);
    expect(own, "each option keeps only its own lines").toEqual([["b"], ["c"], []]);
    expect(splitShared([["a"]], (x) => x).shared, "one option shares nothing").toEqual([]);
  });
});

describe("calibration", () => {
  const t = (k: string, o?: Record<string, unknown>) => `${k}(${Object.entries(o ?? {}).map(([a, b]) => `${a}=${String(b)}`).join(",")})`;
  it("says what was applied, from how many runs, with its range", () => {
    const note = calibrationNote({ on_card_runs: 1, own_runs: 3, class_runs: 0, time: { measured: 1.12, low: 1.05, high: 1.2, applied: 1.12, capped: false }, memory: null, memory_evidence_mib: null }, t);
    expect(note, "own runs counted").toContain("own=3");
    expect(note, "the time change and its range").toContain("pct=+12%");
    expect(note, "the range's low end").toContain("low=+5%");
    expect(note, "no memory sentence when memory was not measured").not.toContain("calibration.memory");
    expect(note, "an applied factor: the head says calibrated").toMatch(/^calibration\.note\(/);
  });
  it("says nothing changed when the runs agree with the estimate", () => {
    const note = calibrationNote({ on_card_runs: 1, own_runs: 2, class_runs: 1, time: { measured: 1.02, low: 0.9, high: 1.15, applied: 1, capped: false }, memory: { measured: 0.99, low: 0.9, high: 1.1, applied: 1, capped: false }, memory_evidence_mib: null }, t);
    expect(note, "an unapplied factor is not presented as a change").toContain("calibration.notApplied");
    expect(note, "what the runs suggest is said, from the measured factor").toContain("pct=+2%");
    expect(note).not.toContain("calibration.unchanged");
    expect(note, "the head says compared, not calibrated, when nothing was applied").toMatch(/^calibration\.noteNone\(/);
  });
  it("says when the runs said more than the cap lets them apply", () => {
    const note = calibrationNote({ on_card_runs: 1, own_runs: 1, class_runs: 0, time: { measured: 0.4, low: 0.3, high: 0.5, applied: 0.87, capped: true }, memory: null, memory_evidence_mib: null }, t);
    expect(note, "a capped factor is named as capped").toContain("calibration.timeCapped");
    expect(note, "with what the runs measured beside the cap").toContain("measured=-60%");
  });
  it("signs percentages both ways", () => {
    expect(factorPct(0.85), "faster").toBe("-15%");
    expect(factorPct(1), "no change").toBe("0%");
    expect(factorPct(0.998), "rounds to nothing: no minus sign").toBe("0%");
  });
});

describe("dropped files", () => {
  it("imports json reports and names what it skipped", () => {
    const r = droppedReports([
      { name: "gpuplan-run-1.json", size: 900 },
      { name: "photo.png", size: 100 },
      { name: "huge.json", size: 10_000_000 },
    ], 65_536);
    expect(r.reports.map((f) => f.name), "only the small json report").toEqual(["gpuplan-run-1.json"]);
    expect(r.skipped, "the others are named").toEqual(["photo.png", "huge.json"]);
  });
});

describe("figures nobody checked", () => {
  const t = (k: string, o?: Record<string, unknown>) => (o ? `${k} ${JSON.stringify(o)}` : k);
  const u = { amount: "40.00", percent: 80, noted: true, figures: [{ figure: "price-per-hour", grade: "seed" }, { figure: "storage-price", grade: "estimate" }] } as const;
  it("names each figure with its grade and the share, beside the total", () => {
    const note = unverifiedNote({ ...u, figures: [...u.figures] }, t, "en");
    expect(note, "the catalog sentence").toContain("quote.unverified");
    expect(note, "the share").toContain('"percent":80');
    expect(note, "how many").toContain('"count":2');
    expect(note, "each figure with its grade").toContain("figure.price-per-hour (enum.grade.seed)");
  });
  it("says nothing under the threshold", () => {
    expect(unverifiedNote({ ...u, figures: [...u.figures], noted: false }, t, "en"), "a small share is not worth a note").toBe("");
  });
  it("uses Chinese punctuation in Chinese", () => {
    expect(unverifiedNote({ ...u, figures: [...u.figures] }, t, "zh"), "full-width brackets and the enumeration comma").toContain("figure.price-per-hour（enum.grade.seed）、figure.storage-price");
  });
  it("travels into the CSV and the printable report", () => {
    const rows = [{ category: "GPU", text: "runs", amount: "¥10.00", value: "10.00" }];
    expect(billCsv(rows, "10.00", ["a", "b", "c"], "Total", "3 figures <unverified>"), "a last row with the note").toContain('"3 figures <unverified>"');
    expect(billHtml("T", "s", rows, "Total", "10.00", [], "en", { note: "<b>note</b>" }), "escaped, after the table").toContain('<p class="note">&lt;b&gt;note&lt;/b&gt;</p>');
  });
});

describe("timeSplit", () => {
  const ts = (waiting: number, setup: number, running: number, reruns = 0, gaps = 0) => {
    const secs = [waiting, setup, running, reruns, gaps];
    // Rust's `time`: each part in hours to two places, half up, the total their sum.
    const h = secs.map((s) => Math.round(s / 36) / 100);
    const of = (v: number[]) => ({ waiting: String(v[0]), setup: String(v[1]), running: String(v[2]), reruns: String(v[3]), gaps: String(v[4]), total: String(v.reduce((a, b) => a + b, 0)) });
    return { time: of(h), time_seconds: of(secs) };
  };
  it("shows every part in the total's unit, the total the sum of the parts as shown", () => {
    // (seconds, language, total, running, why)
    const cases: [ReturnType<typeof ts>, string, string, string, string][] = [
      [ts(900, 720, 492), "zh", "35.2 分钟", "8.2 分钟", "the run is the bill's 8.2 min, not 0.14 h read back as 8.4"],
      [ts(900, 720, 492), "en", "35.2 min", "8.2 min", "the same in English"],
      [ts(0, 0, 20), "en", "20.0 s", "20.0 s", "a short run in seconds"],
      [ts(468, 1332, 10785), "en", "3.50 h", "3.00 h", "the CLI's 3.50 h (0.13 + 0.37 + 3.00), not tenths summed to 3.6"],
      [ts(0, 1530, 1530, 1530), "en", "1.29 h", "0.43 h", "0.425 h three times: 0.43 each and 1.29 in all, as the CLI prints it"],
    ];
    for (const [t, lang, total, running, why] of cases) {
      const s = timeSplit(t, lang);
      expect(s.total, why).toBe(total);
      expect(s.parts.running, why).toBe(running);
    }
  });
});

describe("shown", () => {
  it("writes what would act rather than show as its code point, as the CLI does", () => {
    // (typed, shown, why)
    const cases: [string, string, string][] = [
      ["\u202Eevil", "[U+202E]evil", "a right-to-left override cannot make “evil” read “live”"],
      ["a\u200Bb", "a[U+200B]b", "a zero-width space is seen"],
      ["\u001b[31mred", "[U+001B][31mred", "an escape sequence is inert"],
      ["作业一 ResNet18 🎓", "作业一 ResNet18 🎓", "Chinese and emoji are shown as they are"],
      ["two\tcolumns", "two\tcolumns", "a tab stays"],
    ];
    for (const [typed, want, why] of cases) expect(shown(typed), why).toBe(want);
  });
});

describe("an imported run's notes", () => {
  const run = { ledger_id: 3, already_imported: false, identity: "x", plan_id: null, date: "2026-11-30", platform: "autodl", gpu: "rtx3090", gpu_in_catalog: true, teaches_calibration: false, set_aside: false, trained_on_gpus: null, plan_changed: false, plan_file_other: false, plan_not_found: false, card_assumed: false, run_id_reused: null, hours: "0.49", cost: "0.65", cost_estimated: true, peak_memory_mib: 2746, exit_status: 0, versus: null };
  it("says why a run compares with nothing or teaches nothing", () => {
    expect(importNotes(run), "a run of its plan: nothing to add").toEqual([]);
    expect(importNotes({ ...run, plan_not_found: true }).map(([k]) => k), "no saved plan of its name").toEqual(["cli.runNoPlan"]);
    expect(importNotes({ ...run, plan_changed: true, trained_on_gpus: 2 }), "both reasons, with the GPUs").toEqual([["cli.runPlanChanged"], ["cli.runOtherLayout", { count: 2 }]]);
    expect(importNotes({ ...run, gpu_in_catalog: false, gpu: "NVIDIA X" }), "a card the catalog lacks").toEqual([["cli.runUnknownGpu", { gpu: "NVIDIA X" }]]);
    expect(importNotes({ ...run, already_imported: true, plan_not_found: true }), "imported before: only that is said").toEqual([]);
    expect(importNotes({ ...run, card_assumed: true }), "no card measured: said at import, not only in the ledger").toEqual([["cli.runCardAssumed", { gpu: "rtx3090" }]]);
    expect(importNotes({ ...run, run_id_reused: { bill: 2, run_id: "exp", part: 1 } }), "a reused run id names the bill").toEqual([["cli.runIdReused", { run: "exp", part: 1, id: 2 }]]);
    expect(importNotes({ ...run, run_id_reused: { bill: null, run_id: "exp", part: 1 } })[0][0], "or the other report in this import").toBe("cli.runIdReusedHere");
  });
  it("makes a catalog clause a sentence of its own", () => {
    expect(asSentence("the run trained on 2 GPUs", "en"), "capitalised and stopped").toBe("The run trained on 2 GPUs.");
    expect(asSentence("Already stopped.", "en"), "stopped once").toBe("Already stopped.");
    expect(asSentence("校准不会从它学习", "zh"), "a Chinese full stop").toBe("校准不会从它学习。");
  });
});
