import type { IndexSpec } from '../../../projections/projection.js';
import type { DocumentWrite, FindOptions, ReadStore, Scalar, ViewCommit, ViewDocument, ViewState } from './read-store.port.js';

const LIMIT = 10_000;

/**
 * Keeps documents of rarely-changing views (tenants, clients, users) in memory. Every write
 * to a view passes through `commit` or `resetView` of this same object (the projection runner
 * of this process is the views' writer), which drops the affected entries, so a cached
 * document is never older than the view. Callers must not mutate what they get.
 */
export class CachingReadStore implements ReadStore {
  private readonly caches = new Map<string, Map<string, ViewDocument<unknown> | null>>();
  /** Bumped by every write, so a read that raced a write is not cached. */
  private generation = 0;

  constructor(
    private readonly inner: ReadStore,
    cachedViews: readonly string[],
  ) {
    for (const v of cachedViews) this.caches.set(v, new Map());
  }

  async get<D>(view: string, id: string): Promise<ViewDocument<D> | null> {
    const cache = this.caches.get(view);
    if (!cache) return this.inner.get<D>(view, id);
    if (cache.has(id)) return cache.get(id) as ViewDocument<D> | null;
    const before = this.generation;
    const doc = await this.inner.get<D>(view, id);
    if (before === this.generation) {
      if (cache.size >= LIMIT) cache.delete(cache.keys().next().value!);
      cache.set(id, doc as ViewDocument<unknown> | null);
    }
    return doc;
  }

  getMany<D>(view: string, ids: readonly string[]): Promise<Map<string, ViewDocument<D>>> {
    return this.inner.getMany<D>(view, ids);
  }

  find<D>(view: string, filter: Record<string, Scalar>, options?: FindOptions): Promise<ViewDocument<D>[]> {
    return this.inner.find<D>(view, filter, options);
  }

  commit(view: string, writes: readonly DocumentWrite[], checkpoint: number): Promise<void> {
    return this.commitAll([{ view, writes, checkpoint }]);
  }

  async commitAll(commits: readonly ViewCommit[]): Promise<void> {
    const drop = () => {
      this.generation++;
      for (const c of commits) for (const w of c.writes) this.caches.get(c.view)?.delete(w.id);
    };
    drop();
    await this.inner.commitAll(commits);
    drop();
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
