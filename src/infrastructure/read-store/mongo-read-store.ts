import {
  type AnyBulkWriteOperation,
  type ClientSession,
  type Collection,
  type CreateIndexesOptions,
  type Db,
  type Document,
  type Filter,
  MongoClient,
  MongoServerError,
  type Sort,
} from 'mongodb';
import type { IndexSpec } from '../../../projections/projection.js';
import { LeaseLostError } from './lease.port.js';
import { mongoAnswer, mongoDatabase } from './mongo-database.js';
import type { LeaseDocument } from './mongo-leases.js';
import {
  type ChangeCursor,
  type CommitOptions,
  type DocumentWrite,
  type FindOptions,
  type ReadStore,
  type Scalar,
  type ViewChange,
  type ViewCommit,
  type ViewDocument,
  type ViewState,
  VIEW_CHANGES_KEEP_MS,
} from './read-store.port.js';

const VIEW_NAME = /^[a-z][a-z0-9_]*$/;
const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_.]*$/;
const NAMESPACE_EXISTS = 48;
const INDEX_CONFLICTS = new Set([85, 86]);

interface StoredDocument {
  _id: string;
  _position: number;
  [field: string]: unknown;
}

/** One entry of the change log; `at` as a date, for the TTL index that trims the log. */
interface ChangeDocument {
  fence: number;
  position: number;
  view: string;
  ids: string[];
  at: Date;
}

interface StateDocument {
  _id: string;
  version: number;
  position: number;
}

function collectionName(view: string): string {
  if (!VIEW_NAME.test(view)) throw new Error(`invalid view name: ${view}`);
  return `view_${view}`;
}

function field(name: string): string {
  if (!FIELD_NAME.test(name)) throw new Error(`invalid field name: ${name}`);
  return name;
}

/** The database named in the URL's path, if any (`mongodb://host/db?...`). */

/**
 * Read models in MongoDB: one collection per view (`view_<name>`), documents stored as their
 * fields plus `_id` and `_position`, checkpoints in `view_state`. Documents and checkpoint are
 * written in one transaction, so the deployment must be a replica set.
 */
export class MongoReadStore implements ReadStore {
  private readonly client: MongoClient;
  private readonly db: Db;
  private readonly state: Collection<StateDocument>;
  private readonly changes: Collection<ChangeDocument>;
  private readonly leases: Collection<LeaseDocument>;
  private changesIndexed?: Promise<unknown>;

  constructor(url: string, dbName?: string) {
    this.client = new MongoClient(url);
    this.db = mongoDatabase(this.client, url, dbName);
    this.state = this.db.collection<StateDocument>('view_state');
    this.changes = this.db.collection<ChangeDocument>('view_changes');
    this.leases = this.db.collection<LeaseDocument>('leases');
  }

  private view(view: string): Collection<StoredDocument> {
    return this.db.collection<StoredDocument>(collectionName(view));
  }

  async get<D>(view: string, id: string): Promise<ViewDocument<D> | null> {
    const raw = await mongoAnswer('read store', this.view(view).findOne({ _id: id }));
    return raw ? toDoc<D>(raw) : null;
  }

  async getMany<D>(view: string, ids: readonly string[]): Promise<Map<string, ViewDocument<D>>> {
    const out = new Map<string, ViewDocument<D>>();
    if (ids.length === 0) return out;
    const raws = await mongoAnswer(
      'read store',
      this.view(view)
        .find({ _id: { $in: [...new Set(ids)] } })
        .toArray(),
    );
    const byId = new Map(raws.map((r) => [r._id, r]));
    for (const id of ids) {
      const raw = byId.get(id);
      if (raw) out.set(id, toDoc<D>(raw));
    }
    return out;
  }

