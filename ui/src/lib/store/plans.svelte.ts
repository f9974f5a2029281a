// Saved plans: the list, the plan the editor is attached to ("Save" writes
// there, "Save as new" makes another), a name that clashes with another plan
// asked about in the page, deletion undone from the toast (the open plan
// deleted detaches the editor, so the next save makes a new plan), two
// plans compared side by side, and the imported course packs.
import { formOf } from "../flow";
import type { PackRow } from "../../bindings/PackRow";
import type { QuoteView } from "../../bindings/QuoteView";
import type { SavedPlanRow } from "../../bindings/SavedPlanRow";
import type { AppStore } from "./app.svelte";
import { plain } from "./plain";

export type Sort = { key: "name" | "updated"; up: boolean };

export class PlansState {
  rows = $state.raw<SavedPlanRow[]>([]);
  packs = $state.raw<PackRow[]>([]);
  /** The saved plan the editor shows; null: a plan not saved yet (or deleted). */
  openId = $state<number | null>(null);
  openRow = $derived(this.rows.find((r) => r.id === this.openId) ?? null);
  /** The open saved plan as it was opened or last saved (`AppStore.planKey`). */
  savedKey = $state<string | null>(null);
  /** The open saved plan has changes not saved. */
  get dirty(): boolean {
    return this.openId !== null && this.savedKey !== null && this.app.planKey !== this.savedKey;
  }
  /** A plan made from a chosen option that was never saved (closing the app would drop it). */
  chosenUnsaved = $state(false);
  /** The plan on screen when its saved copy was deleted (here or elsewhere): changed since, it is unsaved work. */
  detachedKey = $state<string | null>(null);
  sort = $state<Sort>({ key: "updated", up: false });
  sorted = $derived(
    [...this.rows].sort((a, b) => (this.sort.up ? 1 : -1) * (this.sort.key === "name" ? a.name.localeCompare(b.name, this.app.lang) : a.updated_at.localeCompare(b.updated_at))),
  );
  picked = $state<number[]>([]);
  compared = $state.raw<{ row: SavedPlanRow; quote: QuoteView }[]>([]);
  comparedCategories = $derived([...new Set(this.compared.flatMap((c) => Object.keys(c.quote.quote.by_category)))]);

  private app: AppStore;

  constructor(app: AppStore) {
    this.app = app;
  }

  async load() {
    const r = await this.app.run(() => this.app.api.listPlans());
    if (r) {
      this.rows = r;
      // A plan deleted elsewhere (the CLI) detaches the editor too.
      if (this.openId !== null && !r.some((x) => x.id === this.openId)) this.detach();
    }
    const p = await this.app.run(() => this.app.api.listPacks());
    if (p) this.packs = p;
  }

  /**
   * Saves the plan on screen: into the open plan, or as a new one when
   * `asNew` or none is open. A name another saved plan has is asked about
   * first: replace that plan, keep both, or cancel.
   */
  async save(asNew = false): Promise<boolean> {
    const { app } = this;
    // A field the core would refuse is not in the plan on screen: saving
    // now would store the last value it accepted and say "saved".
    const refused = app.blocking;
    if (refused) {
      app.error = app.t("plan.saveRefused", { field: refused.label, problem: refused.text });
      return false;
    }
    // A plan saved without a name is named as a chosen option is (model ·
    // platform · card), in the student's language, never an English "plan".
    if (app.plan && !app.plan.name.trim()) app.plan.name = app.nameFor(app.plan.platform, app.plan.gpu);
    const plan = app.planNow();
    if (!plan) return false;
    const situation = app.situationNow();
    await this.load();
    let id = asNew ? null : this.openId;
    const name = plan.name.trim();
    const clash = this.rows.find((r) => r.id !== id && r.name.trim() === name);
    if (clash) {
      const choice = await app.ask(app.t("saved.clash", { name }), [
        { value: "replace", label: app.t("saved.clashReplace") },
        { value: "both", label: app.t("saved.clashBoth") },
        { value: "cancel", label: app.t("saved.clashCancel") },
      ]);
      if (choice === "cancel") return false;
      if (choice === "replace") id = clash.id;
    }
    const saved = await app.run(() => app.api.savePlan(id, plan, situation));
    if (saved === undefined) return false;
    this.openId = saved;
    this.savedKey = app.planKey;
    this.chosenUnsaved = false;
    this.detachedKey = null;
    app.notify(() => id === null ? app.t("plan.savedNew", { name }) : app.t("plan.saved"));
    await this.load();
    // Ticks made before the plan had an id are its own.
    if (Object.values(app.ticked).some(Boolean)) await app.keepTicks();
    return true;
  }

  /**
   * Before the editor leaves the open saved plan: its changes not saved are
   * saved or dropped as the student answers, never dropped unasked. False
   * when the student cancels (or the save failed): stay.
   */
  async leaveChanges(): Promise<boolean> {
    if (!this.dirty) return true;
    const { app } = this;
    return this.saveOrDrop(app.t("saved.unsavedChanges", { name: this.openRow?.name ?? app.plan?.name ?? "" }), app.t("saved.saveThem"), app.t("saved.discardThem"));
  }

  /** The editor's plan lost its saved copy (deleted): what is on screen now is the student's only copy. */
  private detach() {
    this.openId = null;
    this.detachedKey = this.app.planKey;
  }

