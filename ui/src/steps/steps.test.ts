// @vitest-environment jsdom
// Each step's validation and behaviour, over a fake backend (src/test/fake.ts).
import { describe, it, expect } from "vitest";
import { render, screen, fireEvent, waitFor } from "@testing-library/svelte";
import SituationStep from "./SituationStep.svelte";
import JobStep from "./JobStep.svelte";
import MemoryStep from "./MemoryStep.svelte";
import OptionsStep from "./OptionsStep.svelte";
import BeforeStep from "./BeforeStep.svelte";
import { startedStore, fakeOption, fakeEstimate, plan0 } from "../test/fake";

const type = (el: HTMLElement, value: string) => fireEvent.input(el, { target: { value } });

describe("step 1, the situation", () => {
  it("refuses what the core refuses, beside the field, and holds Next", async () => {
    const { app } = await startedStore();
    render(SituationStep, { app });
    await type(screen.getByLabelText("Budget (CNY)"), "-50");
    expect(await screen.findByText(/Enter a number from 0/), "the range is said beside the field").toBeTruthy();
    expect(app.blocking?.label, "Next waits for the budget").toBe("Budget (CNY)");
    expect(app.situation!.budget, "the bad value never reaches the situation").toBe("150");
    await type(screen.getByLabelText("Runs in the experiment plan"), "abc");
    expect(screen.getByText("Enter a number.")).toBeTruthy();
  });

  it("takes numbers as people type them: full-width, thousands, units", async () => {
    const { app } = await startedStore("zh");
    render(SituationStep, { app });
    const budget = document.getElementById("budget") as HTMLInputElement;
    for (const [typed, want] of [["１５０", "150"], ["1,000", "1000"], ["1，000", "1000"], ["150元", "150"], ["¥ 80", "80"]]) {
      await type(budget, typed);
      expect(app.situation!.budget, typed).toBe(want);
      expect(app.blocking, `${typed} is a number`).toBeNull();
    }
    await type(budget, "150GB");
    expect(app.blocking, "a unit of another kind is not money").not.toBeNull();
    await type(budget, "150");
    await type(document.getElementById("deadline")!, "48 小时");
    expect(app.situation!.deadline_hours).toBe("48");
  });

  it("shows what an empty optional field means", async () => {
    const { app } = await startedStore();
    render(SituationStep, { app });
    expect((document.getElementById("deadline") as HTMLInputElement).placeholder).toBe("no deadline");
  });
});

describe("step 2, the job", () => {
  it("a search that matches nothing says so and keeps the model", async () => {
    const { app } = await startedStore();
    render(JobStep, { app });
    await type(screen.getByLabelText("Search models"), "zzz");
    expect(await screen.findByText(/No model matches “zzz”/)).toBeTruthy();
    const model = document.getElementById("model") as HTMLSelectElement;
    expect(model.options.length, "the chosen model stays listed").toBe(1);
    expect(model.value).toBe("resnet18-cifar");
  });

  it("a preset keeps the runs typed on step 1", async () => {
    const { app } = await startedStore();
    app.setRuns(7);
    render(JobStep, { app });
    await fireEvent.click(document.getElementById("preset-llama7b-lora")!);
    expect(app.job!.model, "the preset's job is taken").toBe("llama-2-7b");
    expect(app.situation!.runs, "the typed runs are kept").toBe(7);
    expect(app.toast?.text).toMatch(/Kept your run count, 7/);
    app.setRuns(9);
    await app.setLang("zh");
    expect(app.toast?.text, "a toast shown follows the language switched to, its figures as when it was said").toMatch(/已保留.*7/);
  });

  it("refuses a batch the core refuses, and takes it back when fixed", async () => {
    const { app } = await startedStore("zh");
    render(JobStep, { app });
    const batch = document.getElementById("batch") as HTMLInputElement;
    await type(batch, "0");
    expect(await screen.findByText(/请输入 1 到 65,536 之间的整数/), "the range in Chinese").toBeTruthy();
    expect(app.blocking).not.toBeNull();
    await type(batch, "２５６");
    expect(app.blocking).toBeNull();
    expect(app.job!.batch).toBe(256);
  });

  it("a preset sets the runs nobody typed", async () => {
    const { app } = await startedStore();
    render(JobStep, { app });
    await fireEvent.click(document.getElementById("preset-llama7b-lora")!);
    expect(app.situation!.runs).toBe(3);
  });

  it("offers the attention kernels Rust gives each model: none for a CNN, eager or SDPA for a ViT", async () => {
    const { app } = await startedStore();
    render(JobStep, { app });
    expect(document.getElementById("attention"), "a CNN has no attention to choose").toBeNull();
    app.job!.model = "vit-b-16";
    await waitFor(() => expect(document.getElementById("attention"), "a vision transformer has").not.toBeNull());
    const select = document.getElementById("attention") as HTMLSelectElement;
    const kernels = [...select.options].map((o) => o.value).filter((v) => v === "eager" || v === "sdpa" || v === "flash");
    expect(kernels, "the vision transformer's kernels, as Rust lists them").toEqual(["eager", "sdpa"]);
  });

  it("empty fields show the estimator's defaults", async () => {
    const { app } = await startedStore();
    render(JobStep, { app });
    await waitFor(() => expect((document.getElementById("batch") as HTMLInputElement).placeholder).toBe("default 128"));
  });

  it("a job given in hours shows the same defaults in its empty fields", async () => {
    const { app, backend } = await startedStore();
    // A saved plan or a course preset whose job is the hours of a run.
    app.job = { ...app.job!, model: null, hours: "10" };
    render(JobStep, { app });
    // (field, placeholder, why): every one from Rust's resolved job, none typed here.
    const cases: [string, string, string][] = [
      ["batch", "default 128", "the batch"],
      ["resolution", "default 32", "the image size"],
      ["samples", "default 50000", "the dataset size"],
      ["epochs", "default 50", "the epochs"],
      ["gpus", "default 1", "the GPU count"],
    ];
    for (const [id, placeholder, why] of cases) {
      await waitFor(() => expect((document.getElementById(id) as HTMLInputElement).placeholder, why).toBe(placeholder));
    }
    const asked = backend.last("estimate")?.job as { hours: unknown; model: unknown };
    expect(asked.hours, "Rust was asked for the job without its hours").toBeNull();
    expect(asked.model, "on the new job's model, as the job names none").toBe(app.info!.defaults.situation.job.model);
    expect(app.job!.hours, "the student's job keeps its hours").toBe("10");
    expect(app.estimate, "the stand-in estimate is not the memory screen's").toBeNull();
  });
});

