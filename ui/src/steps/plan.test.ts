// @vitest-environment jsdom
// The plan step: the bill follows its inputs (no stale bill on screen or in
// an export), the total says when it is over budget and how old its prices
// are, and saving never loses a plan.
import { describe, it, expect } from "vitest";
import { render, screen, fireEvent, waitFor } from "@testing-library/svelte";
import PlanStep from "./PlanStep.svelte";
import SituationStep from "./SituationStep.svelte";
import Question from "../lib/Question.svelte";
import Toast from "../lib/Toast.svelte";
import { startedStore, fakeOption, plan0 } from "../test/fake";

const type = (el: HTMLElement, value: string) => fireEvent.input(el, { target: { value } });
const total = () => document.getElementById("cash-total")?.getAttribute("data-value");

describe("the bill", () => {
  it("is priced again when runs change on step 1, without Compute", async () => {
    const { app, backend } = await startedStore();
    const step1 = render(SituationStep, { app });
    await type(document.getElementById("runs")!, "2");
    step1.unmount();
    render(PlanStep, { app });
    await waitFor(() => expect(total(), "the bill of 2 runs").toBe("20.00"));
    await type(document.getElementById("plan-runs")!, "4");
    expect(screen.getByText("Updating the bill…"), "a bill being priced again says so").toBeTruthy();
    await waitFor(() => expect(total(), "the bill follows the runs").toBe("40.00"));
    expect(backend.last("quote")?.plan).toMatchObject({ run: [{ count: 4 }] });
  });

  it("asks once for a burst of typing (debounced)", async () => {
    const { app, backend } = await startedStore();
    render(PlanStep, { app });
    await waitFor(() => expect(total()).toBe("10.00"));
    const before = backend.count("quote");
    for (const v of ["1", "12", "123"]) await type(document.getElementById("plan-storage")!, v);
    await waitFor(() => expect(backend.count("quote")).toBe(before + 1));
  });

  it("exports the bill of what is on screen, even right after a change", async () => {
    const { app, backend } = await startedStore();
    render(PlanStep, { app });
    await waitFor(() => expect(total()).toBe("10.00"));
    await type(document.getElementById("plan-runs")!, "3");
    await fireEvent.click(document.getElementById("export-csv")!);
    await waitFor(() => expect(backend.count("export_file")).toBe(1));
    const csv = String(backend.last("export_file")?.content);
    expect(csv, "the CSV holds the new total").toContain("30.00");
    expect(csv).not.toContain('"10.00"');
  });

  it("marks the total over budget and dates its prices, with how to refresh stale ones", async () => {
    const { app } = await startedStore();
    render(PlanStep, { app });
    await type(document.getElementById("plan-budget")!, "15");
    await type(document.getElementById("plan-runs")!, "2");
    await waitFor(() => expect(document.getElementById("over-budget")?.textContent).toMatch(/over the budget of CN¥15\.00 by CN¥5\.00/));
    expect(document.querySelector("tr.total.over-budget"), "the total row is marked").not.toBeNull();
    expect(document.getElementById("prices-age")?.textContent).toMatch(/Prices as of Jan 1, 2026 \(334 d ago\)/);
    expect(document.getElementById("prices-age")?.textContent, "stale prices say how to refresh").toMatch(/course pack/);
    expect(document.getElementById("prices-age")?.textContent, "and which price is the old one").toMatch(/GPU price per hour/);
    await fireEvent.click(document.getElementById("refresh-my-price")!);
    expect(document.activeElement?.id, "one click to the price form").toBe("my-price");
  });
});

