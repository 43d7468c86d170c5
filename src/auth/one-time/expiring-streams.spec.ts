import { join } from 'node:path';
import { tempDir } from '../../../test/support/temp-dir.js';
import type { PushedRequestContent } from '../../domain/pushed-request/pushed-request.events.js';
import { KeyEncryption } from '../../infrastructure/crypto/key-encryption.js';
import { AggregateStore } from '../../infrastructure/event-store/aggregate-store.js';
import { ExpiredStreams } from '../../infrastructure/event-store/expired-streams.js';
import { SqliteEventStore } from '../../infrastructure/event-store/sqlite-event-store.js';
import { Clock } from '../../infrastructure/nest/clock.js';
import { DEVICE_AUTHORIZATION_KEPT_AFTER_EXPIRY_SECONDS, DEVICE_CODE_TTL_SECONDS, DeviceAuthorizations } from '../device/device-authorizations.js';
import { InvalidRequestUri } from '../oauth-errors.js';
import { PUSHED_REQUEST_KEPT_AFTER_EXPIRY_SECONDS, PUSHED_REQUEST_TTL_SECONDS, PushedRequests } from '../par/pushed-requests.js';

class ManualClock extends Clock {
  at = 1_700_000_000_000;
  now(): Date {
    return new Date(this.at);
  }
}

const origin = { correlationId: 'r' };
const request = { redirectUri: 'https://app.example/cb', responseMode: 'query', scope: ['openid'], codeChallenge: 'c'.repeat(43), codeChallengeMethod: 'S256', prompt: [] } as PushedRequestContent;

function setup() {
  const events = new SqliteEventStore(join(tempDir('expiring-'), 'e.db'));
  const clock = new ManualClock();
  const aggregates = new AggregateStore(events);
  return { events, clock, aggregates, sweeper: new ExpiredStreams(events, clock) };
}

describe('single-use streams of pushed requests and device authorizations expire', () => {
  it('a pushed request is kept until after its expiry, then swept', async () => {
    const { events, clock, aggregates, sweeper } = setup();
    try {
      const pushed = new PushedRequests(aggregates, clock, events);
      const spent = await pushed.push('acme', 'app', request, origin);
      const left = await pushed.push('acme', 'app', request, origin);
      await pushed.take('acme', 'app', spent.requestUri, origin);
      const expiry = clock.at + (PUSHED_REQUEST_TTL_SECONDS + PUSHED_REQUEST_KEPT_AFTER_EXPIRY_SECONDS) * 1000;
      clock.at = expiry - 1000;
      expect(await sweeper.tick()).toBe(0);
      expect(await events.readAll()).toHaveLength(3);
      clock.at = expiry;
      expect(await sweeper.tick()).toBe(2);
      expect(await events.readAll()).toEqual([]);
      await expect(new PushedRequests(new AggregateStore(events), clock, events).take('acme', 'app', left.requestUri, origin)).rejects.toBeInstanceOf(InvalidRequestUri);
    } finally {
      await events.close();
    }
  });

  it('a device authorization is kept an hour after its expiry (a late poll is told expired_token), then swept', async () => {
    const { events, clock, aggregates, sweeper } = setup();
    try {
      const keys = KeyEncryption.load(Buffer.alloc(32, 3).toString('base64'), '.');
      const devices = new DeviceAuthorizations(aggregates, clock, keys, events);
      const { deviceCode } = await devices.request('acme', 'tv', ['openid'], origin);
      const expiry = clock.at + (DEVICE_CODE_TTL_SECONDS + DEVICE_AUTHORIZATION_KEPT_AFTER_EXPIRY_SECONDS) * 1000;
      clock.at = expiry - 1000;
      expect(await sweeper.tick()).toBe(0);
      expect(await devices.byDeviceCode('acme', deviceCode)).toBeDefined();
      clock.at = expiry;
      expect(await sweeper.tick()).toBe(1);
      expect(await events.readAll()).toEqual([]);
      expect(await new DeviceAuthorizations(new AggregateStore(events), clock, keys, events).byDeviceCode('acme', deviceCode)).toBeUndefined();
    } finally {
      await events.close();
    }
  });
});