describe("step 3, memory", () => {
  it("lists the parts of the peak in the order the chart and the CLI do, not by their keys", async () => {
    const { app, backend } = await startedStore();
    backend.setEstimate(() => {
      const e = fakeEstimate();
      (e.report as unknown as Record<string, unknown>).components = { activations: 2, allocator: 0.5, context: 0.8, gradients: 0.1, optimizer: 0.2, weights: 0.1 };
      return e;
    });
    render(MemoryStep, { app });
    await waitFor(() => expect(document.querySelectorAll("#components tr").length).toBe(6));
    const parts = [...document.querySelectorAll("#components tr td:first-child")].map((td) => td.textContent);
    expect(parts[0], "weights first, as in the legend").toMatch(/eights/);
    expect(parts.at(-1), "the CUDA context last").toMatch(/context/i);
  });

  it("gives times only to cards that hold the job", async () => {
    const { app } = await startedStore();
    render(MemoryStep, { app });
    await waitFor(() => expect(document.getElementById("peak-gib")?.textContent).toBe("3.21"));
    expect(document.querySelector('tr[data-gpu="rtx3090"] .step-seconds'), "a card that fits is timed").not.toBeNull();
    expect(document.querySelector('tr[data-gpu="tiny"] .step-seconds'), "one that does not is not").toBeNull();
    expect(document.querySelector('tr[data-gpu="tiny"] .no-time')?.textContent).toBe("does not fit: no time");
  });

  it("gives no time, run or multi-GPU speed on a target the job does not fit", async () => {
    const { app, backend } = await startedStore();
    backend.setEstimate(() => {
      const e = fakeEstimate();
      const r = e.report as unknown as Record<string, unknown>;
      r.gpus = [{ ...(r.gpus as Record<string, unknown>[])[0], verdict: "does-not-fit" }];
      r.run = { total_s: 3600, bound: "gpu", input_share: 0.1 };
      r.parallel = { layout: { gpus: 2, engine: "ddp", offload: false, pcie_gbps: null }, peak_gib: 38.1, step_seconds: 1.2, comm_seconds: 0.01, exposed_comm_seconds: 0, global_batch: 16, speedup: 2 };
      e.run_chart = e.chart;
      return e;
    });
    render(MemoryStep, { app });
    await waitFor(() => expect(document.getElementById("parallel-summary")).not.toBeNull());
    expect(document.getElementById("parallel-summary")!.textContent, "two cards that cannot hold it are not a speed-up").toMatch(/does not fit/);
    expect(document.getElementById("parallel-summary")!.textContent, "and no time is quoted").not.toMatch(/2\.0×|per step/);
    expect(document.getElementById("run-chart"), "no whole-run split on a card it does not fit").toBeNull();
    expect(document.getElementById("run-no-fit")?.textContent, "says why instead").toMatch(/not timed/);
  });

  it("says how close step times came on the target's class, and for every class", async () => {
    for (const lang of ["en", "zh"] as const) {
      const { app } = await startedStore(lang);
      const { unmount } = render(MemoryStep, { app });
      await waitFor(() => expect(document.getElementById("step-accuracy")).not.toBeNull());
      const line = document.getElementById("step-accuracy")!.textContent!;
      expect(line, `${lang}: the class and its keyed verdict are worded, not shown as keys`).not.toMatch(/enum\.|\{\{/);
      expect(line, `${lang}: the held-out median is quoted`).toContain("7.3%");
      const rows = document.querySelectorAll("#accuracy-table tbody tr");
      expect(rows.length, `${lang}: one class, one node, all (no several-nodes runs: no row)`).toBe(3);
      expect(document.querySelector('#accuracy-table tr[data-class="all"]')?.textContent, `${lang}: signed bias keeps its sign`).toContain("+0.7%");
      expect(document.querySelector('#accuracy-memory tr[data-setup="lora"]')?.textContent, `${lang}: never under-estimated says so, not a positive "worst"`).not.toContain("+2.5%");
      expect(document.querySelector('#accuracy-memory tr[data-setup="several-gpus"]')?.textContent, `${lang}: a real under-estimate is shown`).toContain("-0.7%");
      unmount();
    }
  });
});

describe("step 4, options", () => {
  it("applies an option's fix in one click and ranks again", async () => {
    const { app, backend } = await startedStore();
    const fixed = { ...plan0, job: { ...plan0.job, grad_checkpointing: true } };
    backend.setOptions([fakeOption({ fit: "fits", fix: { kind: "grad-checkpointing", job: {} as never, peak_gib: 20.5, accumulation_steps: null, step_seconds: 1 }, plan: fixed })]);
    render(OptionsStep, { app });
    const button = await screen.findByText("Apply this fix");
    const before = backend.count("recommend");
    expect(screen.getByText(/prices as of/), "the option's prices are dated").toBeTruthy();
    await fireEvent.click(button);
    expect(app.job!.grad_checkpointing).toBe(true);
    await waitFor(() => expect(backend.count("recommend")).toBeGreaterThan(before));
  });

  it("lists the first ten options and every one on asking, for the situation on screen", async () => {
    const { app, backend } = await startedStore();
    backend.setOptions(Array.from({ length: 12 }, (_, i) => fakeOption({ gpu: i % 2 ? "rtx4090" : "rtx3090", score: -i })));
    render(OptionsStep, { app });
    await waitFor(() => expect(document.querySelectorAll(".option").length).toBe(10));
    const more = await screen.findByText("Show 2 more options");
    await fireEvent.click(more);
    await waitFor(() => expect(document.querySelectorAll(".option").length, "all twelve").toBe(12));
    expect(backend.last("recommend")?.all).toBe(true);
    expect(document.getElementById("options-all"), "nothing more to show").toBeNull();
  });

  it("says how many GPUs an option rents when the student's job asks for several", async () => {
    const { app, backend } = await startedStore();
    const four = { ...plan0, job: { ...plan0.job, gpus: 4, engine: "zero3" as const, offload: true } };
    backend.setOptions([fakeOption({ plan: four }), fakeOption({ gpu: "rtx4090", gpu_name: "RTX 4090 24 GB" })]);
    render(OptionsStep, { app });
    await waitFor(() => expect(document.querySelectorAll(".option").length).toBe(2));
    const [multi, single] = [...document.querySelectorAll(".option .row")].map((r) => r.textContent ?? "");
    expect(multi, "its quote bills four cards: the option says so").toMatch(/4 × RTX 3090 24 GB \(DeepSpeed ZeRO-3/);
    expect(single, "one card is named alone").not.toMatch(/×/);
  });
});

describe("step 6, before you rent", () => {
  it("keeps ticks when the kit is made again, and the list when the command is cleared", async () => {
    const { app } = await startedStore();
    render(BeforeStep, { app });
    await waitFor(() => expect(document.querySelectorAll("#checklist li").length).toBe(2));
    const first = () => document.querySelector("#checklist input") as HTMLInputElement;
    await fireEvent.click(first());
    expect(first().checked).toBe(true);
    const command = document.getElementById("train-command") as HTMLInputElement;
    await type(command, "python train.py --epochs 2");
    await fireEvent.change(command);
    await waitFor(() => expect(first().checked, "the tick survives the new kit").toBe(true));
    await type(command, "");
    await fireEvent.change(command);
    expect(document.querySelectorAll("#checklist li").length, "the list stays").toBe(2);
    expect(screen.getByText(/Enter your training command first/)).toBeTruthy();
  });
});
