import { jest } from '@jest/globals';
import { join } from 'node:path';
import { tempDir } from '../../../test/support/temp-dir.js';
import { signingKeyDecider } from '../../domain/signing-key/signing-key.decider.js';
import { streams } from '../../domain/shared/stream-names.js';
import { AggregateStore } from '../event-store/aggregate-store.js';
import { SqliteEventStore } from '../event-store/sqlite-event-store.js';
import { Clock } from '../nest/clock.js';
import { generateKeyPairJwk, thumbprint } from './jws.js';
import { KeyEncryption } from './key-encryption.js';
import { KeyRing } from './key-ring.js';

class ManualClock extends Clock {
  ms = 1_800_000_000_000;
  now(): Date {
    return new Date(this.ms);
  }
}

describe('key ring', () => {
  let events: SqliteEventStore;
  let aggregates: AggregateStore;
  const encryption = KeyEncryption.load(Buffer.alloc(32, 7).toString('base64'), '.');
  const clock = new ManualClock();
  beforeEach(() => {
    events = new SqliteEventStore(join(tempDir('keyring-'), 'e.db'));
    aggregates = new AggregateStore(events);
  });
  afterEach(() => events.close());

  it('tells at start-up that the key-encryption key does not open the sealed signing keys', async () => {
    const ring = new KeyRing(aggregates, encryption, clock);
    await ring.checkSealedKeys(['acme']); // nothing sealed yet
    await ring.signingKey('acme', 'ES256');
    await new KeyRing(aggregates, encryption, clock).checkSealedKeys(['empty', 'acme']);
    const another = KeyEncryption.load(Buffer.alloc(32, 8).toString('base64'), '.');
    await expect(new KeyRing(aggregates, another, clock).checkSealedKeys(['empty', 'acme'])).rejects.toThrow(
      /signing keys of tenant acme cannot be opened: sealed value does not open with this key-encryption key/,
    );
  });

  it('reloads the keys for an unknown kid at most once in a while, so made-up kids cost no reload each', async () => {
    const ring = new KeyRing(aggregates, encryption, clock);
    const key = await ring.signingKey('acme', 'ES256');
    const load = jest.spyOn(aggregates, 'load');
    for (let i = 0; i < 20; i++) expect(await ring.find('acme', `made-up-${i}`)).toBeUndefined();
    expect(load).toHaveBeenCalledTimes(1);
    clock.ms += 10_000;
    expect(await ring.find('acme', 'made-up-again')).toBeUndefined();
    expect(load).toHaveBeenCalledTimes(2);
    expect((await ring.find('acme', key.kid))?.kid).toBe(key.kid);
  });

  it('makes one key for concurrent first uses of an algorithm; a new ES256 key signs and verifies with low s only', async () => {
    const ring = new KeyRing(aggregates, encryption, clock);
    const keys = await Promise.all(Array.from({ length: 10 }, () => ring.signingKey('acme', 'RS256')));
    expect(new Set(keys.map((k) => k.kid)).size).toBe(1);
    expect((await events.readStream(streams.signingKeys('acme'))).length).toBe(1);
    expect((await ring.signingKey('acme', 'ES256')).lowS).toBe(true);
    expect(keys[0].lowS).toBe(false);
  });

  it("refuses a sealed private key that is not the half of the published key its kid names", async () => {
    const published = await generateKeyPairJwk('ES256');
    const other = await generateKeyPairJwk('ES256');
    const kid = thumbprint(published.publicJwk);
    const data = {
      tenantId: 'acme',
      kid,
      alg: 'ES256' as const,
      publicJwk: { ...published.publicJwk, kid, alg: 'ES256', use: 'sig' },
      encryptedPrivateKey: encryption.seal('signing-key', JSON.stringify(other.privateJwk), `acme|${kid}`),
      createdAt: clock.now().toISOString(),
    };
    await aggregates.execute(streams.signingKeys('acme'), signingKeyDecider, { kind: 'GenerateSigningKey', key: data, onlyIfNone: true }, { tenantId: 'acme', actor: 'test', now: clock.now() });
    await expect(new KeyRing(aggregates, encryption, clock).jwks('acme')).rejects.toThrow(`signing key ${kid} of tenant acme does not match its published public key`);
  });
});
