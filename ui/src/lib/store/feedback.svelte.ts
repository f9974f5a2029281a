// What the page says back to the student, apart from the answers: the one
// toast (with its undo), the one question asked in the page, and the fields
// whose text the core would refuse. The app's store extends it, so
// components read `app.toast`, `app.ask(...)` as before.

/** A button in the toast (undo). */
export type ToastAction = { id: string; label: string; run: () => void | Promise<void> };
/** `text` is worded when shown, so a toast follows a change of language. */
export type Toast = { readonly text: string; action?: ToastAction };
/** A question asked in the page; resolves with the chosen value. */
export type Question = { text: string; choices: { value: string; label: string }[]; resolve: (value: string) => void };

/** How long a toast stays: a plain one a few seconds, one with undo long enough to use it. */
export const TOAST_MS = 5000;
export const UNDO_MS = 15000;

export class Feedback {
  toast = $state<Toast | null>(null);
  question = $state<Question | null>(null);
  /** Fields whose text the core would refuse: Next waits until they are fixed. */
  problems = $state<Record<string, { label: string; text: string }>>({});
  blocking = $derived(Object.values(this.problems)[0] ?? null);
  private toastTimer: ReturnType<typeof setTimeout> | undefined;
  /** Which toast the timer is for (the state holds a proxy, not the object). */
  private toastSeq = 0;

  onproblem = (id: string, label: string, text: string | null) => {
    if (text) this.problems[id] = { label, text };
    else delete this.problems[id];
  };

  /**
   * One transient message at a time, never stacking; one with undo stays
   * long enough to use it. Given as a function of the catalog, it is worded
   * each time it is shown: switching language rewords it.
   */
  notify(text: string | (() => string), action?: ToastAction) {
    const say = typeof text === "function" ? text : () => text;
    const toast: Toast = {
      get text() {
        return say();
      },
      action,
    };
    this.toast = toast;
    const seq = ++this.toastSeq;
    clearTimeout(this.toastTimer);
    this.toastTimer = setTimeout(() => {
      if (this.toastSeq === seq) this.toast = null;
    }, action ? UNDO_MS : TOAST_MS);
  }

  /** Asks in the page (never window.confirm); the answer is a choice's value, "cancel" when dismissed. */
  ask(text: string, choices: { value: string; label: string }[]): Promise<string> {
    return new Promise((resolve) => {
      this.question = {
        text,
        choices,
        resolve: (v) => {
          this.question = null;
          resolve(v);
        },
      };
    });
  }
}
