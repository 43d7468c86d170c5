import { join } from 'node:path';
import { jest } from '@jest/globals';
import { tempDir } from '../../../test/support/temp-dir.js';
import { AggregateStore } from '../../infrastructure/event-store/aggregate-store.js';
import { ExpiredStreams } from '../../infrastructure/event-store/expired-streams.js';
import type { EventStore } from '../../infrastructure/event-store/event-store.port.js';
import { SqliteEventStore } from '../../infrastructure/event-store/sqlite-event-store.js';
import { Clock } from '../../infrastructure/nest/clock.js';
import { JTI_KEPT_AFTER_EXPIRY_SECONDS, type OneTimeUse, UsedJtis } from './used-jtis.js';

class ManualClock extends Clock {
  at = 1_700_000_000_000;
  now(): Date {
    return new Date(this.at);
  }
}

const T = 1_700_000_000;

function setup() {
  const events = new SqliteEventStore(join(tempDir('used-jtis-'), 'e.db'));
  const clock = new ManualClock();
  const jtis = new UsedJtis(new AggregateStore(events), clock, events);
  const sweeper = new ExpiredStreams(events, clock);
  const use = (jti: string, expiresAt: number): OneTimeUse => ({ tenantId: 'acme', kind: 'client_assertion', issuer: 'app', jti, expiresAt, clientId: 'app', actor: 'client:app', origin: { correlationId: 'r' } });
  const streamsOf = async () => [...new Set((await events.readAll()).map((e) => e.streamId))];
  return { events, clock, jtis, sweeper, use, streamsOf };
}

describe('UsedJtis: the streams of used jtis expire', () => {
  it('deletes a jti stream once its JWT has expired plus the allowed skew; keeps one not yet expired, whose replay is still refused', async () => {
    const { events, clock, jtis, sweeper, use, streamsOf } = setup();
    try {
      expect(await jtis.use(use('short', T + 60))).toBe(true);
      expect(await jtis.use(use('long', T + 600))).toBe(true);
      expect(await streamsOf()).toHaveLength(2);

      // Within the skew a check allows past `exp`, the short one may still be presented: kept.
      clock.at = (T + 60 + 30) * 1000;
      await sweeper.tick();
      expect(await streamsOf()).toHaveLength(2);
      expect(await jtis.use(use('short', T + 60))).toBe(false);

      clock.at = (T + 60 + JTI_KEPT_AFTER_EXPIRY_SECONDS) * 1000;
      expect(await sweeper.tick()).toBe(1);
      const left = await streamsOf();
      expect(left).toHaveLength(1);
      expect(left[0]).toMatch(/^jti-acme\.client_assertion\./);
      expect(await jtis.use(use('long', T + 600))).toBe(false);

      clock.at = (T + 600 + JTI_KEPT_AFTER_EXPIRY_SECONDS) * 1000;
      expect(await sweeper.tick()).toBe(1);
      expect(await streamsOf()).toEqual([]);
    } finally {
      await events.close();
    }
  });

  it('does not move the expiry on a replay', async () => {
    const { events, clock, jtis, sweeper, use } = setup();
    try {
      expect(await jtis.use(use('once', T + 60))).toBe(true);
      expect(await jtis.use(use('once', T + 6000))).toBe(false);
      clock.at = (T + 60 + JTI_KEPT_AFTER_EXPIRY_SECONDS) * 1000;
      expect(await sweeper.tick()).toBe(1);
      expect(await events.readAll()).toEqual([]);
    } finally {
      await events.close();
    }
  });
});

describe('UsedJtis.useWith: the jti used up with the facts of the request', () => {
  const recorded = { streamId: 'clienttokens-acme.app', events: [{ type: 'AccessTokenIssued', data: { jti: 'token' } }] };

  it.each([
    ['in one atomic append (the embedded store)', false],
    ['claim first, then the record, on a store without atomic appends to several streams (EventStoreDB)', true],
  ])('%s: the record once, and nothing of it on a replay', async (_, twoStep) => {
    const { events, use, streamsOf } = setup();
    // The calls UsedJtis makes, without appendTogether.
    const alone = jest.fn((...a: Parameters<EventStore['append']>) => events.append(...a));
    const store: EventStore = twoStep ? ({ exclusive: true, append: alone, expireStream: (...a) => events.expireStream(...a) } as Partial<EventStore> as EventStore) : events;
    const jtis = new UsedJtis(new AggregateStore(store), new ManualClock(), store);
    const together = jest.spyOn(events, 'appendTogether');
    try {
      expect(await jtis.useWith(use('once', T + 60), recorded)).toEqual(expect.any(Number));
      expect(await jtis.useWith(use('once', T + 60), recorded)).toBeUndefined();
      expect((await events.readStream(recorded.streamId)).map((e) => e.type)).toEqual(['AccessTokenIssued']);
      expect(await streamsOf()).toHaveLength(2);
      // Atomic: one call for the first use, one for the replay (refused whole). Two steps: the
      // claim, the record, and the replay's claim (refused).
      if (twoStep) expect(alone.mock.calls.map(([stream]) => stream.split('.')[0])).toEqual(['jti-acme', 'clienttokens-acme', 'jti-acme']);
      else expect(together).toHaveBeenCalledTimes(2);
    } finally {
      await events.close();
    }
  });
});
