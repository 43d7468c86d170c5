/** A min-heap of keys by due time: the deliveries waiting for their next attempt. */
export class DueHeap {
  private readonly items: Array<{ at: number; key: string }> = [];

  get size(): number {
    return this.items.length;
  }

  push(at: number, key: string): void {
    const items = this.items;
    items.push({ at, key });
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (items[parent].at <= items[i].at) break;
      [items[parent], items[i]] = [items[i], items[parent]];
      i = parent;
    }
  }

  /** Keeps only the keys `keep` accepts. */
  retain(keep: (key: string) => boolean): void {
    const kept = this.items.filter((i) => keep(i.key));
    this.items.length = 0;
    for (const i of kept) this.push(i.at, i.key);
  }

  /** Removes and returns every key due at or before `now`, earliest first. */
  popDue(now: number): string[] {
    const due: string[] = [];
    while (this.items.length && this.items[0].at <= now) due.push(this.pop()!.key);
    return due;
  }

  private pop(): { at: number; key: string } | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop()!;
    if (items.length) {
      items[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < items.length && items[l].at < items[m].at) m = l;
        if (r < items.length && items[r].at < items[m].at) m = r;
        if (m === i) break;
        [items[m], items[i]] = [items[i], items[m]];
        i = m;
      }
    }
    return top;
  }
}
