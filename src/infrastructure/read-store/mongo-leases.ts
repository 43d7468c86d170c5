import { type Collection, MongoClient, MongoServerError } from 'mongodb';
import { mongoAnswer, mongoDatabase } from './mongo-database.js';
import type { LeaseGrant, Leases } from './lease.port.js';

const DUPLICATE_KEY = 11000;

/** One lease in the `leases` collection (the view commits of MongoReadStore check `fence`). */
export interface LeaseDocument {
  _id: string;
  owner: string;
  fence: number;
  expiresAt: number;
  /** Bumped by every fenced view commit, so that a commit and a takeover conflict. */
  commits?: number;
}

/**
 * Leases in MongoDB (collection `leases`, next to the views), shared by every server of a
 * deployment. Taking one is a single findOneAndUpdate whose filter matches only a lease that
 * is expired or already this owner's, with an upsert for a lease never taken: two servers
 * racing for a free lease cannot both win (the loser's upsert meets the winner's `_id`).
 */
export class MongoLeases implements Leases {
  private readonly client: MongoClient;
  private readonly leases: Collection<LeaseDocument>;

  constructor(url: string, dbName?: string) {
    this.client = new MongoClient(url);
    this.leases = mongoDatabase(this.client, url, dbName).collection<LeaseDocument>('leases');
  }

  async acquire(name: string, owner: string, ttlMs: number, now: number): Promise<LeaseGrant | null> {
    const renewal = { $and: [{ $eq: ['$owner', { $literal: owner }] }, { $gt: ['$expiresAt', now] }] };
    try {
      const doc = await mongoAnswer(
        'leases',
        this.leases.findOneAndUpdate(
          { _id: name, $or: [{ expiresAt: { $lte: now } }, { owner }] },
          // One stage: every expression reads the lease as it was before this update.
          [{ $set: { owner: { $literal: owner }, expiresAt: now + ttlMs, fence: { $cond: [renewal, '$fence', { $add: [{ $ifNull: ['$fence', 0] }, 1] }] } } }],
          { upsert: true, returnDocument: 'after' },
        ),
      );
      return doc ? grant(doc) : null;
    } catch (error) {
      // The filter found the lease held live by another, so the upsert tried to make a second one.
      if (error instanceof MongoServerError && error.code === DUPLICATE_KEY) return null;
      throw error;
    }
  }

  async release(name: string, owner: string): Promise<void> {
    await mongoAnswer('leases', this.leases.updateOne({ _id: name, owner }, { $set: { expiresAt: 0 } }));
  }

  async read(name: string): Promise<LeaseGrant | null> {
    const doc = await mongoAnswer('leases', this.leases.findOne({ _id: name }));
    return doc ? grant(doc) : null;
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}

function grant(doc: LeaseDocument): LeaseGrant {
  return { name: doc._id, owner: doc.owner, fence: doc.fence, expiresAt: doc.expiresAt };
}