  async find<D>(view: string, filter: Record<string, Scalar>, options: FindOptions = {}): Promise<ViewDocument<D>[]> {
    const collection = this.view(view);
    const query: Filter<Document> = {};
    for (const [name, value] of Object.entries(filter)) query[field(name)] = value;
    if (options.idPrefix !== undefined || options.afterId !== undefined) {
      const range: Record<string, string> = {};
      if (options.idPrefix !== undefined) Object.assign(range, { $gte: options.idPrefix, $lt: options.idPrefix + '\u{10FFFF}' });
      if (options.afterId !== undefined && (range.$gte === undefined || options.afterId >= range.$gte)) {
        delete range.$gte;
        range.$gt = options.afterId;
      }
      (query as Record<string, unknown>)._id = { ...(query._id !== undefined ? { $eq: query._id } : {}), ...range };
    }
    if (options.fieldPrefix !== undefined) {
      const { field: name, prefix, after } = options.fieldPrefix;
      const range: Record<string, string> = { $gte: prefix, $lt: prefix + '\u{10FFFF}' };
      if (after !== undefined && after >= prefix) {
        delete range.$gte;
        range.$gt = after;
      }
      const path = field(name);
      (query as Record<string, unknown>)[path] = { ...(query[path] !== undefined ? { $eq: query[path] } : {}), ...range };
    }
    const limit = options.limit !== undefined && options.limit >= 0 ? options.limit : undefined;
    if (limit === 0) return [];
    let cursor = collection.find(query as Filter<StoredDocument>);
    if (options.sortBy) {
      const direction = options.descending ? -1 : 1;
      // Sorted on the prefixed field alone, an index range ending in it serves the order.
      const alone = options.sortBy === '_id' || options.sortBy === options.fieldPrefix?.field;
      const sort: Sort = alone ? { [field(options.sortBy)]: direction } : { [field(options.sortBy)]: direction, _id: direction };
      cursor = cursor.sort(sort);
    }
    if (limit !== undefined) cursor = cursor.limit(limit);
    return (await mongoAnswer('read store', cursor.toArray())).map((r) => toDoc<D>(r));
  }

  async commit(view: string, writes: readonly DocumentWrite[], checkpoint: number): Promise<void> {
    return this.commitAll([{ view, writes, checkpoint }]);
  }

  async commitAll(commits: readonly ViewCommit[], options: CommitOptions = {}): Promise<void> {
    const { fence, log } = options;
    if (log) await this.indexChanges();
    await this.transaction(async (session) => {
      // Writing the lease in the transaction makes it conflict with a takeover: either the
      // commit lands before the new holder's lease, or it finds the fence moved and is refused.
      if (fence) {
        const held = await this.leases.updateOne({ _id: fence.lease, fence: fence.fence }, { $inc: { commits: 1 } }, { session });
        if (held.matchedCount === 0) throw new LeaseLostError(fence.lease, fence.fence);
      }
      const entries: ChangeDocument[] = [];
      for (const { view, writes, checkpoint } of commits) {
        if (log && writes.length && log.views.has(view)) entries.push({ fence: log.fence, position: checkpoint, view, ids: writes.map((w) => w.id), at: new Date(log.at) });
        const operations: AnyBulkWriteOperation<StoredDocument>[] = writes.map((w) =>
          w.doc
            ? { replaceOne: { filter: { _id: w.id }, replacement: toStored(w.doc, w.position), upsert: true } }
            : { deleteOne: { filter: { _id: w.id } } },
        );
        if (operations.length > 0) await this.view(view).bulkWrite(operations, { session, ordered: true });
        await this.state.updateOne({ _id: view, position: { $lt: checkpoint } }, { $set: { position: checkpoint } }, { session });
      }
      if (entries.length) await this.changes.insertMany(entries, { session });
    });
  }

  async changesAfter(after: ChangeCursor, limit: number): Promise<ViewChange[]> {
    const found = await mongoAnswer(
      'read store',
      this.changes
        .find({ $or: [{ fence: { $gt: after.fence } }, { fence: after.fence, position: { $gt: after.position } }] })
        .sort({ fence: 1, position: 1 })
        .limit(limit)
        .toArray(),
    );
    return found.map((c) => ({ fence: c.fence, position: c.position, view: c.view, ids: c.ids }));
  }

  async lastChange(): Promise<ChangeCursor> {
    const [last] = await mongoAnswer('read store', this.changes.find({}).sort({ fence: -1, position: -1 }).limit(1).toArray());
    return last ? { fence: last.fence, position: last.position } : { fence: 0, position: 0 };
  }

