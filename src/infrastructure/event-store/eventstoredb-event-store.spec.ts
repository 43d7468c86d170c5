import type { EventStoreDBClient } from '@eventstore/db-client';
import { type EventData, StoreUnavailableError } from './event-store.port.js';
import { EventStoreDbEventStore } from './eventstoredb-event-store.js';

/** A client whose every append fails as the EventStoreDB client fails it. */
function failingWith(error: Error & { type: string }): EventStoreDBClient {
  return { appendToStream: () => Promise.reject(error) } as unknown as EventStoreDBClient;
}

const event: EventData = { id: '0193a1b2-c3d4-7e5f-8a9b-000000000001', type: 'Tested', data: {}, metadata: { actor: 'system', correlationId: 'c-1', occurredAt: '2026-11-23T00:00:00.000Z', schemaVersion: 1 } };

describe('EventStoreDB event store, when the server cannot take an append', () => {
  it.each(['unavailable', 'not-leader'])('reports %s as a store that cannot take writes now (503 for the client)', async (type) => {
    const store = new EventStoreDbEventStore(failingWith(Object.assign(new Error('14 UNAVAILABLE: No connection established'), { type })));
    await expect(store.append('s-1', [event], 'any')).rejects.toBeInstanceOf(StoreUnavailableError);
  });

  it('passes any other failure on as it is', async () => {
    const store = new EventStoreDbEventStore(failingWith(Object.assign(new Error('access denied'), { type: 'access-denied' })));
    await expect(store.append('s-1', [event], 'any')).rejects.not.toBeInstanceOf(StoreUnavailableError);
  });
});
