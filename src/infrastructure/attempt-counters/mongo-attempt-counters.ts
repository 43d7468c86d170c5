import { type Collection, MongoClient } from 'mongodb';
import { mongoAnswer, mongoDatabase } from '../read-store/mongo-database.js';
import type { AttemptCounters, Counter, CounterHit } from './attempt-counters.port.js';


interface CounterDocument {
  _id: string;
  count: number;
  last: number;
  expires: number;
  /** `expires` as a date, for the TTL index that deletes expired counters. */
  expiresAt: Date;
}

/**
 * Attempt counters in MongoDB (collection `attempt_counters`), shared by every server of a
 * scaled-out deployment. A hit is one atomic upsert (an update pipeline computes the new count
 * from the stored one); a TTL index on `expiresAt` deletes expired counters in the background.
 */
export class MongoAttemptCounters implements AttemptCounters {
  private readonly client: MongoClient;
  private readonly counters: Collection<CounterDocument>;
  private indexed?: Promise<unknown>;

  constructor(url: string, dbName?: string) {
    this.client = new MongoClient(url);
    this.counters = mongoDatabase(this.client, url, dbName).collection<CounterDocument>('attempt_counters');
  }

  async read(keys: readonly string[], now: number): Promise<Map<string, Counter>> {
    const docs = await mongoAnswer('attempt counters', this.counters.find({ _id: { $in: [...keys] }, expires: { $gt: now } }).toArray());
    return new Map(docs.map((d) => [d._id, { count: d.count, last: d.last, expires: d.expires }]));
  }

  async hit(hits: readonly CounterHit[], now: number): Promise<void> {
    if (!hits.length) return;
    this.indexed ??= this.counters.createIndex({ expiresAt: 1 }, { expireAfterSeconds: 0 }).catch((e: unknown) => {
      this.indexed = undefined;
      throw e;
    });
    await mongoAnswer('attempt counters', this.indexed);
    await mongoAnswer(
      'attempt counters',
      this.counters.bulkWrite(
        hits.map((h) => {
          const live = { $gt: [{ $ifNull: ['$expires', 0] }, now] };
          const expires = h.sliding ? now + h.ttlMs : { $cond: [live, '$expires', now + h.ttlMs] };
          return {
            updateOne: {
              filter: { _id: h.key },
              // Stage one computes count and expiry from the stored counter; stage two the date the TTL index reads.
              update: [
                { $set: { count: { $cond: [live, { $add: ['$count', 1] }, 1] }, expires, last: now } },
                { $set: { expiresAt: { $toDate: '$expires' } } },
              ],
              upsert: true,
            },
          };
        }),
        { ordered: false },
      ),
    );
  }

  async clear(keys: readonly string[]): Promise<void> {
    if (keys.length) await mongoAnswer('attempt counters', this.counters.deleteMany({ _id: { $in: [...keys] } }));
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
