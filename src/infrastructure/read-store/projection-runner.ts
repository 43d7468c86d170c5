import type { Projection, ProjectedEvent } from '../../../projections/projection.js';
import type { EventStore, RecordedEvent, Subscription } from '../event-store/event-store.port.js';
import { FOLDED, ProjectionLagError, waitForFolded } from './folded-checkpoint.js';
import { type LeaseFence, LeaseLostError } from './lease.port.js';
import type { DocumentWrite, ReadStore, ViewCommit } from './read-store.port.js';

interface Waiter {
  views: readonly string[];
  position: number;
  resolve(): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
  /** `Date.now()` when it gives up. */
  deadline: number;
}

/** A view found at another version than this build's, which is therefore emptied and rebuilt from the log. */
export interface ViewVersionChange {
  view: string;
  stored: number;
  version: number;
}

export { ProjectionLagError };

const REBUILD_PAGE = 5000;
const RETRY_MS = 1000;
const CHECKPOINT_EVERY_MS = 1000;

/**
 * Follows the event log and folds it into every view. Each view keeps its own checkpoint,
 * written atomically with its documents; each document keeps the position it was built
 * from, so an event replayed after a crash changes nothing (exactly once in effect).
 *
 * One process per database folds (ProjectionLeadership gives it the `projections` lease and
 * starts this runner with its fence, so the store refuses its commits once another process
 * has taken over). Elsewhere the runner is idle: `waitFor` then reads the shared checkpoint
 * (`FOLDED`), through `reach` when set (ViewSync, which also brings the view cache up to it).
 */
export class ProjectionRunner {
  private readonly checkpoints = new Map<string, number>();
  private readonly typeSets = new Map<string, Set<string>>();
  private waiters: Waiter[] = [];
  private subscription?: Subscription;
  private loop?: Promise<void>;
  private buffer: RecordedEvent[] = [];
  private draining?: Promise<void>;
  private failure?: Error;
  private stopped = false;
  private lastFullCheckpoint = 0;
  private fence?: LeaseFence;
  /** Where failures are reported; the Nest module passes its logger. */
  logger?: (message: string) => void;
  /** Called once the store has refused a commit under `fence` (moved since): this runner has stopped folding. */
  onLeaseLost?: (fence: number) => void;
  /** Where another process folds: resolves once the shared checkpoint has passed `position` and this process's view cache is fresh up to it, or rejects at `deadline` (`Date.now()`). */
  reach?: (views: readonly string[], position: number, deadline: number) => Promise<void>;

  constructor(
    private readonly events: EventStore,
    private readonly store: ReadStore,
    private readonly projections: readonly Projection<any>[],
  ) {
    for (const p of projections) this.typeSets.set(p.view, new Set(p.eventTypes));
  }

  /** Prepares every view (a changed version empties it) and loads the checkpoints; returns the views whose version changed. */
  async prepare(): Promise<ViewVersionChange[]> {
    const changes: ViewVersionChange[] = [];
    for (const p of this.projections) {
      const stored = (await this.store.viewState(p.view))?.version;
      if (stored !== undefined && stored !== p.version) changes.push({ view: p.view, stored, version: p.version });
      await this.store.prepareView(p.view, p.version, p.indexes);
      this.checkpoints.set(p.view, (await this.store.viewState(p.view))?.position ?? 0);
    }
    await this.prepareFolded();
    // A view rebuilt from the start: the others must not take the views for caught up meanwhile.
    if (changes.length) await this.store.resetView(FOLDED, 1);
    return changes;
  }

  private prepareFolded(): Promise<void> {
    return this.store.prepareView(FOLDED, 1, []);
  }

  /**
   * Starts following the log from the lowest checkpoint; live events keep coming. Returns what
   * `prepare` returns. With a fence, every commit is made under it; after `abandon` or `stop`,
   * it can start again.
   */
  async start(fence?: LeaseFence): Promise<ViewVersionChange[]> {
    this.fence = fence;
    this.stopped = false;
    this.failure = undefined;
    this.buffer = [];
    const changes = await this.prepare();
    const from = Math.min(...this.checkpoints.values());
    this.subscription = this.events.subscribeToAll({ afterPosition: Number.isFinite(from) ? from : 0 });
    const sub = this.subscription;
    this.loop = (async () => {
      try {
        for await (const e of sub) {
          if (this.stopped) break;
          this.buffer.push(e);
          if (!this.draining) this.draining = new Promise((r) => setImmediate(r)).then(() => this.drain());
        }
      } catch (error) {
        this.fail(error as Error);
      }
    })();
    return changes;
  }

