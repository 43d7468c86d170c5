import { setBounded } from '../../shared/bounded-map.js';
import { merged } from '../../domain/shared/merged.js';
import type { IndexSpec } from '../../../projections/projection.js';
import type {
  ChangeCursor,
  CommitOptions,
  DocumentWrite,
  FindOptions,
  ReadStore,
  Scalar,
  ViewChange,
  ViewCommit,
  ViewDocument,
  ViewState,
} from './read-store.port.js';

const LIMIT = 20_000;

/**
 * Keeps the documents of some views in memory, at most LIMIT per view (the oldest go first).
 * In the process that folds the log (the projection runner's), every write to a view passes
 * through `commitAll` or `resetView` of this same object: a commit drops the affected entries
 * while it is under way and then keeps the documents it wrote, so a cached document is never
 * older than the view, and a document just written is read from memory. Each commit also
 * logs which cached documents it changed (`CommitOptions.log`); in the other processes, the
 * views' readers, ViewSync applies that log through `evict` and `forgetAll`. Callers must
 * not mutate what they get.
 */
export class CachingReadStore implements ReadStore {
  private readonly caches = new Map<string, Map<string, ViewDocument<unknown> | null>>();
  private readonly cachedViews: ReadonlySet<string>;
  /** Bumped by every write and eviction, so a read that raced one is not cached. */
  private generation = 0;

  /**
   * `now`: epoch ms on the injected clock, the time logged with each commit. `logChanges`:
   * false where no other process can read the store (the embedded file), so nobody reads the log.
   */
  constructor(
    private readonly inner: ReadStore,
    cachedViews: readonly string[],
    private readonly now: () => number = () => Date.now(),
    private readonly logChanges = true,
  ) {
    for (const v of cachedViews) this.caches.set(v, new Map());
    this.cachedViews = new Set(cachedViews);
  }

  async get<D>(view: string, id: string): Promise<ViewDocument<D> | null> {
    const cache = this.caches.get(view);
    if (!cache) return this.inner.get<D>(view, id);
    if (cache.has(id)) return cache.get(id) as ViewDocument<D> | null;
    const before = this.generation;
    const doc = await this.inner.get<D>(view, id);
    if (before === this.generation) setBounded(cache, id, doc, LIMIT);
    return doc;
  }

  /** Cached documents from memory, the others from the store (not cached: the runner reads mostly documents it is about to write). */
  async getMany<D>(view: string, ids: readonly string[]): Promise<Map<string, ViewDocument<D>>> {
    const cache = this.caches.get(view);
    if (!cache) return this.inner.getMany<D>(view, ids);
    const found = new Map<string, ViewDocument<D>>();
    const missing = ids.filter((id) => {
      const doc = cache.get(id);
      if (doc) found.set(id, doc as ViewDocument<D>);
      return !cache.has(id);
    });
    if (missing.length) for (const [id, doc] of await this.inner.getMany<D>(view, missing)) found.set(id, doc);
    return found;
  }

  find<D>(view: string, filter: Record<string, Scalar>, options?: FindOptions): Promise<ViewDocument<D>[]> {
    return this.inner.find<D>(view, filter, options);
  }

  commit(view: string, writes: readonly DocumentWrite[], checkpoint: number): Promise<void> {
    return this.commitAll([{ view, writes, checkpoint }]);
  }

  async commitAll(commits: readonly ViewCommit[], options: CommitOptions = {}): Promise<void> {
    this.generation++;
    for (const c of commits) for (const w of c.writes) this.caches.get(c.view)?.delete(w.id);
    await this.inner.commitAll(commits, this.logChanges ? { ...options, log: { views: this.cachedViews, fence: options.fence?.fence ?? 0, at: this.now() } } : options);
    this.generation++;
    for (const c of commits) {
      const cache = this.caches.get(c.view);
      if (cache) for (const w of c.writes) setBounded(cache, w.id, w.doc ? merged(w.doc, { _id: w.id, _position: w.position }) : null, LIMIT);
    }
  }

  changesAfter(after: ChangeCursor, limit: number): Promise<ViewChange[]> {
    return this.inner.changesAfter(after, limit);
  }

  lastChange(): Promise<ChangeCursor> {
    return this.inner.lastChange();
  }

  /** Drops cached documents another process changed. */
  evict(view: string, ids: readonly string[]): void {
    const cache = this.caches.get(view);
    if (!cache) return;
    this.generation++;
    for (const id of ids) cache.delete(id);
  }

  /** Drops every cached document. */
  forgetAll(): void {
    this.generation++;
    for (const cache of this.caches.values()) cache.clear();
  }

  viewState(view: string): Promise<ViewState | null> {
    return this.inner.viewState(view);
  }

  async prepareView(view: string, version: number, indexes: readonly IndexSpec[]): Promise<void> {
    this.forget(view);
    await this.inner.prepareView(view, version, indexes);
    this.forget(view);
  }

  async resetView(view: string, version: number): Promise<void> {
    this.forget(view);
    await this.inner.resetView(view, version);
    this.forget(view);
  }

  private forget(view: string): void {
    this.generation++;
    this.caches.get(view)?.clear();
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
