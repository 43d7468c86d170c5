import type { EventStoreDBClient } from '@eventstore/db-client';
import { type EventData, StoreOutcomeUnknownError, StoreUnavailableError } from './event-store.port.js';
import { EventStoreDbEventStore } from './eventstoredb-event-store.js';

/** A client whose every append and stream read fails as the EventStoreDB client fails them. */
function failingWith(error: Error): EventStoreDBClient {
  const failedRead = {
    [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(error) }),
  };
  return { appendToStream: () => Promise.reject(error), readStream: () => failedRead } as unknown as EventStoreDBClient;
}

const event: EventData = { id: '0193a1b2-c3d4-7e5f-8a9b-000000000001', type: 'Tested', data: {}, metadata: { actor: 'system', correlationId: 'c-1', occurredAt: '2026-11-23T00:00:00.000Z', schemaVersion: 1 } };

describe('EventStoreDB event store, when no server can take an operation', () => {
  it.each([{ type: 'unavailable' }, { type: 'not-leader' }, { code: 14 }, { code: 4 }])('reports %j as a store that cannot take it now (503 for the client), on append and on read', async (shape) => {
    const store = new EventStoreDbEventStore(failingWith(Object.assign(new Error('14 UNAVAILABLE: No connection established'), shape)));
    await expect(store.append('s-1', [event], 'any')).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(store.readStream('s-1')).rejects.toBeInstanceOf(StoreUnavailableError);
  });

  it('reports an append whose answer came too late as one whose outcome is unknown (500 for the client), and such a read as a store that cannot answer now', async () => {
    const store = new EventStoreDbEventStore(failingWith(Object.assign(new Error('4 DEADLINE_EXCEEDED: Deadline exceeded'), { type: 'deadline-exceeded' })));
    await expect(store.append('s-1', [event], 'any')).rejects.toBeInstanceOf(StoreOutcomeUnknownError);
    await expect(store.readStream('s-1')).rejects.toBeInstanceOf(StoreUnavailableError);
  });

  it('passes any other failure on as it is', async () => {
    const denied = Object.assign(new Error('access denied'), { type: 'access-denied' });
    const store = new EventStoreDbEventStore(failingWith(denied));
    await expect(store.append('s-1', [event], 'any')).rejects.toBe(denied);
    await expect(store.readStream('s-1')).rejects.toBe(denied);
  });
});