  /** Applies buffered events batch by batch; a failed batch is kept and retried, so nothing is skipped. */
  private async drain(): Promise<void> {
    while (this.buffer.length && !this.stopped) {
      const batch = this.buffer;
      this.buffer = [];
      try {
        await this.applyBatch(batch);
      } catch (error) {
        if (error instanceof LeaseLostError) {
          // Another process folds now: stop here, from the next event on it is that one's work.
          this.stopped = true;
          this.buffer = [];
          this.logger?.(`projections: ${error.message}; this process stops folding`);
          const lost = this.fence?.fence ?? 0;
          setImmediate(() => this.onLeaseLost?.(lost));
          break;
        }
        this.buffer = [...batch, ...this.buffer];
        this.logger?.(`projection batch failed, retrying: ${(error as Error).message}`);
        await new Promise((r) => setTimeout(r, RETRY_MS));
      }
    }
    this.draining = undefined;
  }

  private fail(error: Error): void {
    this.failure = error;
    for (const w of this.waiters) {
      clearTimeout(w.timer);
      w.reject(error);
    }
    this.waiters = [];
  }

  async stop(): Promise<void> {
    const following = await this.halt();
    if (following) {
      try {
        await this.persistCheckpoints();
      } catch (error) {
        // A successor already folds from its own checkpoints: nothing of ours to keep.
        if (!(error instanceof LeaseLostError)) throw error;
      }
    }
    for (const w of this.waiters) {
      clearTimeout(w.timer);
      w.reject(new Error('projection runner stopped'));
    }
    this.waiters = [];
  }

