import type { EventStore, RecordedEvent, Subscription } from '../infrastructure/event-store/event-store.port.js';
import { Clock } from '../infrastructure/nest/clock.js';
import { type LeaseFence, LeaseLostError } from '../infrastructure/read-store/lease.port.js';
import type { ProjectionRunner } from '../infrastructure/read-store/projection-runner.js';
import type { DeliveryFollowerSpec } from './delivery-kind.js';
import type { DeliverySender } from './delivery-sender.js';
import type { Delivery, DeliveryStore } from './delivery-store.js';
import { LogFollower, MAX_BATCH } from './log-follower.js';

class ManualClock extends Clock {
  at = 1_000_000;
  now(): Date {
    return new Date(this.at);
  }
}

/** A log whose subscription yields what the test pushes. */
function log(): { events: EventStore; push(e: RecordedEvent): void } {
  const queue: RecordedEvent[] = [];
  let wake: (() => void) | undefined;
  let closed = false;
  const subscription: Subscription = {
    async *[Symbol.asyncIterator]() {
      for (;;) {
        while (queue.length) yield queue.shift()!;
        if (closed) return;
        await new Promise<void>((r) => (wake = r));
      }
    },
    close: async () => {
      closed = true;
      wake?.();
    },
  };
  return {
    events: { subscribeToAll: () => subscription } as unknown as EventStore,
    push(e) {
      queue.push(e);
      wake?.();
    },
  };
}

const event = (position: number, type = 'UserDisabled'): RecordedEvent => ({ id: `e${position}`, type, data: {}, metadata: {} as RecordedEvent['metadata'], streamId: 's', revision: 0, position });
/** Handled positions, in the order the follower read them. */
const handled: number[] = [];
/** Until the follower has read the event at `position` (each event pushed alone is a batch of its own). */
async function handledUpTo(position: number): Promise<void> {
  while (!handled.includes(position)) await new Promise((r) => setImmediate(r));
}

describe('log follower', () => {
  it('stores the checkpoint with every batch that makes deliveries, and that of batches making none at most once a second and at stop', async () => {
    const commits: Array<{ deliveries: number; position: number }> = [];
    const store = { checkpoint: async () => 0, created: async (d: readonly Delivery[], _c: string, position: number) => void commits.push({ deliveries: d.length, position }) } as unknown as DeliveryStore;
    const sender = { enqueue: () => undefined } as unknown as DeliverySender;
    const spec: DeliveryFollowerSpec = {
      checkpoint: 'test_follower',
      eventTypes: ['UserDisabled', 'UserDeleted'],
      views: [],
      deliveriesOf: async (batch) => {
        handled.push(...batch.map((e) => e.position));
        return batch.filter((e) => e.type === 'UserDeleted').map(() => ({}) as Delivery);
      },
    };
    const clock = new ManualClock();
    const { events, push } = log();
    const follower = new LogFollower(spec, events, {} as ProjectionRunner, store, sender, clock);
    await follower.start();

    const types = ['UserDisabled', 'UserDisabled', 'UserDeleted', 'UserDisabled', 'UserDisabled', 'UserDisabled'];
    for (const [i, type] of types.entries()) {
      // A second passes after the fourth batch: the fifth, making none, stores its checkpoint.
      if (i === 4) clock.at += 1_000;
      push(event(i + 1, type));
      await handledUpTo(i + 1);
    }
    await follower.stop();

    expect(commits).toEqual([
      { deliveries: 0, position: 1 },
      { deliveries: 1, position: 3 },
      { deliveries: 0, position: 5 },
      { deliveries: 0, position: 6 },
    ]);
  });
});

describe('log follower under a burst', () => {
  it(`handles a burst in batches of at most ${MAX_BATCH} events`, async () => {
    const batches: number[] = [];
    const store = { checkpoint: async () => 0, created: async () => undefined } as unknown as DeliveryStore;
    const sender = { enqueue: () => undefined } as unknown as DeliverySender;
    const spec: DeliveryFollowerSpec = {
      checkpoint: 'burst_follower',
      eventTypes: ['UserDeleted'],
      views: [],
      deliveriesOf: async (batch) => {
        batches.push(batch.length);
        return [];
      },
    };
    const { events, push } = log();
    const follower = new LogFollower(spec, events, {} as ProjectionRunner, store, sender, new ManualClock());
    await follower.start();
    const total = MAX_BATCH * 2 + 10;
    for (let i = 1; i <= total; i++) push(event(i, 'UserDeleted'));
    while (batches.reduce((a, b) => a + b, 0) < total) await new Promise((r) => setImmediate(r));
    await follower.stop();
    expect(Math.max(...batches)).toBeLessThanOrEqual(MAX_BATCH);
    expect(batches.reduce((a, b) => a + b, 0)).toBe(total);
  });
});

describe('log follower under a lease', () => {
  it('writes under its lease, and stops for good once the store refuses a write because the lease has moved on', async () => {
    const fences: unknown[] = [];
    const store = {
      checkpoint: async () => 0,
      created: async (_d: readonly Delivery[], _c: string, _p: number, fence?: LeaseFence) => {
        fences.push(fence);
        throw new LeaseLostError(fence!.lease, fence!.fence);
      },
    } as unknown as DeliveryStore;
    const enqueued: Delivery[] = [];
    const sender = { enqueue: (d: Delivery) => void enqueued.push(d) } as unknown as DeliverySender;
    const spec: DeliveryFollowerSpec = { checkpoint: 'fenced_follower', eventTypes: ['UserDeleted'], views: [], deliveriesOf: async () => [{} as Delivery] };
    const logged: string[] = [];
    const { events, push } = log();
    const follower = new LogFollower(spec, events, {} as ProjectionRunner, store, sender, new ManualClock(), (m) => logged.push(m), { lease: 'delivery-follower.fenced_follower', fence: 3 });
    await follower.start();
    push(event(1, 'UserDeleted'));
    while (!logged.length) await new Promise((r) => setImmediate(r));
    await follower.stop();
    expect(fences).toEqual([{ lease: 'delivery-follower.fenced_follower', fence: 3 }]);
    expect(enqueued).toEqual([]);
    expect(logged).toEqual([expect.stringContaining('has moved on from fence 3')]);
    expect(logged[0]).not.toContain('retrying');
  });
});
