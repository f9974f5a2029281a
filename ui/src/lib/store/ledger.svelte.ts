// The ledger: real bills (typed, or imported from run reports, dropped or
// picked), deletion undone from the toast, plan versus actual of a bill
// with a report, and what calibration learnt from them.
import { asSentence, droppedReports, formatCny, formatDate, formatHours, importNotes, normalizeNumber } from "../flow";
import type { CalibrationView } from "../../bindings/CalibrationView";
import type { ImportedRunView } from "../../bindings/ImportedRunView";
import type { LedgerPage } from "../../bindings/LedgerPage";
import type { LedgerRow } from "../../bindings/LedgerRow";
import type { VersusView } from "../../bindings/VersusView";
import type { AppStore } from "./app.svelte";

export type LedgerSort = { key: "date" | "cost"; up: boolean };

export class LedgerState {
  page = $state.raw<LedgerPage | null>(null);
  form = $state({ date: new Date().toISOString().slice(0, 10), platform: "autodl", gpu: "rtx3090", hours: "", cost: "", problems: "", plan_id: "" });
  sort = $state<LedgerSort>({ key: "date", up: false });
  sorted = $derived(
    [...(this.page?.entries ?? [])].sort((a, b) => (this.sort.up ? 1 : -1) * (this.sort.key === "date" ? a.date.localeCompare(b.date) : Number(a.cost) - Number(b.cost))),
  );
  /** Plan versus actual of the run last imported or asked about. */
  versus = $state.raw<VersusView | null>(null);
  versusId = $state<number | null>(null);
  calibration = $state.raw<CalibrationView | null>(null);
  dropping = $state(false);
  /** The bill form's fields whose text Rust would refuse: Add waits (never the flow's Next). */
  problems = $state<Record<string, string>>({});
  onproblem = (id: string, _label: string, text: string | null) => {
    if (text) this.problems[id] = text;
    else delete this.problems[id];
  };

  private app: AppStore;

  constructor(app: AppStore) {
    this.app = app;
  }

  /** The bills and what calibration learnt from them (a bill added, deleted or restored can change it). */
  async load() {
    const r = await this.app.run(() => this.app.api.listLedger());
    if (r) this.page = r;
    const c = await this.app.run(() => this.app.api.calibration());
    if (c) this.calibration = c;
  }

  async add() {
    const { app } = this;
    const f = this.form;
    // Typed as people type them: "6 小时", "16.5元".
    const hours = normalizeNumber(f.hours, ["hours"]);
    const cost = normalizeNumber(f.cost, ["cny"]);
    const id = await app.run(() => app.api.addLedger({ date: f.date, platform: f.platform, gpu: f.gpu, hours, cost, problems: f.problems, plan_id: f.plan_id ? Number(f.plan_id) : null }));
    if (id === undefined) return;
    this.form.hours = "";
    this.form.cost = "";
    this.form.problems = "";
    await this.load();
  }

  /** Deletes a bill; the toast puts it back whole (with its report and measured run) for 15 s. */
  async remove(e: LedgerRow) {
    const { app } = this;
    const bill = await app.run(() => app.api.deleteLedger(e.id));
    if (bill === undefined) return;
    if (this.versusId === e.id) this.versus = null;
    app.notify(() => app.t("ledger.deleted", { date: formatDate(e.date, app.lang) }), {
      id: "undo-bill",
      label: app.t("saved.undo"),
      run: async () => {
        app.toast = null;
        await app.run(() => app.api.restoreLedger(bill));
        await this.load();
      },
    });
    await this.load();
  }

  sortBy(key: LedgerSort["key"]) {
    this.sort = { key, up: this.sort.key === key ? !this.sort.up : false };
  }

  async setCalibration(on: boolean) {
    const r = await this.app.run(() => this.app.api.setCalibration(on));
    if (r) this.calibration = r;
  }

  async exportRuns() {
    const { app } = this;
    const path = await app.run(() => app.api.exportMeasuredRuns());
    if (path) app.notify(() => app.t("calibration.exported", { path }));
  }

  private async showImported(r: ImportedRunView) {
    const { app } = this;
    const i = r.run;
    // A report imported before adds nothing: the toast says so, with the bill it already is.
    const key = i.already_imported ? "ledger.reportAlready" : "ledger.reportImported";
    // Worded when shown: the whole toast follows a change of language.
    const said = () => app.t(key, { id: i.ledger_id, date: formatDate(i.date, app.lang), gpu: app.gpuName(i.gpu), hours: formatHours(i.hours, app.lang), cost: formatCny(i.cost, app.lang) });
    app.notify(() => [said(), ...importNotes(i).map(([k, o]) => asSentence(app.t(k, o), app.lang))].join(" "));
    this.versus = r.versus;
    this.versusId = r.versus ? i.ledger_id : null;
    await this.load();
  }

  /** A run report the kit's wrapper wrote, picked in the native dialog. */
  async importReport() {
    const r = await this.app.run(() => this.app.api.importReport());
    if (r) await this.showImported(r);
  }

  /** Run reports dropped on the ledger: their text goes to Rust, validated like any report. */
  async drop(files: File[]) {
    const { app } = this;
    this.dropping = false;
    const { reports, skipped } = droppedReports(files, app.info?.defaults.report_max_bytes ?? 0);
    for (const f of reports) {
      const text = await f.text();
      const r = await app.run(() => app.api.importReportText(f.name, text));
      if (r) await this.showImported(r);
    }
    if (skipped.length) app.error = app.t("ledger.dropSkipped", { files: skipped.join(", ") });
  }

  async showVersus(id: number) {
    const r = await this.app.run(() => this.app.api.runVersus(id));
    if (r) {
      this.versus = r;
      this.versusId = id;
    }
  }
}
