// The app's shared state, in one typed place: what the student typed
// (situation, job, plan form), where they are (view, step), what Rust
// answered (estimate, kit; the bill in `bill`, the options in `options`), saved plans and the
// ledger, and the one error (the toast, question and refused fields come from
// `Feedback`, which it extends). Components read and change
// it; derived values (the plan being priced, keys that say when an answer is
// out of date) are `$derived`, never copied.
import { i18next, initI18n, messageText } from "../i18n";
import { STEPS, applyForm, cardLabel, errorText, firstLanguage, formOf, type PlanForm, type Step } from "../flow";
import type { Api } from "../api";
import type { AppInfo } from "../../bindings/AppInfo";
import type { AttentionImpl } from "../../bindings/AttentionImpl";
import type { EstimateView } from "../../bindings/EstimateView";
import type { FieldLimit } from "../../bindings/FieldLimit";
import type { Job } from "../../bindings/Job";
import type { JobSpec } from "../../bindings/JobSpec";
import type { KitView } from "../../bindings/KitView";
import type { Localized } from "../../bindings/Localized";
import type { Message } from "../../bindings/Message";
import type { Plan } from "../../bindings/Plan";
import type { Situation } from "../../bindings/Situation";
import { BillState } from "./bill.svelte";
import { PlansState } from "./plans.svelte";
import { LedgerState } from "./ledger.svelte";
import { OptionsState } from "./options.svelte";
import { Latest } from "./latest";
import { plain } from "./plain";
import { Feedback } from "./feedback.svelte";

/** A job given as the hours of a run, not estimated from a model. */
const inHours = (job: JobSpec | null): boolean => Boolean(job?.hours);

export type View = "flow" | "saved" | "ledger";
export type Words = (key: string, opts?: Record<string, unknown>) => string;
export { TOAST_MS, UNDO_MS, type Question, type Toast, type ToastAction } from "./feedback.svelte";

export class AppStore extends Feedback {
  readonly api: Api;
  lang = $state("zh");
  /** Bumps on a language change, so every `t()` in a template re-renders. */
  tick = $state(0);
  ready = $state(false);
  info = $state.raw<AppInfo | null>(null);
  view = $state<View>("flow");
  step = $state<Step>("situation");
  error = $state("");

  situation = $state<Situation | null>(null);
  job = $state<JobSpec | null>(null);
  plan = $state<Plan | null>(null);
  form = $state<PlanForm | null>(null);
  /** The plan's name follows the chosen option until the student names it. */
  autoName = $state(true);
  /** Runs typed by the student: a preset then keeps them. */
  runsTouched = $state(false);
  trainCommand = $state("");
  modelSearch = $state("");

  estimate = $state.raw<EstimateView | null>(null);
  kit = $state.raw<KitView | null>(null);
  /**
   * Checklist items ticked, by their message: kept when the kit is made
   * again, and with a saved plan across restarts (the setting
   * `checklist.<plan id>`); a new plan starts with none ticked.
   */
  ticked = $state<Record<string, boolean>>({});

  /** Ticks or unticks a checklist item; kept with the open saved plan. */
  async tickItem(key: string, on: boolean) {
    this.ticked[key] = on;
    await this.keepTicks();
  }

  /** Writes the ticks under the open saved plan (none open: they stay in memory until it is saved). */
  async keepTicks() {
    const id = this.plans.openId;
    if (id === null) return;
    const keys = Object.keys(this.ticked).filter((k) => this.ticked[k]);
    await this.run(() => this.api.setSetting(`checklist.${id}`, JSON.stringify(keys)));
  }

  /** The ticks kept with saved plan `id` (none for a plan never ticked). */
  async loadTicks(id: number | null) {
    const text = id === null ? null : await this.run(() => this.api.getSetting(`checklist.${id}`));
    let keys: unknown = [];
    try {
      keys = text ? JSON.parse(text) : [];
    } catch {
      keys = [];
    }
    this.ticked = Object.fromEntries((Array.isArray(keys) ? keys : []).filter((k) => typeof k === "string").map((k) => [k, true]));
  }

