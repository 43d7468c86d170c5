/**
 * Work on one key takes turns, within this process: each piece waits until the one that
 * came before it on the same key has ended its turn.
 */
export class Turns {
  /** Per key, the turn that came last. */
  private readonly last = new Map<string, Promise<void>>();

  /** Waits for the turn before this one on `key`, then returns the function that ends this turn (calling it again does nothing). */
  async take(key: string): Promise<() => void> {
    const before = this.last.get(key);
    let resolve!: () => void;
    const turn = new Promise<void>((r) => (resolve = r));
    this.last.set(key, turn);
    const end = () => {
      resolve();
      if (this.last.get(key) === turn) this.last.delete(key);
    };
    if (before) await before;
    return end;
  }
}