  /**
   * Stops folding without writing anything more (the lease has gone to another process, or is
   * about to); waits in progress go on, on the shared checkpoints.
   */
  async abandon(): Promise<void> {
    await this.halt();
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) {
      clearTimeout(w.timer);
      this.waitShared(w.views, w.position, w.deadline).then(w.resolve, w.reject);
    }
  }

  /** Stops following the log; true when it was following. */
  private async halt(): Promise<boolean> {
    this.stopped = true;
    const sub = this.subscription;
    this.subscription = undefined;
    await sub?.close();
    await this.loop;
    await this.draining;
    return sub !== undefined;
  }

  /** Whether this process folds the log now. */
  get folding(): boolean {
    return this.subscription !== undefined && !this.stopped;
  }

  position(view: string): number {
    return this.checkpoints.get(view) ?? 0;
  }

  /**
   * Read-your-writes: resolves once every named view has passed `position`, or rejects after
   * the timeout. Where another process folds, it waits for the shared checkpoint (`reach`).
   */
  waitFor(views: readonly string[], position: number, timeoutMs = 5000): Promise<void> {
    if (!this.folding) return this.waitShared(views, position, Date.now() + timeoutMs);
    if (this.failure) return Promise.reject(this.failure);
    if (views.every((v) => this.position(v) >= position)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        views,
        position,
        resolve,
        reject,
        deadline: Date.now() + timeoutMs,
        timer: setTimeout(() => {
          this.waiters = this.waiters.filter((w) => w !== waiter);
          reject(new ProjectionLagError(views, position));
        }, timeoutMs),
      };
      this.waiters.push(waiter);
    });
  }

  private waitShared(views: readonly string[], position: number, deadline: number): Promise<void> {
    return this.reach ? this.reach(views, position, deadline) : waitForFolded(this.store, views, position, deadline);
  }

  /** Empties the named views (all when none named) and folds the whole log into them again; not while started. */
  async rebuild(views?: readonly string[]): Promise<number> {
    if (this.subscription) throw new Error('stop the live runner before a rebuild');
    await this.prepareFolded();
    const chosen = this.projections.filter((p) => !views || views.includes(p.view));
    for (const p of chosen) {
      await this.store.prepareView(p.view, p.version, p.indexes);
      await this.store.resetView(p.view, p.version);
      this.checkpoints.set(p.view, 0);
    }
    return this.catchUp();
  }

  /** Applies every event up to the head of the log to the views that have not seen it; returns how many were read. Not while started. */
  async catchUp(): Promise<number> {
    if (this.subscription) throw new Error('the live runner is already following the log');
    await this.prepareFolded();
    let after = Math.min(...this.projections.map((p) => this.position(p.view)));
    let count = 0;
    for (;;) {
      const page = await this.events.readAll({ afterPosition: after, maxCount: REBUILD_PAGE });
      if (page.length === 0) {
        await this.persistCheckpoints();
        return count;
      }
      await this.applyBatch(page);
      count += page.length;
      after = page[page.length - 1].position;
    }
  }

  /**
   * Folds a batch into every view and commits all changed views in one atomic step. A view
   * the batch does not touch only moves its checkpoint in memory; its stored checkpoint
   * follows with the next commit at least once a second, so a restart re-reads little.
   */
  private async applyBatch(batch: readonly RecordedEvent[]): Promise<void> {
    const last = batch[batch.length - 1].position;
    const persistAll = Date.now() - this.lastFullCheckpoint >= CHECKPOINT_EVERY_MS;
    const commits: ViewCommit[] = [];
    for (const p of this.projections) {
      const checkpoint = this.position(p.view);
      if (last <= checkpoint) continue;
      const writes = await this.fold(p, batch, checkpoint);
      if (writes.length || persistAll) commits.push({ view: p.view, writes, checkpoint: last });
    }
    commits.push({ view: FOLDED, writes: [], checkpoint: last });
    await this.store.commitAll(commits, this.commitOptions());
    if (persistAll) this.lastFullCheckpoint = Date.now();
    for (const p of this.projections) if (this.position(p.view) < last) this.checkpoints.set(p.view, last);
    this.settleWaiters();
  }

  /** Stores every view's checkpoint as it is in memory. */
  private async persistCheckpoints(): Promise<void> {
    await this.store.commitAll(
      [
        ...this.projections.map((p) => ({ view: p.view, writes: [], checkpoint: this.position(p.view) })),
        { view: FOLDED, writes: [], checkpoint: Math.min(...this.projections.map((p) => this.position(p.view))) },
      ],
      this.commitOptions(),
    );
    this.lastFullCheckpoint = Date.now();
  }

  private commitOptions(): { fence?: LeaseFence } {
    return this.fence ? { fence: this.fence } : {};
  }

  private async fold(p: Projection<any>, batch: readonly RecordedEvent[], checkpoint: number): Promise<DocumentWrite[]> {
    const types = this.typeSets.get(p.view)!;
    const targets: Array<[string, ProjectedEvent]> = [];
    for (const e of batch) {
      if (e.position <= checkpoint || !types.has(e.type)) continue;
      const ids = p.documentId(e);
      if (typeof ids === 'string') targets.push([ids, e]);
      else if (ids) for (const id of ids) targets.push([id, e]);
    }
    if (!targets.length) return [];
    const writes = new Map<string, DocumentWrite>();
    const reads = targets.map(([id, e]) => p.readsDocument?.(e, id) ?? true);
    const toRead = targets.filter((_, i) => reads[i]).map(([id]) => id);
    const stored = toRead.length ? await this.store.getMany<Record<string, unknown>>(p.view, [...new Set(toRead)]) : new Map();
    for (const [i, [id, e]] of targets.entries()) {
      const pending = writes.get(id);
      let doc: Record<string, unknown> | null;
      if (pending) doc = pending.doc;
      else if (!reads[i]) doc = null;
      else {
        const found = stored.get(id);
        if (found && found._position >= e.position) continue;
        doc = found ? stripMeta(found) : null;
      }
      writes.set(id, { id, doc: p.apply(doc, e, id), position: e.position });
    }
    return [...writes.values()];
  }

  private settleWaiters(): void {
    if (!this.waiters.length) return;
    this.waiters = this.waiters.filter((w) => {
      if (!w.views.every((v) => this.position(v) >= w.position)) return true;
      clearTimeout(w.timer);
      w.resolve();
      return false;
    });
  }
}

function stripMeta(doc: Record<string, unknown>): Record<string, unknown> {
  const { _id, _position, ...rest } = doc;
  return rest;
}