  /**
   * The plan the bill prices: the plan, the job and the form together. Runs
   * and budget are the student's one figure each, typed on step 1 or 5.
   */
  currentPlan = $derived.by((): Plan | null => {
    if (!this.plan || !this.form || !this.job || !this.situation) return null;
    const form = { ...this.form, runs: String(this.situation.runs), budget: this.situation.budget ?? "" };
    return applyForm({ ...this.plan, job: this.job }, form, String(this.info?.defaults.upload_mbps ?? ""));
  });
  /** Text that changes whenever anything the bill depends on changes. */
  planKey = $derived(JSON.stringify(this.currentPlan));
  currentSituation = $derived.by((): Situation | null => (this.situation && this.job ? { ...this.situation, job: this.job } : null));
  situationKey = $derived(JSON.stringify(this.currentSituation));
  /** The resolved job behind a job given in hours (`loadJobDefaults`). */
  hoursDefaults = $state.raw<Job | null>(null);
  /**
   * The job with every default filled in, for the job screen's placeholders:
   * the estimate's resolved job, or for a job given in hours (which the
   * estimator does not time) the same job resolved without its hours.
   */
  jobDefaults = $derived(inHours(this.job) ? this.hoursDefaults : (this.estimate?.report.job ?? null));

  readonly bill: BillState;
  readonly plans: PlansState;
  readonly ledger: LedgerState;
  readonly options: OptionsState;
  private estimates = new Latest();
  private hoursEstimates = new Latest();
  private kits = new Latest();

  constructor(api: Api) {
    super();
    this.api = api;
    this.bill = new BillState(this);
    this.plans = new PlansState(this);
    this.ledger = new LedgerState(this);
    this.options = new OptionsState(this);
  }

  t: Words = (key, opts) => {
    void this.tick;
    return i18next.t(key, opts ?? {});
  };
  tm = (m: Message): string => {
    void this.tick;
    return messageText(m, this.t);
  };
  loc = (l: Localized): string => (this.lang === "zh" ? l.zh : l.en);
  gpuName = (id: string): string => {
    const g = this.info?.gpus.find((x) => x.id === id);
    return g ? cardLabel(g.name, g.vram_gib) : id;
  };
  platformName = (id: string): string => {
    const p = this.info?.platforms.find((x) => x.id === id);
    return p ? this.loc(p.name) : id;
  };
  modelName = (id: string | null): string => this.info?.models.find((m) => m.id === id)?.name ?? id ?? "";
  family = (id: string | null): string => this.info?.models.find((m) => m.id === id)?.family ?? "vision";
  /** The attention kernels Rust lets a job on this model ask for (none for CNNs). */
  attentionKernels = (id: string | null): AttentionImpl[] => this.info?.models.find((m) => m.id === id)?.attention ?? [];
  lim = (field: string): FieldLimit | undefined => this.info?.limits.find((l) => l.field === field);
  /** Runs a call to Rust; its error, worded, goes to the banner. */
  async run<T>(f: () => Promise<T>): Promise<T | undefined> {
    try {
      this.error = "";
      return await f();
    } catch (e) {
      this.error = errorText(e, this.t);
      return undefined;
    }
  }

  /** The plan being priced, as plain data (no proxies) for Rust. */
  planNow(): Plan | null {
    return this.currentPlan ? (JSON.parse(this.planKey) as Plan) : null;
  }
  situationNow(): Situation | null {
    return this.currentSituation ? (JSON.parse(this.situationKey) as Situation) : null;
  }

  async setLang(l: string) {
    this.lang = l;
    await i18next.changeLanguage(l);
    document.documentElement.lang = l === "zh" ? "zh-CN" : "en";
    this.tick++;
    await this.run(() => this.api.setSetting("lang", l));
  }

  /** Starts: the remembered language, else the system's (Chinese when neither), then the start-up data. */
  async init() {
    const saved = await this.api.getSetting("lang").catch(() => null);
    const preferred = typeof navigator === "undefined" ? [] : navigator.languages?.length ? navigator.languages : [navigator.language];
    this.lang = firstLanguage(saved, preferred);
    await initI18n(this.lang);
    document.documentElement.lang = this.lang === "zh" ? "zh-CN" : "en";
    const r = await this.run(() => this.api.appInfo());
    if (r) this.start(r);
    this.ready = true;
  }

