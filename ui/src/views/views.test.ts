// @vitest-environment jsdom
// The saved-plans and ledger views: their tables, delete with undo.
import { describe, it, expect, vi } from "vitest";
import { render, screen, fireEvent, waitFor } from "@testing-library/svelte";
import SavedView from "./SavedView.svelte";
import LedgerView from "./LedgerView.svelte";
import Toast from "../lib/Toast.svelte";
import { startedStore, plan0 } from "../test/fake";
import { UNDO_MS } from "../lib/store/app.svelte";

describe("saved plans", () => {
  it("lists the plans with platform, card and the open one marked; delete is undone from the toast", async () => {
    const { app, backend } = await startedStore();
    await app.api.savePlan(null, { ...plan0, name: "alpha" }, null);
    await app.api.savePlan(null, { ...plan0, name: "beta", gpu: "rtx4090" }, null);
    app.plans.openId = 2;
    render(SavedView, { app });
    render(Toast, { app });
    await app.plans.load();
    await waitFor(() => expect(document.querySelectorAll(".saved-plan").length).toBe(2));
    const beta = document.querySelector('.saved-plan[data-id="2"]')!;
    expect(beta.textContent).toContain("RTX 4090 24 GB");
    expect(beta.textContent, "the plan in the editor is marked").toContain("open");
    await fireEvent.click(beta.querySelector(".delete")!);
    await waitFor(() => expect(document.querySelectorAll(".saved-plan").length).toBe(1));
    expect(app.plans.openId).toBeNull();
    await fireEvent.click(screen.getByText("Undo"));
    await waitFor(() => expect(document.querySelectorAll(".saved-plan").length).toBe(2));
    expect([...backend.plans.values()].map((p) => p.name).sort()).toEqual(["alpha", "beta"]);
  });

  it("keeps an undo toast for at least 10 s, a plain one for a few", async () => {
    vi.useFakeTimers();
    try {
      const { app } = await startedStore();
      app.notify("with undo", { id: "undo", label: "Undo", run: () => {} });
      vi.advanceTimersByTime(10_000);
      expect(app.toast?.text, "still there after 10 s").toBe("with undo");
      vi.advanceTimersByTime(UNDO_MS);
      expect(app.toast).toBeNull();
      app.notify("plain");
      vi.advanceTimersByTime(6_000);
      expect(app.toast).toBeNull();
    } finally {
      vi.useRealTimers();
    }
  });

  it("the pack list follows an import", async () => {
    const { app, backend } = await startedStore();
    let packs: unknown[] = [];
    backend.invoke.mockImplementation(async (cmd: string) => {
      if (cmd === "import_pack") {
        packs = [{ name: "CV 101", platforms: 2, presets: 1, imported_at: "2026-11-30T10:00:00Z", error: null }];
        return { ...app.info, course: { name: "CV 101", instructor: "TA", budget_cap: "120", default_platform: null } };
      }
      if (cmd === "list_packs") return packs;
      if (cmd === "list_plans") return [];
      return null;
    });
    render(SavedView, { app });
    expect(screen.getByText("No course pack imported yet.")).toBeTruthy();
    await app.plans.importPack();
    await waitFor(() => expect(document.querySelectorAll(".pack-row").length).toBe(1));
  });
});

describe("ledger", () => {
  it("adds a bill typed with units, shows it with its plan, and undoes a delete", async () => {
    const { app } = await startedStore();
    await app.api.savePlan(null, { ...plan0, name: "weekly" }, null);
    await app.plans.load();
    render(LedgerView, { app });
    render(Toast, { app });
    await fireEvent.input(document.getElementById("ledger-hours")!, { target: { value: "6 小时" } });
    await fireEvent.input(document.getElementById("ledger-cost")!, { target: { value: "１６.５元" } });
    await fireEvent.change(document.getElementById("ledger-plan")!, { target: { value: "1" } });
    await fireEvent.click(document.getElementById("ledger-add")!);
    await waitFor(() => expect(document.querySelectorAll(".ledger-row").length).toBe(1));
    const row = document.querySelector(".ledger-row")!;
    expect(row.querySelector(".plan-name")?.textContent, "the plan column names the plan").toBe("weekly");
    expect(row.textContent).toContain("CN¥16.50");
    expect(row.textContent, "a bill's hours to the hundredth, as typed and as the CLI prints them").toContain("6.00 h");
    expect(document.getElementById("ledger-total")?.textContent).toMatch(/16\.50/);
    await fireEvent.click(row.querySelector(".delete-bill")!);
    await waitFor(() => expect(document.querySelectorAll(".ledger-row").length).toBe(0));
    await fireEvent.click(document.getElementById("undo-bill")!);
    await waitFor(() => expect(document.querySelectorAll(".ledger-row").length).toBe(1));
  });
});

