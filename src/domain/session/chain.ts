/**
 * A persistent list, newest first: adding an item copies nothing, so a session that has
 * rotated its refresh token thousands of times folds each new event in constant time.
 */
export interface Chain<T> {
  readonly item: T;
  readonly next: Chain<T> | null;
}

export function findIn<T>(chain: Chain<T> | null, match: (item: T) => boolean): T | undefined {
  for (let link = chain; link; link = link.next) if (match(link.item)) return link.item;
  return undefined;
}

export function chainToArray<T>(chain: Chain<T> | null): T[] {
  const items: T[] = [];
  for (let link = chain; link; link = link.next) items.push(link.item);
  return items;
}

export function arrayToChain<T>(items: readonly T[]): Chain<T> | null {
  let chain: Chain<T> | null = null;
  for (let i = items.length - 1; i >= 0; i--) chain = { item: items[i], next: chain };
  return chain;
}

/**
 * The first item of `chain` that matches, and the chain without it (the links before it
 * copied): constant time when it is near the front, where a change put it.
 */
export function takeFrom<T>(chain: Chain<T> | null, match: (item: T) => boolean): { item: T; rest: Chain<T> | null } | undefined {
  const before: T[] = [];
  for (let link = chain; link; link = link.next) {
    if (match(link.item)) {
      let rest = link.next;
      for (let i = before.length - 1; i >= 0; i--) rest = { item: before[i], next: rest };
      return { item: link.item, rest };
    }
    before.push(link.item);
  }
  return undefined;
}
