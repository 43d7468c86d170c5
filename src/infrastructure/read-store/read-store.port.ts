import type { IndexSpec } from '../../../projections/projection.js';
import type { LeaseFence } from './lease.port.js';

/** A stored view document: the projection's fields plus its id and the position it was built from. */
export type ViewDocument<D = Record<string, unknown>> = D & { _id: string; _position: number };

/** One document write of a batch; `doc: null` deletes. */
export interface DocumentWrite {
  id: string;
  doc: Record<string, unknown> | null;
  position: number;
}

/** The writes of one view and the checkpoint it reaches with them. */
export interface ViewCommit {
  view: string;
  writes: readonly DocumentWrite[];
  checkpoint: number;
}

export type Scalar = string | number | boolean | null;

export interface FindOptions {
  /** Sort field (ascending); `_position` sorts in log order. */
  sortBy?: string;
  descending?: boolean;
  limit?: number;
  /**
   * Only documents whose id starts with this prefix (a tenant's, say: `acme/`); with `afterId`,
   * only those whose id sorts after it. Both are a range of the primary key, so paging a view
   * by id costs the same on its first page as on a deep one.
   */
  idPrefix?: string;
  afterId?: string;
  /**
   * Only documents whose string `field` starts with `prefix` and, with `after`, sorts after it
   * (text compared code point by code point). With equality on the leading fields of an index
   * whose next field is this one, and `sortBy` this field, it reads a range of that index:
   * paging by a unique field costs the same on a deep page as on the first.
   */
  fieldPrefix?: { field: string; prefix: string; after?: string };
}

/** What a commit carries besides its writes. */
export interface CommitOptions {
  /** The commit is refused with LeaseLostError, in the same transaction, unless the lease still has this fence. */
  fence?: LeaseFence;
  /**
   * Records, in the same transaction, which documents of these views the commit changed, at
   * the commit's checkpoint under the writer's fence (0 without a lease) and time `at`
   * (epoch ms): other processes evict them from their caches (see `changesAfter`).
   */
  log?: { views: ReadonlySet<string>; fence: number; at: number };
}

/** Where a reader of the change log stands: its entries sort by the writer's fence, then position. */
export interface ChangeCursor {
  fence: number;
  position: number;
}

/** One entry of the change log: the documents of one view that one commit changed. */
export interface ViewChange extends ChangeCursor {
  view: string;
  ids: string[];
}

/** How long the change log keeps an entry; a reader further behind forgets its whole cache instead. */
export const VIEW_CHANGES_KEEP_MS = 10 * 60_000;

export interface ViewState {
  position: number;
  version: number;
}

/**
 * The read-model port: documents grouped in views, each view with a checkpoint written
 * atomically with its documents, so that a projection applies every event exactly once
 * in effect.
 */
export interface ReadStore {
  get<D>(view: string, id: string): Promise<ViewDocument<D> | null>;
  getMany<D>(view: string, ids: readonly string[]): Promise<Map<string, ViewDocument<D>>>;
  /** Equality match on every field of `filter`. */
  find<D>(view: string, filter: Record<string, Scalar>, options?: FindOptions): Promise<ViewDocument<D>[]>;
  /** Writes documents and moves the view's checkpoint in one atomic step. */
  commit(view: string, writes: readonly DocumentWrite[], checkpoint: number): Promise<void>;
  /** `commit` for several views at once, all or nothing. */
  commitAll(commits: readonly ViewCommit[], options?: CommitOptions): Promise<void>;
  /** The change log's entries after `after`, oldest first, at most `limit` of them. */
  changesAfter(after: ChangeCursor, limit: number): Promise<ViewChange[]>;
  /** The cursor of the change log's newest entry ({0, 0} when empty). */
  lastChange(): Promise<ChangeCursor>;
  viewState(view: string): Promise<ViewState | null>;
  /** Creates the view's indexes and, when the version changed, empties it and resets its checkpoint. */
  prepareView(view: string, version: number, indexes: readonly IndexSpec[]): Promise<void>;
  /** Empties the view and sets its checkpoint back to 0. */
  resetView(view: string, version: number): Promise<void>;
  close(): Promise<void>;
}

export const READ_STORE = Symbol('READ_STORE');