describe("the price box and a field the core refuses", () => {
  it("checks the price as typed, like every number field, and saves only a price", async () => {
    const { app, backend } = await startedStore();
    render(PlanStep, { app });
    const box = document.getElementById("my-price")!;
    await type(box, "abc");
    expect(await screen.findByText(/not a number|number/i), "said beside the box").toBeTruthy();
    expect((document.getElementById("save-price") as HTMLButtonElement).disabled, "nothing to save").toBe(true);
    await type(box, "2.3元");
    expect((document.getElementById("save-price") as HTMLButtonElement).disabled, "a price with its unit is a price").toBe(false);
    await fireEvent.click(document.getElementById("save-price")!);
    await waitFor(() => expect(backend.last("set_override")?.price).toBe("2.3"));
  });

  it("says when the plan's own price wins over a saved one, and gives the way back", async () => {
    const { app } = await startedStore();
    app.plan!.prices.gpu_per_hour = "2.5";
    render(PlanStep, { app });
    expect(document.getElementById("own-price")?.textContent, "the plan's price is named").toMatch(/own price, 2\.5 CNY/);
    await fireEvent.click(document.getElementById("use-saved-prices")!);
    expect(app.plan!.prices.gpu_per_hour, "the plan now takes the listed and saved prices").toBeNull();
    await waitFor(() => expect(document.getElementById("own-price")).toBeNull());
  });

  it("greys the bill while a field holds what the core would refuse", async () => {
    const { app } = await startedStore();
    render(PlanStep, { app });
    await waitFor(() => expect(total()).toBe("10.00"));
    await type(document.getElementById("plan-storage")!, "1e309");
    await waitFor(() => expect(document.getElementById("bill")?.classList.contains("updating"), "greyed").toBe(true));
    expect(document.getElementById("bill-state")?.textContent, "and says which field to fix").toMatch(/fix .* first/);
  });
});

describe("a bill Rust cannot price", () => {
  it("says so instead of updating forever, and prices again once the input changes", async () => {
    const { app, backend } = await startedStore();
    const fallback = backend.invoke.getMockImplementation()!;
    backend.invoke.mockImplementation(async (cmd: string, args: Record<string, unknown> = {}) => {
      if (cmd === "quote" && (args.plan as { budget: string | null }).budget === "7") {
        throw { kind: "input", detail: { field: "job.epochs", message: "a run of more than ten years", allowed: "", said: { message: { key: "error.runTooLong", params: { hours: "99999", years: "11" } }, allowed: null } } };
      }
      return fallback(cmd, args);
    });
    render(PlanStep, { app });
    await waitFor(() => expect(total()).toBe("10.00"));
    await type(document.getElementById("plan-budget")!, "7");
    await waitFor(() => expect(document.getElementById("bill-state")?.textContent).toBe("The bill cannot be priced until the problem above is fixed."));
    expect(app.error, "the banner says why").not.toBe("");
    expect(total(), "no stale bill stays on screen").toBeUndefined();
    await type(document.getElementById("plan-budget")!, "70");
    await waitFor(() => expect(total(), "a change prices again").toBe("10.00"));
    expect(document.getElementById("bill-state")?.textContent).toBe("");
  });
});

describe("the plan's fields", () => {
  it("take hours and gigabytes with their units, refuse other units, and hold Next", async () => {
    const { app, backend } = await startedStore();
    render(PlanStep, { app });
    await waitFor(() => expect(total()).toBe("10.00"));
    await type(document.getElementById("plan-hours")!, "6 小时");
    await type(document.getElementById("plan-storage")!, "20GB");
    expect(app.blocking).toBeNull();
    await waitFor(() => expect(backend.last("quote")?.plan).toMatchObject({ job: { hours: "6" }, storage: { gb: "20" } }));
    await type(document.getElementById("plan-hours")!, "6元");
    expect(app.blocking?.label, "money is not hours").toMatch(/Hours per run/);
    expect((document.getElementById("plan-start") as HTMLInputElement).placeholder, "an empty date says it is not set").toBe("not set (YYYY-MM-DD)");
  });
});

