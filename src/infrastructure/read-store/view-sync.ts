import type { CachingReadStore } from './caching-read-store.js';
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
 */
export class ViewSync {
  private cursor: ChangeCursor = { fence: 0, position: 0 };
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

  private async pull(): Promise<void> {
    const now = this.now();
    // Entries older than the log keeps may be gone: start again from an empty cache.
    if (now - this.lastSync >= VIEW_CHANGES_KEEP_MS / 2) return this.restart(now);
    const changes = await this.cache.changesAfter(this.cursor, PAGE);
    if (changes.length >= PAGE) return this.restart(now);
    if (!this.following) return;
    for (const c of changes) {
      this.cache.evict(c.view, c.ids);
      this.cursor = { fence: c.fence, position: c.position };
    }
    this.lastSync = now;
  }

  private async restart(now: number): Promise<void> {
    const cursor = await this.cache.lastChange();
    if (!this.following) return;
    this.cache.forgetAll();
    this.cursor = cursor;
    this.lastSync = now;
  }
}