  /**
   * Before the window closes: a saved plan's changes, a chosen plan never
   * saved, or edits made since the open plan was deleted, are saved or
   * dropped as the student answers. False keeps the window open
   * (cancelled, the save failed, or a question is already up).
   */
  async mayClose(): Promise<boolean> {
    const { app } = this;
    if (app.question) return false;
    if (this.dirty) return this.leaveChanges();
    if (this.openId !== null) return true;
    const edited = this.detachedKey !== null && app.planKey !== this.detachedKey;
    if (!this.chosenUnsaved && !edited) return true;
    return this.saveOrDrop(app.t("saved.closeUnsaved", { name: app.plan?.name ?? "" }), app.t("saved.saveIt"), app.t("saved.closeWithoutSaving"));
  }

  /** Asks `text`: save (true once saved), drop (true) or cancel (false). */
  private async saveOrDrop(text: string, saveLabel: string, dropLabel: string): Promise<boolean> {
    const choice = await this.app.ask(text, [
      { value: "save", label: saveLabel },
      { value: "discard", label: dropLabel },
      { value: "cancel", label: this.app.t("saved.clashCancel") },
    ]);
    if (choice === "cancel") return false;
    return choice === "discard" || (await this.save(false));
  }

  /** Opens a saved plan in the editor (step 5): its runs and budget become the student's. */
  async open(row: SavedPlanRow) {
    const { app } = this;
    // Opening the open plan again reloads its saved copy: asked too.
    if (!(await this.leaveChanges())) return;
    // The copy on screen may be stale (the CLI or another window changed or
    // deleted it): the plan opened is the one saved now.
    await this.load();
    const s = this.rows.find((r) => r.id === row.id);
    if (!s) {
      app.error = app.t("saved.goneElsewhere", { name: row.name });
      return;
    }
    if (!s.plan) return;
    const plan = plain(s.plan);
    app.plan = plan;
    app.form = formOf(plan);
    app.job = { ...plan.job };
    app.autoName = false;
    app.options.chosen = null;
    if (s.situation) app.situation = plain(s.situation);
    if (app.situation) {
      app.situation.runs = Number(app.form.runs) || app.situation.runs;
      app.situation.budget = plan.budget;
    }
    // Compared with nothing until the plan is on screen (not with the last plan's key).
    this.savedKey = null;
    this.openId = s.id;
    this.chosenUnsaved = false;
    this.detachedKey = null;
    await app.loadTicks(s.id);
    app.view = "flow";
    await app.go("plan");
    this.savedKey = app.planKey;
  }

  /**
   * Deletes a plan; the toast offers to undo for 15 s. Deleting the open
   * plan detaches the editor from it: the next save makes a new plan (undo
   * attaches it again to the plan put back).
   */
  async remove(s: SavedPlanRow) {
    const { app } = this;
    // What undo puts back comes from Rust: the row as it was, under its own
    // id, with the ledger entries that named it linked again.
    const deleted = await app.run(() => app.api.deletePlan(s.id));
    if (deleted === undefined) return;
    const wasOpen = this.openId === s.id;
    if (wasOpen) this.detach();
    this.picked = this.picked.filter((x) => x !== s.id);
    this.compared = this.compared.filter((c) => c.row.id !== s.id);
    const undo = {
      id: "undo",
      label: app.t("saved.undo"),
      run: async () => {
        app.toast = null;
        const id = await app.run(() => app.api.restorePlan(deleted));
        if (id !== undefined && wasOpen && this.openId === null) this.openId = id;
        await this.load();
      },
    };
    app.notify(() => app.t(wasOpen ? "saved.deletedOpen" : "saved.deleted", { name: s.name }), undo);
    await this.load();
  }

  sortBy(key: Sort["key"]) {
    this.sort = { key, up: this.sort.key === key ? !this.sort.up : key === "name" };
  }

  togglePick(id: number, on: boolean) {
    this.picked = on ? [...this.picked.filter((x) => x !== id), id].slice(-2) : this.picked.filter((x) => x !== id);
  }

  /** Two saved plans side by side: each quoted now, with today's prices. */
  async compare() {
    const rows = this.rows.filter((s) => this.picked.includes(s.id) && s.plan);
    const out: { row: SavedPlanRow; quote: QuoteView }[] = [];
    for (const row of rows) {
      const q = await this.app.run(() => this.app.api.quote(row.plan!));
      if (!q) return;
      out.push({ row, quote: q });
    }
    this.compared = out;
  }

  /** A course pack picked in the native dialog; the app's defaults and the pack list follow. */
  async importPack() {
    const { app } = this;
    const r = await app.run(() => app.api.importPack());
    if (!r) return;
    app.start(r);
    app.options.changed();
    const c = r.course;
    app.notify(() =>
      app.t("pack.imported", {
        name: c?.name ?? "",
        platforms: c?.platforms ?? 0,
        presets: c?.presets ?? 0,
        runs: c?.measured_runs ?? 0,
      }),
    );
    await this.load();
  }

  async removePack(name: string) {
    const { app } = this;
    const ok = await app.run(() => app.api.removePack(name));
    if (ok === undefined) return;
    app.notify(() => app.t("pack.removed", { name }));
    const r = await app.run(() => app.api.appInfo());
    if (r) app.info = r;
    // The pack's prices and options are gone with it.
    app.options.changed();
    await this.load();
  }
}