describe("saving", () => {
  async function setup() {
    const s = await startedStore();
    render(PlanStep, { app: s.app });
    render(Question, { app: s.app });
    render(Toast, { app: s.app });
    const name = document.getElementById("plan-name") as HTMLInputElement;
    return { ...s, name, save: () => fireEvent.click(document.getElementById("plan-save")!), saveNew: () => fireEvent.click(document.getElementById("plan-save-new")!) };
  }

  it("marks changes not saved and asks before another plan replaces them", async () => {
    const { app, backend, name, save, saveNew } = await setup();
    await type(name, "one");
    await save();
    await waitFor(() => expect(app.plans.openId).toBe(1));
    await type(name, "two");
    await saveNew();
    await waitFor(() => expect(app.plans.openId).toBe(2));
    expect(document.getElementById("plan-dirty"), "just saved: nothing to mark").toBeNull();
    await type(document.getElementById("plan-runs")!, "5");
    await waitFor(() => expect(document.getElementById("plan-dirty"), "a change is marked").not.toBeNull());
    const one = () => app.plans.rows.find((r) => r.id === 1)!;
    const opening = app.plans.open(one());
    expect(await screen.findByText("The changes to “two” are not saved."), "asked, not dropped").toBeTruthy();
    await fireEvent.click(screen.getByText("Cancel"));
    await opening;
    expect(app.plans.openId, "cancel keeps the plan and its changes").toBe(2);
    const saving = app.plans.open(one());
    await fireEvent.click(await screen.findByText("Save them"));
    await saving;
    expect(backend.last("save_plan")?.id, "the changes were saved into their plan first").toBe(2);
    expect(backend.last("save_plan")?.plan, "with the change").toMatchObject({ run: [{ count: 5 }] });
    expect(app.plans.openId, "then the other plan opened").toBe(1);
    expect(app.plans.dirty, "as saved").toBe(false);
    await type(document.getElementById("plan-runs")!, "7");
    await waitFor(() => expect(app.plans.dirty).toBe(true));
    const reopening = app.plans.open(one());
    await fireEvent.click(await screen.findByText("Cancel"));
    await reopening;
    expect(app.plans.dirty, "opening the open plan again asks too: the change stays").toBe(true);
    const choosing = app.options.choose(fakeOption());
    await fireEvent.click(await screen.findByText("Discard them"));
    await choosing;
    expect(app.plans.openId, "an option chosen over changes asked about: a new plan, the saved one as saved").toBeNull();
    expect(backend.count("save_plan"), "discarded: nothing saved").toBe(3);
  });

  it("asks before the window closes over changes not saved or a chosen plan never saved", async () => {
    const { app, backend, name, save } = await setup();
    expect(await app.plans.mayClose(), "nothing chosen or opened: the window just closes").toBe(true);
    await app.options.choose(fakeOption());
    const closing = app.plans.mayClose();
    expect(await screen.findByText(/is not saved\. Save it before the app closes\?/), "a chosen plan is asked about").toBeTruthy();
    await fireEvent.click(screen.getByText("Cancel"));
    expect(await closing, "cancel keeps the window open").toBe(false);
    const saving = app.plans.mayClose();
    await fireEvent.click(await screen.findByText("Save it"));
    expect(await saving, "saved, then closes").toBe(true);
    expect(backend.plans.size, "the plan was saved before closing").toBe(1);
    expect(await app.plans.mayClose(), "saved and unchanged: no question").toBe(true);
    await type(name, "renamed");
    await waitFor(() => expect(app.plans.dirty).toBe(true));
    const dropping = app.plans.mayClose();
    await fireEvent.click(await screen.findByText("Discard them"));
    expect(await dropping, "discarded: closes").toBe(true);
    expect(backend.count("save_plan"), "discarding saves nothing").toBe(1);
    await save();
    await waitFor(() => expect(app.plans.dirty).toBe(false));
    await app.options.choose(fakeOption());
    const again = app.plans.mayClose();
    await fireEvent.click(await screen.findByText("Close without saving"));
    expect(await again, "a new plan dropped on purpose: closes").toBe(true);
  });

  it("asks before closing over edits made after the open plan was deleted, not over the deletion alone", async () => {
    const { app, name, save } = await setup();
    await type(name, "mine");
    await save();
    await waitFor(() => expect(app.plans.openId).toBe(1));
    await app.plans.remove(app.plans.rows[0]);
    expect(await app.plans.mayClose(), "deleted and untouched: the student meant it, no question").toBe(true);
    await type(name, "mine, kept working");
    await waitFor(() => expect(app.plans.detachedKey).not.toBe(app.planKey));
    const closing = app.plans.mayClose();
    expect(await screen.findByText(/is not saved\. Save it before the app closes\?/), "the edits are the only copy: asked").toBeTruthy();
    await fireEvent.click(screen.getByText("Cancel"));
    expect(await closing).toBe(false);
  });

  it("saves into the open plan, and as a new one beside it", async () => {
    const { app, backend, name, save, saveNew } = await setup();
    await type(name, "first");
    await save();
    await waitFor(() => expect(app.plans.openId).toBe(1));
    await type(name, "first, edited");
    await save();
    await waitFor(() => expect(backend.count("save_plan")).toBe(2));
    expect(backend.last("save_plan")?.id, "Save writes into the open plan").toBe(1);
    await type(name, "second");
    await saveNew();
    await waitFor(() => expect(backend.plans.size, "Save as new keeps the first").toBe(2));
    expect(app.plans.openId, "the editor now shows the new plan").toBe(2);
    expect(backend.plans.get(1)?.name).toBe("first, edited");
  });

  it("asks when the name is another plan's: overwrite, keep both or cancel", async () => {
    const { app, backend, name, save, saveNew } = await setup();
    await type(name, "same");
    await save();
    await waitFor(() => expect(app.plans.openId).toBe(1));
    await saveNew();
    expect(await screen.findByText("A saved plan is already named “same”.")).toBeTruthy();
    await fireEvent.click(screen.getByText("Cancel"));
    await waitFor(() => expect(app.question).toBeNull());
    expect(backend.plans.size, "cancel saves nothing").toBe(1);
    await saveNew();
    await fireEvent.click(await screen.findByText("Keep both"));
    await waitFor(() => expect(backend.plans.size).toBe(2));
    await saveNew();
    await fireEvent.click(await screen.findByText("Overwrite it"));
    await waitFor(() => expect(backend.count("save_plan")).toBe(3));
    expect(backend.plans.size, "overwrite replaces the other plan").toBe(2);
    expect(backend.last("save_plan")?.id).toBe(1);
  });

  it("after the open plan is deleted, Save makes a new plan, and undo brings the deleted one back", async () => {
    const { app, backend, name, save } = await setup();
    await type(name, "mine");
    await save();
    await waitFor(() => expect(app.plans.openId).toBe(1));
    await app.plans.remove(app.plans.rows[0]);
    expect(app.plans.openId, "the editor is detached").toBeNull();
    expect(await screen.findByText(/Deleted “mine”, the plan you had open/)).toBeTruthy();
    expect(document.getElementById("undo"), "the toast offers undo").not.toBeNull();
    await save();
    await waitFor(() => expect(backend.plans.size).toBe(1));
    expect(backend.calls.filter((c) => c.cmd === "save_plan").at(-1)?.args.id, "a new plan, never the deleted id").toBeNull();
    expect(app.error).toBe("");
  });

  it("undo of a delete restores the plan and re-attaches the editor", async () => {
    const { app, backend, name, save } = await setup();
    await type(name, "mine");
    await save();
    await waitFor(() => expect(app.plans.openId).toBe(1));
    await app.plans.remove(app.plans.rows[0]);
    await fireEvent.click(document.getElementById("undo")!);
    await waitFor(() => expect(backend.plans.size).toBe(1));
    expect(app.plans.openId, "the editor shows the plan put back, under its own id").toBe(1);
  });

  it("choosing an option for another job starts a new plan: the saved one is not written over", async () => {
    const { app, backend, name, save } = await setup();
    await type(name, "homework 1");
    await save();
    await waitFor(() => expect(app.plans.openId).toBe(1));
    app.applyPreset("llama7b-lora");
    const choosing = app.options.choose(fakeOption({ gpu: "rtx4090", plan: { ...plan0, gpu: "rtx4090", job: { ...plan0.job, model: "llama-2-7b", mode: "lora" } } }));
    // The preset changed the open plan's job: asked, and the change left out of it.
    await fireEvent.click(await screen.findByText("Discard them"));
    await choosing;
    expect(app.plans.openId, "the editor no longer points at the saved plan").toBeNull();
    expect(app.plan?.name, "the name follows the choice, not the saved plan's").not.toBe("homework 1");
    await save();
    await waitFor(() => expect(backend.plans.size, "a second plan").toBe(2));
    expect(backend.plans.get(1)?.plan?.job.model, "the first plan keeps its own job").toBe("resnet18-cifar");
  });

  it("refuses to save while a field holds a value the core would refuse, and says which", async () => {
    const { app, backend, save } = await setup();
    await type(document.getElementById("plan-runs")!, "-5");
    expect(app.blocking, "the field is refused").not.toBeNull();
    await save();
    expect(backend.count("save_plan"), "nothing is written").toBe(0);
    expect(app.toast?.text ?? "", "and nothing says saved").not.toMatch(/Saved/);
    expect(app.error).toMatch(/^Not saved: Runs/);
  });

  it("opens the plan as saved now: one deleted by the CLI is said to be gone, not brought back", async () => {
    const { app, backend, name, save } = await setup();
    await type(name, "mine");
    await save();
    await waitFor(() => expect(app.plans.openId).toBe(1));
    const stale = app.plans.rows[0];
    backend.plans.delete(1); // as `gpuplan plans delete 1` would
    await app.plans.open(stale);
    expect(app.error).toMatch(/“mine” is no longer saved/);
    expect(app.plans.openId, "the editor is detached").toBeNull();
    expect(app.plans.rows).toHaveLength(0);
  });

  it("a card switched after choosing an option carries the hours to that card, as its option would", async () => {
    const { app, backend } = await startedStore();
    // Hours given for an RTX 3090 (6 h), carried by the options to each card.
    app.job = { ...app.job!, model: null, hours: "6" };
    const hoursOn = (gpu: string, hours: string) =>
      fakeOption({ gpu, plan: { ...plan0, gpu, job: { ...plan0.job, model: null, hours } } });
    backend.setOptions([hoursOn("rtx4090", "3.7014"), hoursOn("rtx3090", "6")]);
    render(PlanStep, { app });
    render(Toast, { app });
    app.options.choose(hoursOn("rtx4090", "3.7014"));
    await waitFor(() => expect((document.getElementById("plan-hours") as HTMLInputElement).value).toBe("3.7014"));
    await fireEvent.change(document.getElementById("plan-gpu")!, { target: { value: "rtx3090" } });
    await waitFor(() => expect(app.plan?.gpu).toBe("rtx3090"));
    expect(app.form?.hours, "the 3090's own hours, not the 4090's").toBe("6");
    await waitFor(() => expect(backend.last("quote")?.plan).toMatchObject({ gpu: "rtx3090", job: { hours: "6" } }));
    // An offer that is not an option is not switched to, and the toast says why.
    backend.setOptions([hoursOn("rtx3090", "6")]);
    await fireEvent.change(document.getElementById("plan-gpu")!, { target: { value: "rtx4090" } });
    await waitFor(() => expect(app.toast?.text).toMatch(/RTX 4090 24 GB on AutoDL is not an option for this job/));
    expect(app.plan?.gpu, "the plan keeps its card").toBe("rtx3090");
    expect((document.getElementById("plan-gpu") as HTMLSelectElement).value, "and the select shows it").toBe("rtx3090");
  });

  it("hours the student typed after choosing are theirs: a card switch leaves them", async () => {
    const { app, backend } = await startedStore();
    app.job = { ...app.job!, model: null, hours: "6" };
    const o = fakeOption({ gpu: "rtx4090", plan: { ...plan0, gpu: "rtx4090", job: { ...plan0.job, model: null, hours: "3.7014" } } });
    backend.setOptions([o]);
    render(PlanStep, { app });
    app.options.choose(o);
    await waitFor(() => expect((document.getElementById("plan-hours") as HTMLInputElement).value).toBe("3.7014"));
    await type(document.getElementById("plan-hours")!, "5");
    await fireEvent.change(document.getElementById("plan-gpu")!, { target: { value: "rtx3090" } });
    await waitFor(() => expect(app.plan?.gpu).toBe("rtx3090"));
    expect(app.form?.hours).toBe("5");
    expect(backend.count("offer_option"), "no option asked for").toBe(0);
  });

  it("a plan saved without a name is named by its model, platform and card, never 'plan'", async () => {
    const { app, backend } = await startedStore("zh");
    render(PlanStep, { app });
    app.plan!.name = "";
    await app.plans.save();
    await waitFor(() => expect(backend.plans.size).toBe(1));
    const name = backend.plans.get(1)?.name ?? "";
    expect(name, "not the English default").not.toBe("plan");
    expect(name).toMatch(/^ResNet-18 \(CIFAR\) · AutoDL · RTX 3090 24 GB$/);
  });
});