  /** The change log's indexes: its order, and a TTL index that trims it (outside a transaction, where indexes cannot be made). */
  private indexChanges(): Promise<unknown> {
    this.changesIndexed ??= Promise.all([
      this.changes.createIndex({ fence: 1, position: 1 }, { name: 'fence__position' }),
      this.changes.createIndex({ at: 1 }, { name: 'at', expireAfterSeconds: VIEW_CHANGES_KEEP_MS / 1000 }),
    ]).catch((e: unknown) => {
      this.changesIndexed = undefined;
      throw e;
    });
    return this.changesIndexed;
  }

  async viewState(view: string): Promise<ViewState | null> {
    const state = await this.state.findOne({ _id: view });
    return state ? { version: state.version, position: state.position } : null;
  }

  async prepareView(view: string, version: number, indexes: readonly IndexSpec[]): Promise<void> {
    const name = collectionName(view);
    await this.ensureCollection('view_state');
    await this.ensureCollection(name);
    const current = await this.viewState(view);
    // Reset before indexing, so that a unique index new in this version never meets the old documents.
    if (!current || current.version !== version) await this.resetView(view, version);
    for (const ix of indexes) await this.ensureIndex(this.view(view), ix);
  }

  async resetView(view: string, version: number): Promise<void> {
    const collection = this.view(view);
    await this.transaction(async (session) => {
      await collection.deleteMany({}, { session });
      await this.state.updateOne({ _id: view }, { $set: { version, position: 0 } }, { upsert: true, session });
    });
  }

  async close(): Promise<void> {
    await this.client.close();
  }

  private async transaction(work: (session: ClientSession) => Promise<void>): Promise<void> {
    const session = this.client.startSession();
    try {
      await session.withTransaction(() => work(session));
    } finally {
      await session.endSession();
    }
  }

  private async ensureCollection(name: string): Promise<void> {
    try {
      await this.db.createCollection(name);
    } catch (error) {
      if (!(error instanceof MongoServerError && error.code === NAMESPACE_EXISTS)) throw error;
    }
  }

  private async ensureIndex(collection: Collection<StoredDocument>, ix: IndexSpec): Promise<void> {
    const keys: Record<string, 1> = {};
    for (const f of ix.fields) keys[field(f)] = 1;
    const name = ix.fields.join('__').replace(/\./g, '_');
    const options: CreateIndexesOptions = { name, unique: ix.unique === true };
    // As in SQL, a unique index ignores documents that lack one of its fields.
    if (ix.unique) options.partialFilterExpression = Object.fromEntries(ix.fields.map((f: string) => [f, { $exists: true }]));
    else if (ix.sparse) options.partialFilterExpression = { [field(ix.fields[ix.fields.length - 1])]: { $exists: true } };
    try {
      await collection.createIndex(keys, options);
    } catch (error) {
      if (!(error instanceof MongoServerError && typeof error.code === 'number' && INDEX_CONFLICTS.has(error.code))) throw error;
      // Same name or same keys with other options: the definition changed, so replace it.
      const existing = await collection.listIndexes().toArray();
      for (const old of existing) {
        if (old.name !== '_id_' && (old.name === name || sameKeys(old.key as Document, keys))) await collection.dropIndex(old.name as string);
      }
      await collection.createIndex(keys, options);
    }
  }
}

function sameKeys(a: Document, b: Record<string, 1>): boolean {
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k, i) => k === kb[i] && a[k] === b[k]);
}

/** The stored shape: the document's fields as JSON would keep them (as the SQLite adapter does), plus `_position`. */
function toStored(doc: Record<string, unknown>, position: number): Omit<StoredDocument, '_id'> {
  const { _id, _position, ...fields } = JSON.parse(JSON.stringify(doc)) as Record<string, unknown>;
  return { ...fields, _position: position };
}


function toDoc<D>(raw: StoredDocument): ViewDocument<D> {
  const { _id, _position, ...fields } = raw;
  return { ...(fields as D), _id, _position };
}
