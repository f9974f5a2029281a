// The options screen and what choosing one does: the ranked options (the
// first ten, or all on asking), the option chosen and the situation it was
// chosen for, so a card switched on the plan screen is that offer's option.
import { formOf } from "../flow";
import type { Plan } from "../../bindings/Plan";
import type { RankedOption } from "../../bindings/RankedOption";
import type { RecommendationView } from "../../bindings/RecommendationView";
import type { Situation } from "../../bindings/Situation";
import type { AppStore } from "./app.svelte";
import { Latest } from "./latest";
import { plain } from "./plain";

export class OptionsState {
  rec = $state.raw<RecommendationView | null>(null);
  /**
   * The situation an option was chosen for, and what the choice set
   * (`chosenKey`): a card switch on the plan screen redoes the choice for
   * the new card while nothing else changed.
   */
  chosen = $state.raw<{ situation: Situation; key: string } | null>(null);
  /** Every option, not only the first ten: for this situation until it changes. */
  all = $state<string | null>(null);

  async load() {
    const s = this.app.situationNow();
    if (!s) return;
    const all = this.all === this.app.situationKey;
    const r = await this.latest.take(this.app.run(() => this.app.api.recommend(s, all)));
    if (r !== Latest.STALE) this.rec = r ?? null;
  }

  /** The options screen's "show all": every option ranked for the situation on screen. */
  async showAll() {
    this.all = this.app.situationKey;
    await this.load();
  }

  /**
   * The platforms, prices or rules changed (a course pack imported or
   * removed): the options and the bill on screen are asked for again, the
   * ones not showing dropped so they are asked for when they are.
   */
  changed() {
    if (this.app.view === "flow" && this.app.step === "options") void this.load();
    else this.rec = null;
    this.app.bill.pricesChanged();
  }

  /**
   * Choosing an option opens the very plan its quote priced, so the plan
   * screen shows the same bill and time; the name follows the choice unless
   * the student named the plan. It is a new plan: a saved plan open in the
   * editor is left as saved (Save would otherwise write another job over
   * it), and the name it brought follows the choice.
   */
  async choose(o: RankedOption) {
    if (!this.app.plan || !this.app.situation || !this.app.form) return;
    // A saved plan's changes are not dropped unasked (no wait when none).
    if (this.app.plans.dirty && !(await this.app.plans.leaveChanges())) return;
    if (this.app.plans.openId !== null) {
      this.app.plans.openId = null;
      this.app.autoName = true;
    }
    // Another plan's checklist is not this one's.
    this.app.ticked = {};
    const from = this.app.situationNow();
    const name = this.optionName(o);
    if (o.plan) {
      const chosen = plain(o.plan);
      this.app.plan = { ...chosen, name };
      this.app.form = formOf(chosen);
      // Hours carried to this card replace the model in the option's job.
      if (chosen.job.model) this.app.job = { ...chosen.job };
      this.chosen = from ? { situation: from, key: this.chosenKey() } : null;
    } else {
      this.app.plan.platform = o.platform;
      this.app.plan.gpu = o.gpu;
      this.app.plan.payment = o.payment;
      this.app.plan.name = name;
      this.chosen = null;
    }
    this.app.plans.chosenUnsaved = true;
    void this.app.go("plan");
  }

  /** An option's plan name: the student's, or one that follows the choice. */
  private optionName(o: RankedOption): string {
    if (!this.app.plan) return "";
    return this.app.autoName || !this.app.plan.name ? this.app.nameFor(o.platform, o.gpu) : this.app.plan.name;
  }

  /** What `choose` set that a card switch may redo: the job and the hours it carried. */
  private chosenKey(): string {
    return JSON.stringify([this.app.job, this.app.form?.hours ?? ""]);
  }

  /**
   * The plan screen's card, platform or payment changed after an option was
   * chosen: the job becomes that offer's (hours given for an RTX 3090
   * carried to the new card, a fix that made the job fit redone for it), as
   * its option on the options screen would open it; the student's other
   * plan fields stay. An offer that is not an option for the job is not
   * switched to (false: the select shows the plan's card again), and the
   * student is told why. Hours or a job the student
   * changed since are theirs: the switch leaves them alone.
   */
  async switchOffer(platform: string, gpu: string, payment: Plan["payment"]): Promise<boolean> {
    const plan = this.app.plan;
    if (!plan || !this.app.form) return false;
    const chosen = this.chosen;
    if (!chosen || chosen.key !== this.chosenKey()) {
      this.chosen = null;
      Object.assign(plan, { platform, gpu, payment });
      return true;
    }
    const r = await this.app.run(() => this.app.api.offerOption(chosen.situation, platform, gpu, payment));
    if (!r) return false;
    const o = r.option;
    if (!o?.plan) {
      const reason = r.ruled_out ? this.app.tm(r.ruled_out) : this.app.t("plan.offerNotRented");
      this.app.notify(() => this.app.t("plan.offerNotOption", { gpu: this.app.gpuName(gpu), platform: this.app.platformName(platform), reason }));
      return false;
    }
    const next = plain(o.plan);
    plan.name = this.optionName(o);
    Object.assign(plan, { platform, gpu, payment, setup_hours: next.setup_hours });
    this.app.form.hours = formOf(next).hours;
    if (next.job.model) this.app.job = { ...next.job };
    this.chosen = { situation: chosen.situation, key: this.chosenKey() };
    return true;
  }

  /** The option's fix (already in its plan's job) becomes the student's job; the options follow. */
  applyFix(o: RankedOption) {
    if (!o.plan || !o.fix) return;
    this.app.job = plain(o.plan.job);
    const kind = o.fix.kind;
    this.app.notify(() => this.app.t("options.fixApplied", { fix: this.app.t(`enum.fix.${kind}`) }));
  }

  private app: AppStore;
  private latest = new Latest();

  constructor(app: AppStore) {
    this.app = app;
  }
}