describe("the checklist's ticks", () => {
  it("stay with their saved plan across a restart and never pass to another plan", async () => {
    const { app, backend } = await startedStore();
    app.plan!.name = "ticked";
    await app.tickItem("checklist.autoShutdown|{}", true);
    expect(backend.count("set_setting"), "an unsaved plan's ticks stay in memory").toBe(0);
    expect(await app.plans.save()).toBe(true);
    const id = app.plans.openId!;
    expect(backend.last("set_setting"), "saving the plan keeps its ticks with it").toEqual({ key: `checklist.${id}`, value: '["checklist.autoShutdown|{}"]' });
    app.options.choose(fakeOption());
    expect(app.ticked, "a newly chosen option is a new plan: nothing ticked").toEqual({});
    // A restart: a fresh store over the same backend opens the saved plan.
    const again = new (app.constructor as new (api: typeof app.api) => typeof app)(backend.api);
    again.start(structuredClone(app.info!));
    await again.plans.load();
    await again.plans.open(again.plans.rows.find((r) => r.id === id)!);
    expect(again.ticked, "the ticks come back with the plan").toEqual({ "checklist.autoShutdown|{}": true });
    await again.tickItem("checklist.autoShutdown|{}", false);
    expect(backend.last("set_setting")?.value, "and an untick is kept too").toBe("[]");
  });
});
