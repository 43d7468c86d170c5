import { join } from 'node:path';
import { tempDir } from '../../test/support/temp-dir.js';
import { LeaseLostError } from '../infrastructure/read-store/lease.port.js';
import { SqliteLeases } from '../infrastructure/read-store/sqlite-leases.js';
import { SqliteReadStore } from '../infrastructure/read-store/sqlite-read-store.js';
import { partitionOf } from './delivery-partitions.js';
import { DeliveryStore } from './delivery-store.js';

describe('delivery store', () => {
  it('reads a logout delivery stored before deliveries had kinds as a backchannel_logout, its fields under data', async () => {
    const reads = new SqliteReadStore(join(tempDir('deliveries-'), 'r.db'));
    const store = new DeliveryStore(reads);
    await store.prepare();
    const legacy = { tenantId: 't1', deliveryId: 'd1', clientId: 'c1', sessionId: 's1', userId: 'u1', uri: 'http://127.0.0.1:9/logout', cause: 'SessionRevoked', causeEventId: 'e1', status: 'pending', attempts: 0, nextAttemptAt: 1, createdAt: 'x', updatedAt: 'x' };
    await reads.commit('backchannel_deliveries', [{ id: 't1/d1', doc: legacy, position: 1 }], 0);

    const [read] = await store.pending();

    expect(read).toMatchObject({ kind: 'backchannel_logout', receiverId: 'c1', data: { clientId: 'c1', sessionId: 's1', userId: 'u1' }, uri: legacy.uri, status: 'pending' });
    expect(read).not.toHaveProperty('clientId');
    await reads.close();
  });

  it('moves a follower checkpoint with the deliveries it created, each follower its own', async () => {
    const reads = new SqliteReadStore(join(tempDir('deliveries-'), 'r.db'));
    const store = new DeliveryStore(reads);
    await store.prepare();
    expect(await store.checkpoint('a_follower')).toBe(0);
    expect(await store.checkpoint('b_follower')).toBe(0);
    const d = { tenantId: 't1', deliveryId: 'd2', kind: 'webhook', receiverId: 'w1', uri: 'http://127.0.0.1:9/', data: { eventId: 'x' }, cause: 'SessionRevoked', causeEventId: 'e2', status: 'pending' as const, attempts: 0, nextAttemptAt: 1, createdAt: 'x', updatedAt: 'x' };

    await store.created([d], 'a_follower', 42);

    expect(await store.checkpoint('a_follower')).toBe(42);
    expect(await store.checkpoint('b_follower')).toBe(0);
    expect(await store.pending()).toEqual([d]);
    await reads.close();
  });

  it('finds the pending deliveries of a partition, those stored before deliveries had one once they are given theirs', async () => {
    const reads = new SqliteReadStore(join(tempDir('deliveries-'), 'r.db'));
    const store = new DeliveryStore(reads);
    await store.prepare();
    const uri = 'http://127.0.0.1:9/logout';
    const d = { tenantId: 't1', deliveryId: 'd3', kind: 'webhook', receiverId: 'w1', uri, data: {}, cause: 'SessionRevoked', causeEventId: 'e3', status: 'pending' as const, attempts: 0, nextAttemptAt: 1, createdAt: 'x', updatedAt: 'x' };
    await store.checkpoint('a_follower');
    await store.created([d], 'a_follower', 1);
    await store.save({ ...d, deliveryId: 'd4', status: 'dead' });
    await reads.commit('backchannel_deliveries', [{ id: 't1/old', doc: { ...d, deliveryId: 'old' }, position: 1 }], 0);

    expect((await store.pendingIn(partitionOf(uri))).map((x) => x.deliveryId)).toEqual(['d3']);
    await store.partitionOlder();
    expect((await store.pendingIn(partitionOf(uri))).map((x) => x.deliveryId).sort()).toEqual(['d3', 'old']);
    expect(await store.pendingIn((partitionOf(uri) + 1) % 32)).toEqual([]);
    expect(await store.get('t1', 'old')).toEqual({ ...d, deliveryId: 'old' });
    await reads.close();
  });

  it('refuses the deliveries and checkpoint of a follower whose lease has passed to another server', async () => {
    const file = join(tempDir('deliveries-'), 'r.db');
    const reads = new SqliteReadStore(file);
    const leases = new SqliteLeases(file);
    const store = new DeliveryStore(reads);
    await store.prepare();
    await store.checkpoint('a_follower');
    const d = { tenantId: 't1', deliveryId: 'd5', kind: 'webhook', receiverId: 'w1', uri: 'http://127.0.0.1:9/', data: {}, cause: 'SessionRevoked', causeEventId: 'e5', status: 'pending' as const, attempts: 0, nextAttemptAt: 1, createdAt: 'x', updatedAt: 'x' };
    const stalled = (await leases.acquire('delivery-follower.a_follower', 'a', 1_000, 0))!;
    // a stalls past its lease; b takes the follower over.
    const taken = (await leases.acquire('delivery-follower.a_follower', 'b', 1_000, 2_000))!;

    await expect(store.created([d], 'a_follower', 7, { lease: stalled.name, fence: stalled.fence })).rejects.toBeInstanceOf(LeaseLostError);
    expect(await store.checkpoint('a_follower')).toBe(0);
    expect(await store.pending()).toEqual([]);

    await store.created([d], 'a_follower', 7, { lease: taken.name, fence: taken.fence });
    expect(await store.checkpoint('a_follower')).toBe(7);
    expect(await store.pending()).toEqual([d]);
    await leases.close();
    await reads.close();
  });
});
