// Answers from Rust can arrive out of order (a slow estimate after a quick
// one): only the answer to the newest question is taken.
export class Latest {
  static readonly STALE: unique symbol = Symbol("stale");
  private seq = 0;

  /** The promise's value, or STALE when a newer call was made meanwhile. */
  async take<T>(p: Promise<T>): Promise<T | typeof Latest.STALE> {
    const mine = ++this.seq;
    const v = await p;
    return mine === this.seq ? v : Latest.STALE;
  }

  /** Makes every answer still on its way stale. */
  cancel() {
    this.seq++;
  }
}
