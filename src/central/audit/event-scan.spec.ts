import type { EventStore, ReadAllOptions, RecordedEvent } from '../../infrastructure/event-store/event-store.port.js';
import { eventQuery } from './audit-query.js';
import { MAX_SCAN, SCAN_BATCH, type ScanBatch, scanEvents, tenantOf } from './event-scan.js';

/** A log in memory: `readAll` as the port defines it, counting what it reads. */
function logOf(events: RecordedEvent[]): EventStore & { read: number } {
  const store = {
    read: 0,
    async readAll(o: ReadAllOptions = {}) {
      const page = events.filter((e) => e.position > (o.afterPosition ?? 0)).slice(0, o.maxCount ?? events.length);
      store.read += page.length;
      return page;
    },
  };
  return store as unknown as EventStore & { read: number };
}

let position = 0;
const event = (streamId: string, tenantId: string | undefined, type = 'AccessTokenIssued', actor = 'system', occurredAt = '2026-01-01T00:00:00.000Z'): RecordedEvent => ({
  id: `e${++position}`,
  type,
  streamId,
  revision: 0,
  position: position * 2,
  data: {},
  metadata: { ...(tenantId ? { tenantId } : {}), actor, correlationId: 'c', occurredAt, schemaVersion: 1 },
});

async function all(scan: AsyncGenerator<ScanBatch>): Promise<{ ids: string[]; last: ScanBatch }> {
  const ids: string[] = [];
  let last!: ScanBatch;
  for await (const b of scan) {
    ids.push(...b.matches.map((e) => e.id));
    last = b;
  }
  return { ids, last };
}

describe('audit event scan', () => {
  it("takes the tenant of an event from its metadata, else from its stream's name", () => {
    expect(tenantOf(event('session-acme.x', 'acme'))).toBe('acme');
    expect(tenantOf(event('session-acme-eu.s1', undefined))).toBe('acme-eu');
    expect(tenantOf(event('tenant-acme', undefined))).toBe('acme');
    expect(tenantOf(event('nodash', undefined))).toBeUndefined();
  });

  it('stops a sparse tenant after MAX_SCAN events read, with a cursor to resume from, then reaches the end', async () => {
    const events = Array.from({ length: MAX_SCAN + SCAN_BATCH + 3 }, (_, i) => event(`session-${i === MAX_SCAN + 7 ? 'acme' : 'beta'}.s`, undefined));
    const store = logOf(events);
    const first = await all(scanEvents(store, 'acme', eventQuery({}, false), { maxScan: MAX_SCAN }));
    expect(first.ids).toEqual([]);
    expect(store.read).toBe(MAX_SCAN);
    expect(first.last).toMatchObject({ end: false, next: events[MAX_SCAN - 1].position });
    const second = await all(scanEvents(store, 'acme', eventQuery({ after: String(first.last.next) }, false), { maxScan: MAX_SCAN }));
    expect(second.ids).toEqual([events[MAX_SCAN + 7].id]);
    expect(second.last).toMatchObject({ end: true, next: events.at(-1)!.position });
  });

  it('stops at the limit, resuming right after the last event taken, without gaps or repeats', async () => {
    const events = Array.from({ length: 30 }, (_, i) => event(`session-${i % 3 ? 'acme' : 'beta'}.s`, undefined));
    const store = logOf(events);
    const seen: string[] = [];
    let after = '0';
    for (let pages = 0; pages < 10; pages++) {
      const { ids, last } = await all(scanEvents(store, 'acme', eventQuery({ after, limit: '7' }, false), { maxScan: MAX_SCAN }));
      seen.push(...ids);
      if (last.end) break;
      after = String(last.next);
    }
    expect(seen).toEqual(events.filter((_, i) => i % 3).map((e) => e.id));
  });

  it('applies every filter together: types, stream, actor, and a time range', async () => {
    const events = [
      event('session-acme.a', 'acme', 'AccessTokenIssued', 'client:web', '2026-01-01T10:00:00Z'),
      event('session-acme.a', 'acme', 'TokenRevoked', 'client:web', '2026-01-01T11:00:00Z'),
      event('session-acme.b', 'acme', 'TokenRevoked', 'client:web', '2026-01-01T11:00:00Z'),
      event('session-acme.a', 'acme', 'TokenRevoked', 'client:spa', '2026-01-01T11:00:00Z'),
      event('session-acme.a', 'acme', 'RefreshRotated', 'client:web', '2026-01-01T11:30:00Z'),
      event('session-acme.a', 'acme', 'TokenRevoked', 'client:web', '2026-01-01T12:00:00Z'),
    ];
    const q = eventQuery({ type: ['TokenRevoked,RefreshRotated', 'GrantRevoked'], stream: 'session-acme.a', actor: 'client:web', since: '2026-01-01T11:00:00Z', until: '2026-01-01T12:00:00Z' }, false);
    expect((await all(scanEvents(logOf(events), 'acme', q))).ids).toEqual([events[1].id, events[4].id]);
  });

  it('reads no further than the head it was given', async () => {
    const events = Array.from({ length: 5 }, () => event('session-acme.s', 'acme'));
    const { ids, last } = await all(scanEvents(logOf(events), 'acme', eventQuery({}, true), { head: events[2].position }));
    expect(ids).toEqual(events.slice(0, 3).map((e) => e.id));
    expect(last).toMatchObject({ end: true, next: events[2].position });
  });
});

describe('audit query', () => {
  it.each([
    [{ limit: '0' }, 'limit'],
    [{ limit: '1001' }, 'limit'],
    [{ limit: ['1', '2'] }, 'limit'],
    [{ after: '-1' }, 'after'],
    [{ after: '1e3' }, 'after'],
    [{ since: 'yesterday' }, 'since'],
    [{ since: '2026-01-01T00:00:00' }, 'since'],
    [{ since: '2026-01-02T00:00:00Z', until: '2026-01-01T00:00:00Z' }, 'until'],
    [{ type: 'Token-Revoked' }, 'type'],
    [{ type: '' }, 'type'],
    [{ colour: 'red' }, 'colour'],
  ])('refuses %j with a 400 naming %s', (query, path) => {
    expect(() => eventQuery(query, false)).toThrow(expect.objectContaining({ status: 400, extensions: { errors: [expect.objectContaining({ path })] } }));
  });

  it('takes a limit up to 100,000 for a stream, and none by default', () => {
    expect(eventQuery({ limit: '100000' }, true).limit).toBe(100_000);
    expect(eventQuery({}, true).limit).toBeUndefined();
    expect(eventQuery({}, false).limit).toBe(100);
  });
});
