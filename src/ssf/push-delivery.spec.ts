import type { RecordedEvent } from '../infrastructure/event-store/event-store.port.js';
import type { ReadStore } from '../infrastructure/read-store/read-store.port.js';
import type { Directory } from '../shared/directory.js';
import { SsfPushKind } from './push-delivery.js';
import { SetTargets } from './set-targets.js';

const revoked = (n: number, tenantId: string): RecordedEvent =>
  ({ id: `e${n}`, type: 'SessionRevoked', data: { tenantId, sessionId: `s${n}`, userId: `u${n}`, reason: 'admin' }, streamId: `session-${tenantId}.s${n}`, revision: 1, position: n, metadata: { tenantId, actor: 'system', correlationId: 'c', occurredAt: '2026-01-01T00:00:00.000Z' } }) as unknown as RecordedEvent;

describe('SSF push follower', () => {
  it("reads each tenant's streams once per batch of events, not once per event", async () => {
    const finds: unknown[] = [];
    const reads = {
      find: async (view: string, filter: unknown) => {
        finds.push([view, filter]);
        return [];
      },
      get: async () => null,
    } as unknown as ReadStore;
    const directory = { issuer: (t: string) => `https://as.example.com/${t}` } as unknown as Directory;
    const kind = new SsfPushKind(undefined as never, undefined as never, reads, new SetTargets(reads, directory), undefined as never, undefined as never, directory);
    const batch = [revoked(1, 'acme'), revoked(2, 'acme'), revoked(3, 'other'), revoked(4, 'acme')];
    expect(await kind.deliveriesOf(batch, new Date(0))).toEqual([]);
    expect(finds).toEqual([
      ['ssf_streams', { tenantId: 'acme' }],
      ['ssf_streams', { tenantId: 'other' }],
    ]);
  });
});
