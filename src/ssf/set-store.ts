import { Inject, Injectable } from '@nestjs/common';
import type { LeaseFence } from '../infrastructure/read-store/lease.port.js';
import { READ_STORE, type ReadStore } from '../infrastructure/read-store/read-store.port.js';

/**
 * One SET waiting for its receiver: kept (view `ssf_sets`) from the moment the follower read
 * the event it tells of until the receiver acknowledged it (poll) or took it (push). A SET is
 * a signed statement, not a credential: it is kept signed, so that a SET polled again is the
 * same token.
 */
export interface PendingSet {
  tenantId: string;
  streamId: string;
  jti: string;
  set: string;
  /** The log position of the event it tells of: SETs are returned in log order. */
  position: number;
  createdAt: string;
}

const SETS = 'ssf_sets';
/** The follower's checkpoint alone: moved in the same commit as the SETs it creates. */
const FOLLOWER = 'ssf_follower';

/** `<tenant>/<stream>/`: the prefix of a stream's SETs, sorting by log position. */
export const streamPrefix = (tenantId: string, streamId: string) => `${tenantId}/${streamId}/`;
const setKey = (s: Pick<PendingSet, 'tenantId' | 'streamId' | 'position' | 'jti'>) => `${streamPrefix(s.tenantId, s.streamId)}${String(s.position).padStart(15, '0')}/${s.jti}`;

/** The durable state of SET delivery: the SETs not yet taken, and the follower's checkpoint. */
@Injectable()
export class SetStore {
  constructor(@Inject(READ_STORE) private readonly reads: ReadStore) {}

  async prepare(): Promise<number> {
    await this.reads.prepareView(SETS, 1, [{ fields: ['tenantId', 'streamId', 'jti'] }]);
    await this.reads.prepareView(FOLLOWER, 1, []);
    return (await this.reads.viewState(FOLLOWER))?.position ?? 0;
  }

  /**
   * Adds SETs and removes others (of deleted or disabled streams), with the follower's position, in one atomic step;
   * with `fence`, refused (LeaseLostError) in that same step once the follower's lease has passed to another server.
   */
  async commit(created: readonly PendingSet[], dropped: readonly PendingSet[], position: number, fence?: LeaseFence): Promise<void> {
    await this.reads.commitAll([
      { view: SETS, writes: [...dropped.map((s) => ({ id: setKey(s), doc: null, position })), ...created.map((s) => ({ id: setKey(s), doc: { ...s }, position }))], checkpoint: 0 },
      { view: FOLLOWER, writes: [], checkpoint: position },
    ], fence ? { fence } : {});
  }

  /** The stream's first `limit` SETs, in log order. */
  async pending(tenantId: string, streamId: string, limit?: number): Promise<PendingSet[]> {
    const docs = await this.reads.find<PendingSet>(SETS, { tenantId, streamId }, { idPrefix: streamPrefix(tenantId, streamId), sortBy: '_id', ...(limit !== undefined ? { limit } : {}) });
    return docs.map(({ _id, _position, ...s }) => s as PendingSet);
  }

  /** The stream's SETs named by `jtis` that it still holds. */
  async held(tenantId: string, streamId: string, jtis: readonly string[]): Promise<PendingSet[]> {
    const found: PendingSet[] = [];
    for (const jti of new Set(jtis)) found.push(...(await this.reads.find<PendingSet>(SETS, { tenantId, streamId, jti })).map(({ _id, _position, ...s }) => s as PendingSet));
    return found;
  }

  async remove(sets: readonly PendingSet[]): Promise<void> {
    if (sets.length) await this.reads.commit(SETS, sets.map((s) => ({ id: setKey(s), doc: null, position: 0 })), 0);
  }
}