  /** Takes start-up data: defaults for every form the student has not touched yet. */
  start(r: AppInfo) {
    const fresh = this.info === null;
    this.info = r;
    if (fresh || !this.situation) {
      // Copies: what the student edits never changes the defaults.
      this.situation = plain(r.defaults.situation);
      this.job = plain(r.defaults.situation.job);
      this.plan = plain(r.defaults.plan);
      this.form = formOf(r.defaults.plan);
      this.trainCommand = r.defaults.command;
    } else if (r.course) {
      this.situation.budget = r.defaults.situation.budget;
      if (this.plan && r.course.default_platform) this.plan.platform = r.course.default_platform;
    }
  }

  /** Moves to a step: forward only once every field holds a value the core accepts. */
  async go(s: Step) {
    if (this.blocking && STEPS.indexOf(s) > STEPS.indexOf(this.step)) return;
    this.step = s;
    if (!this.toast?.action) this.toast = null;
    await this.run(() => this.api.setSetting("step", s));
  }

  showView(v: View) {
    this.view = v;
    this.refreshView();
  }

  /** Reads again what the open view lists (saved plans, the ledger), which the CLI may have changed. */
  refreshView() {
    // The plan open in the editor, deleted elsewhere, detaches it (`PlansState.load`).
    if (this.view !== "flow" || this.plans.openId !== null) void this.plans.load();
    if (this.view === "ledger") void this.ledger.load();
  }

  /** The estimate of the current job (the memory screen; quietly, the job screen's defaults). */
  async loadEstimate(quiet = false) {
    if (!this.job) return;
    const job = plain(this.job);
    const gpu = this.plan?.gpu ?? null;
    const platform = this.plan?.platform ?? null;
    const ask = quiet ? this.api.estimate(job, gpu, platform).catch(() => undefined) : this.run(() => this.api.estimate(job, gpu, platform));
    const r = await this.estimates.take(ask);
    // A failed estimate clears the old one: no stale figure stays on screen.
    if (r !== Latest.STALE && (r || !quiet)) this.estimate = r ?? null;
  }

  /**
   * The job screen's defaults. A job given in hours is not estimated (its
   * hours replace the estimate), so its empty fields show what Rust resolves
   * the same job to without its hours, on its own model or else a new job's;
   * that estimate stays out of `estimate`, which the memory screen and the
   * report show.
   */
  async loadJobDefaults() {
    if (!this.job || !inHours(this.job)) return this.loadEstimate(true);
    const job = { ...plain(this.job), hours: null, model: this.job.model ?? this.info?.defaults.situation.job.model ?? null };
    const ask = this.api.estimate(job, this.plan?.gpu ?? null, this.plan?.platform ?? null).catch(() => undefined);
    const r = await this.hoursEstimates.take(ask);
    if (r !== Latest.STALE) this.hoursDefaults = r?.report.job ?? null;
  }

  /** The kit for the plan; the checklist stays when the command is cleared (only the scripts need it). */
  async loadKit() {
    const p = this.planNow();
    const command = this.trainCommand.trim();
    if (!p || !command) return;
    const r = await this.kits.take(this.run(() => this.api.kit(p, command)));
    if (r !== Latest.STALE && r) this.kit = r;
  }

  /** Runs as the student types them, on step 1 or 5: a preset keeps them from then on. */
  setRuns(n: number) {
    if (!this.situation) return;
    this.situation.runs = n;
    this.runsTouched = true;
  }

  /** A preset job; runs the student typed are kept (and the student told). */
  applyPreset(key: string) {
    const p = this.info?.presets.find((x) => x.key === key);
    if (!p || !this.situation) return;
    this.job = { ...plain(p.job) };
    this.modelSearch = "";
    if (!this.runsTouched) this.situation.runs = p.runs;
    else if (p.runs !== this.situation.runs) {
      const runs = this.situation.runs;
      this.notify(() => this.t("job.presetKeptRuns", { runs, suggested: p.runs }));
    }
  }

  /** The name a plan gets when the student gives none: its model, platform and card, in the UI's words. */
  nameFor(platform: string, gpu: string): string {
    return [this.modelName(this.job?.model ?? null), this.platformName(platform), this.gpuName(gpu)].filter((x) => x).join(" · ");
  }
}
