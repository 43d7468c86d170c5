import type { Config } from '../config.js';
import type { EventStore, Subscription } from '../infrastructure/event-store/event-store.port.js';
import { Clock } from '../infrastructure/nest/clock.js';
import type { LeaseGrant, Leases } from '../infrastructure/read-store/lease.port.js';
import type { ProjectionRunner } from '../infrastructure/read-store/projection-runner.js';
import { DeliveryKinds } from './delivery-kind.js';
import { DeliverySender } from './delivery-sender.js';
import { deliverySettings } from './delivery-settings.js';
import type { DeliveryStore } from './delivery-store.js';
import { DeliveryModule } from './delivery.module.js';

class FixedClock extends Clock {
  now(): Date {
    return new Date(1_000_000);
  }
}

/** Every lease already held by another server. */
const takenLeases: Leases = {
  acquire: async () => null,
  release: async () => undefined,
  read: async (name: string): Promise<LeaseGrant> => ({ name, owner: 'other', fence: 1, expiresAt: 2_000_000 }),
  close: async () => undefined,
};

async function started(mongodbUrl: string | undefined) {
  const calls: string[] = [];
  const kinds = new DeliveryKinds();
  kinds.register(
    { kind: 'test', outcomeTypes: { delivered: 'a', failed: 'b', deadLettered: 'c' }, render: async () => ({ url: '', headers: {}, body: '' }), outcomeStream: () => '', outcomeFields: () => ({}), represent: () => ({}) },
    { checkpoint: 'test_follower', eventTypes: ['X'], views: [], deliveriesOf: async () => [] },
  );
  const store = { prepare: async () => void calls.push('prepare'), partitionOlder: async () => void calls.push('partitionOlder'), pending: async () => (calls.push('pending'), []), checkpoint: async () => (calls.push('checkpoint'), 0) } as unknown as DeliveryStore;
  const subscription: Subscription = { async *[Symbol.asyncIterator]() {}, close: async () => undefined };
  const events = { subscribeToAll: () => subscription } as unknown as EventStore;
  const config = { mongodbUrl, delivery: deliverySettings({}) } as Config;
  const sender = new DeliverySender(config, store, kinds, events, new FixedClock());
  const module = new DeliveryModule(kinds, store, sender, events, {} as ProjectionRunner, new FixedClock(), config, takenLeases);
  await module.onApplicationBootstrap();
  await new Promise((r) => setTimeout(r, 50));
  await module.beforeApplicationShutdown();
  return { calls, sender };
}

describe('delivery module', () => {
  it('on the embedded store, sends every pending delivery and follows the log for every kind', async () => {
    const { calls, sender } = await started(undefined);
    expect(calls).toEqual(['prepare', 'pending', 'checkpoint']);
    expect(sender.owns).toBeUndefined();
  });

  it('with the read models in MongoDB, sends and follows only what its leases give it (none here: another server holds them all)', async () => {
    const { calls, sender } = await started('mongodb://127.0.0.1:1/none');
    expect(calls).toEqual(['prepare', 'partitionOlder']);
    expect(sender.owns?.(0)).toBe(false);
  });
});
