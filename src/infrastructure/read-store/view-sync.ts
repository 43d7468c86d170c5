import type { CachingReadStore } from './caching-read-store.js';
import { FOLDED, ProjectionLagError, SHARED_POLL_MS, waitForFolded } from './folded-checkpoint.js';
import { type ChangeCursor, VIEW_CHANGES_KEEP_MS } from './read-store.port.js';

/** Entries read in one go; a reader further behind forgets its cache instead of reading on. */
const PAGE = 5000;

/**
 * Keeps this process's view cache fresh while another process folds the log: it reads the
 * change log the folding process writes with each commit and evicts the documents named
 * there. Every `everyMs` on its own (bounded staleness for the hot paths: tokens, the proxy),
 * and at once through `catchUp` for a read that must see the writes made before it (a
 * command's answer, `/permissions/me`). While this process folds, its cache is the views'
 * writer and needs none of this.
 *
 * Each round first reads the shared checkpoint (`FOLDED`), then the change log: once the
 * round is done, the cache holds nothing older than the views at that checkpoint
 * (`syncedTo`). A wait for a position this process has already caught up to costs nothing,
 * and the waits that come together share one round.
 */
export class ViewSync {
  private cursor: ChangeCursor = { fence: 0, position: 0 };
  /** The shared checkpoint up to which this cache is known fresh. */
  private syncedTo = 0;
  private following = false;
  private timer?: NodeJS.Timeout;
  private lastSync = 0;
  private running?: Promise<void>;
  private queued?: Promise<void>;
  /** Where failures of the timed catch-up are reported. */
  logger?: (message: string) => void;

  /** `now`: epoch ms on the injected clock; `everyMs` 0 leaves catching up to `catchUp` alone. */
  constructor(
    private readonly cache: CachingReadStore,
    private readonly now: () => number,
    private readonly everyMs: number,
  ) {}

  /** Whether this process reads views another process writes. */
  get reading(): boolean {
    return this.following;
  }

  /** From now on another process writes the views: start from the log's end with an empty cache. */
  async follow(): Promise<void> {
    this.syncedTo = await this.folded();
    this.cursor = await this.cache.lastChange();
    this.cache.forgetAll();
    this.lastSync = this.now();
    this.following = true;
    if (this.everyMs > 0 && !this.timer) {
      this.timer = setInterval(() => void this.catchUp().catch((e: unknown) => this.logger?.(`view cache catch-up failed: ${(e as Error).message}`)), this.everyMs);
      this.timer.unref();
    }
  }

  /**
   * From now on this process writes the views: its cache, fresh only within the bound until
   * now, is emptied before the runner reads a document through it.
   */
  lead(): void {
    this.stop();
    this.cache.forgetAll();
  }

  stop(): void {
    this.following = false;
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /**
   * Evicts every document changed by a commit made before this call. Calls that come while
   * one is reading share the next read, which starts after them.
   */
  catchUp(): Promise<void> {
    if (!this.following) return Promise.resolve();
    this.queued ??= (this.running ?? Promise.resolve())
      .catch(() => undefined)
      .then(() => {
        this.queued = undefined;
        this.running = this.pull().finally(() => (this.running = undefined));
        return this.running;
      });
    return this.queued;
  }

  /**
   * Resolves once the shared checkpoint has passed `position` and this cache is fresh up to
   * it; rejects with ProjectionLagError at `deadline` (`Date.now()`).
   */
  async reach(views: readonly string[], position: number, deadline: number): Promise<void> {
    if (!this.following) return waitForFolded(this.cache, views, position, deadline);
    let pause = SHARED_POLL_MS[0];
    while (this.syncedTo < position) {
      await this.catchUp();
      if (this.syncedTo >= position) return;
      const left = deadline - Date.now();
      if (left <= 0) throw new ProjectionLagError(views, position);
      await new Promise((r) => setTimeout(r, Math.min(pause, left)));
      pause = Math.min(pause * 2, SHARED_POLL_MS[1]);
    }
  }

  private async folded(): Promise<number> {
    return (await this.cache.viewState(FOLDED))?.position ?? 0;
  }

  private async pull(): Promise<void> {
    const now = this.now();
    const folded = await this.folded();
    // Entries older than the log keeps may be gone: start again from an empty cache.
    if (now - this.lastSync >= VIEW_CHANGES_KEEP_MS / 2) return this.restart(now, folded);
    const changes = await this.cache.changesAfter(this.cursor, PAGE);
    if (changes.length >= PAGE) return this.restart(now, folded);
    if (!this.following) return;
    for (const c of changes) {
      this.cache.evict(c.view, c.ids);
      // A new writer (a takeover, maybe a view rebuilt by other rules): nothing cached is sure.
      if (c.fence !== this.cursor.fence) this.cache.forgetAll();
      this.cursor = { fence: c.fence, position: c.position };
    }
    // The views' own checkpoint, even when lower than before: a new writer may be rebuilding a
    // view, and a wait must not pass on what the old views had reached.
    this.syncedTo = folded;
    this.lastSync = now;
  }

  private async restart(now: number, folded: number): Promise<void> {
    const cursor = await this.cache.lastChange();
    if (!this.following) return;
    this.cache.forgetAll();
    this.cursor = cursor;
    this.syncedTo = folded;
    this.lastSync = now;
  }
}
