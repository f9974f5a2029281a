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
    expect(document.getElementById("ledger-total")?.textContent).toMatch(/16\.50/);
    await fireEvent.click(row.querySelector(".delete-bill")!);
    await waitFor(() => expect(document.querySelectorAll(".ledger-row").length).toBe(0));
    await fireEvent.click(document.getElementById("undo-bill")!);
    await waitFor(() => expect(document.querySelectorAll(".ledger-row").length).toBe(1));
  });
});