describe("a dropped run report", () => {
  it("dropped twice says the second time that it is already in the ledger, not that it was added", async () => {
    const { app, backend } = await startedStore();
    let imports = 0;
    const fallback = backend.invoke.getMockImplementation()!;
    backend.invoke.mockImplementation(async (cmd: string, args: Record<string, unknown> = {}) => {
      if (cmd !== "import_report_text") return fallback(cmd, args);
      imports += 1;
      // As Rust answers: the same run is the same bill, said as already imported.
      return {
        run: { ledger_id: 7, already_imported: imports > 1, identity: "x", plan_id: null, date: "2026-11-30", platform: "autodl", gpu: "rtx3090", gpu_in_catalog: true, teaches_calibration: false, hours: "0.49", cost: "0.65", cost_estimated: true, peak_memory_mib: 2746, exit_status: 0, versus: null },
        versus: null,
      };
    });
    // (jsdom's File has no text(): a stand-in with what the drop reads.)
    const body = '{"schema": "gpuplan-run-report/2"}';
    const report = () => ({ name: "gpuplan-run-1.json", size: body.length, type: "application/json", text: async () => body }) as unknown as File;
    await app.ledger.drop([report()]);
    expect(app.toast?.text).toMatch(/^Added to the ledger/);
    await app.ledger.drop([report()]);
    expect(app.toast?.text, "the second drop adds nothing, and says so").toMatch(/^Already in the ledger as bill 7/);
    await app.setLang("zh");
    expect(app.toast?.text, "the whole toast follows the language, its first sentence too").not.toMatch(/Already in the ledger/);
    expect(app.toast?.text).toMatch(/7/);
  });
});

describe("removing a course pack", () => {
  it("prices the bill on screen again at once, without the pack", async () => {
    const { app, backend } = await startedStore();
    app.view = "flow";
    app.step = "plan";
    await app.bill.now();
    const before = backend.count("quote");
    const fallback = backend.invoke.getMockImplementation()!;
    backend.invoke.mockImplementation(async (cmd: string, args: Record<string, unknown> = {}) => (cmd === "remove_pack" ? null : fallback(cmd, args)));
    await app.plans.removePack("CV 101");
    await vi.waitFor(() => expect(backend.count("quote"), "the bill is asked for again").toBe(before + 1));
    expect(app.bill.stale, "and is the current inputs' again").toBe(false);
  });
});

describe("the bill form", () => {
  it("says beside a field what is wrong with it and holds Add, without holding the plan flow", async () => {
    const { app, backend } = await startedStore();
    app.info = { ...app.info!, limits: [...app.info!.limits, { field: "bill.cost", min: 0, max: 10000000, integer: false, min_exclusive: false }] };
    render(LedgerView, { app });
    await fireEvent.input(document.getElementById("ledger-cost")!, { target: { value: "-10" } });
    expect(document.getElementById("ledger-cost-problem")?.textContent, "the problem beside the field").toMatch(/0/);
    expect((document.getElementById("ledger-add") as HTMLButtonElement).disabled, "Add waits").toBe(true);
    expect(app.blocking, "the plan flow's Next is not held by the ledger").toBeNull();
    await fireEvent.input(document.getElementById("ledger-cost")!, { target: { value: "16.5" } });
    expect((document.getElementById("ledger-add") as HTMLButtonElement).disabled).toBe(false);
    expect(backend.count("add_ledger")).toBe(0);
  });
});
