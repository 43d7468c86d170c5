import { PostReceiver } from '../../test/support/receiver.js';
import type { Config } from '../config.js';
import type { EventStore } from '../infrastructure/event-store/event-store.port.js';
import { Clock } from '../infrastructure/nest/clock.js';
import { DeliveryKinds, type DeliveryKind } from './delivery-kind.js';
import { partitionOf } from './delivery-partitions.js';
import { DeliverySender } from './delivery-sender.js';
import { deliverySettings } from './delivery-settings.js';
import type { Delivery, DeliveryStore } from './delivery-store.js';

class ManualClock extends Clock {
  at = 1_000_000;
  now(): Date {
    return new Date(this.at);
  }
}

const kind: DeliveryKind = {
  kind: 'test',
  outcomeTypes: { delivered: 'TestDelivered', failed: 'TestDeliveryFailed', deadLettered: 'TestDeliveryDeadLettered' },
  render: async (d) => ({ url: d.uri, headers: { 'content-type': 'text/plain' }, body: d.deliveryId }),
  outcomeStream: (d) => `test-${d.deliveryId}`,
  outcomeFields: () => ({}),
  represent: () => ({}),
};

const delivery = (id: string, uri: string, nextAttemptAt: number): Delivery => ({ tenantId: 'acme', deliveryId: id, kind: 'test', receiverId: 'r', uri, data: {}, cause: 'Test', causeEventId: id, status: 'pending', attempts: 0, nextAttemptAt, createdAt: '', updatedAt: '' });

/** Until the sender has nothing waiting or in flight that is due. */
async function settled(sender: DeliverySender, backlog = 0): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (sender.backlog > backlog && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  await new Promise((r) => setTimeout(r, 150));
}

describe('a sender sharing the deliveries by partition', () => {
  let receiver: PostReceiver;
  let sender: DeliverySender;
  let clock: ManualClock;
  const owned = new Set<number>();
  /** The outcome writes wait for it (an event store that hangs) until `answer` is called. */
  let outcomes: Promise<void>;
  let answer = () => {};

  beforeEach(async () => {
    receiver = await PostReceiver.start('/in');
    clock = new ManualClock();
    const kinds = new DeliveryKinds();
    kinds.register(kind);
    const store = { save: async () => undefined } as unknown as DeliveryStore;
    outcomes = Promise.resolve();
    const events = { append: () => outcomes.then(() => ({ position: 1, revision: 0 })) } as unknown as EventStore;
    sender = new DeliverySender({ delivery: deliverySettings({}) } as Config, store, kinds, events, clock);
    owned.clear();
    owned.add(partitionOf(receiver.url));
    sender.owns = (p) => owned.has(p);
    sender.start();
  });

  afterEach(async () => {
    answer();
    await sender.stop();
    await receiver.down();
  });

  const bodies = () => receiver.taken.map((p) => p.body).sort();

  it('takes no delivery of a partition it does not hold', async () => {
    owned.clear();
    sender.enqueue(delivery('d1', receiver.url, clock.at));
    sender.adopt([delivery('d2', receiver.url, clock.at)], sender.mark);
    expect(sender.backlog).toBe(0);
  });

  it('does not take again from a read begun before its outcome was stored a delivery it has just delivered', async () => {
    const before = sender.mark;
    sender.enqueue(delivery('d1', receiver.url, clock.at));
    await settled(sender);
    expect(bodies()).toEqual(['d1']);
    // The read began before d1 was delivered, and shows it pending still.
    sender.adopt([delivery('d1', receiver.url, clock.at)], before);
    await settled(sender);
    expect(bodies()).toEqual(['d1']);
    sender.forgetSettled(sender.mark);
  });

  it('sends each delivery of a partition it let go and took again once', async () => {
    const p = partitionOf(receiver.url);
    const waiting = ['d1', 'd2', 'd3'].map((id) => delivery(id, receiver.url, clock.at + 5_000));
    for (const d of waiting) sender.enqueue(d);
    owned.delete(p);
    await sender.drop(p);
    expect(sender.backlog).toBe(0);
    owned.add(p);
    sender.adopt(waiting, sender.mark);
    clock.at += 5_000;
    await settled(sender);
    expect(bodies()).toEqual(['d1', 'd2', 'd3']);
  });

  it('waits, when it lets a partition go, for the attempts in flight of that partition only', async () => {
    const p = partitionOf(receiver.url);
    outcomes = new Promise((r) => (answer = r));
    sender.enqueue(delivery('d1', receiver.url, clock.at));
    await receiver.posts(1);
    // d1's outcome is not stored yet: another partition is let go at once all the same.
    const other = (p + 1) % 32;
    const order: string[] = [];
    void sender.drop(other).then(() => order.push('other dropped'));
    await new Promise((r) => setImmediate(r));
    order.push('checked');
    const dropped = sender.drop(p).then(() => order.push('own dropped'));
    await new Promise((r) => setImmediate(r));
    expect(order).toEqual(['other dropped', 'checked']);
    answer();
    await dropped;
    expect(order).toEqual(['other dropped', 'checked', 'own dropped']);
  });

  it('makes no new attempt of a partition it has stopped holding, even one already queued', async () => {
    const p = partitionOf(receiver.url);
    sender.enqueue(delivery('d1', receiver.url, clock.at + 5_000));
    // The lease is about to lapse unrenewed: `owns` says no before anything is dropped.
    owned.delete(p);
    clock.at += 5_000;
    await settled(sender);
    expect(bodies()).toEqual([]);
    expect(sender.backlog).toBe(0);
  });
});
