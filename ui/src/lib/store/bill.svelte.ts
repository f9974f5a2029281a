// The bill on the plan screen, always the current inputs': every change to
// an input the quote depends on asks for a new quote after a short pause
// (300 ms, so typing "20" asks once), an older answer that arrives late is
// dropped, and an export first waits for the bill of what is on screen.
import type { QuoteView } from "../../bindings/QuoteView";
import type { AppStore } from "./app.svelte";
import { Latest } from "./latest";

export const BILL_DEBOUNCE_MS = 300;

export class BillState {
  private app: AppStore;
  /** The bill on screen. */
  quote = $state.raw<QuoteView | null>(null);
  /** The inputs (`AppStore.planKey`) the bill on screen was priced from. */
  pricedKey = $state<string | null>(null);
  /** A quote is being asked for, or is waiting out the pause. */
  busy = $state(false);
  /** How much the bill on screen is over the budget (CNY), or null when within it. */
  overBy = $derived.by((): number | null => {
    const q = this.quote;
    if (!q || !q.warnings.some((w) => w.key === "warning.budget-exceeded")) return null;
    return Number(q.quote.cash_total) - Number(this.app.situation?.budget ?? 0);
  });
  /** The bill is not (yet) the current inputs'. */
  stale = $derived.by(() => this.pricedKey !== this.app.planKey);
  /** The inputs Rust last refused to price (the banner says why). */
  failedKey = $state<string | null>(null);
  /** The current inputs cannot be priced: nothing is being updated until they change. */
  failed = $derived.by(() => this.failedKey !== null && this.failedKey === this.app.planKey);

  private timer: ReturnType<typeof setTimeout> | undefined;
  private latest = new Latest();
  private inflight: Promise<void> = Promise.resolve();

  constructor(app: AppStore) {
    this.app = app;
  }

  /**
   * The inputs changed (or the screen opened): price them after `delay` ms,
   * unless the bill on screen is already theirs.
   */
  want(delay = BILL_DEBOUNCE_MS) {
    clearTimeout(this.timer);
    if (!this.stale) {
      this.busy = false;
      return;
    }
    this.busy = true;
    this.timer = setTimeout(() => void this.now(), delay);
  }

  /** Prices the current inputs at once (the Compute button, a saved price, an export). */
  now(): Promise<void> {
    clearTimeout(this.timer);
    const plan = this.app.planNow();
    const key = this.app.planKey;
    if (!plan) return Promise.resolve();
    this.busy = true;
    this.inflight = (async () => {
      const r = await this.latest.take(this.app.run(() => this.app.api.quote(plan)));
      if (r === Latest.STALE) return;
      // A failed quote clears the old bill: no stale figure stays on screen.
      this.quote = r ?? null;
      this.pricedKey = r ? key : null;
      this.failedKey = r ? null : key;
      this.busy = false;
    })();
    return this.inflight;
  }

  /** The bill of the current inputs, waiting for it if needed; null when they cannot be priced. */
  async fresh(): Promise<QuoteView | null> {
    if (this.stale || this.busy) await this.now();
    await this.inflight;
    return this.stale ? null : this.quote;
  }

  /**
   * Prices and rules changed under the same inputs (a course pack imported
   * or removed): the bill on screen is no longer theirs, and is priced again
   * at once when it is showing.
   */
  pricesChanged() {
    this.pricedKey = null;
    this.failedKey = null;
    if (this.app.view === "flow" && this.app.step === "plan") void this.now();
  }

  /** Leaving the screen: nothing waits to be asked. */
  stop() {
    clearTimeout(this.timer);
    this.busy = false;
  }
}
