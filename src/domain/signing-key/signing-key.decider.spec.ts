import { givenFor } from '../shared/decider-spec.js';
import type { SigningKeyEvent, SigningKeyGenerated } from './signing-key.events.js';
import { keyStatuses, RETIRE_AFTER_SECONDS, signingKeyDecider } from './signing-key.decider.js';

const key = (kid: string, alg: 'ES256' | 'RS256', createdAt: number, activatesAt?: number): SigningKeyGenerated => ({
  type: 'SigningKeyGenerated',
  data: { tenantId: 't', kid, alg, publicJwk: {}, encryptedPrivateKey: 'sealed', createdAt: new Date(createdAt * 1000).toISOString(), ...(activatesAt !== undefined ? { activatesAt } : {}) },
});

const given = givenFor(signingKeyDecider);

describe('signing key lifecycle', () => {
  const { state } = given([key('a', 'ES256', 1000), key('r', 'RS256', 1000), key('b', 'ES256', 5000, 5900)]);
  const at = (now: number) => Object.fromEntries(keyStatuses(state, now).map((k) => [k.kid, k.status]));

  it('announces, activates at its time, retires the replaced key once its tokens have expired', () => {
    expect(at(5000)).toEqual({ a: 'current', r: 'current', b: 'announced' });
    expect(at(5900)).toEqual({ a: 'retiring', r: 'current', b: 'current' });
    expect(at(5900 + RETIRE_AFTER_SECONDS - 1)).toMatchObject({ a: 'retiring' });
    expect(at(5900 + RETIRE_AFTER_SECONDS)).toMatchObject({ a: 'retired', b: 'current' });
  });

  it('records each step once, when due', () => {
    const when = (now: number, events: SigningKeyEvent[] = [key('a', 'ES256', 1000), key('r', 'RS256', 1000), key('b', 'ES256', 5000, 5900)]) =>
      given(events).when({ kind: 'RecordKeySteps', tenantId: 't', now });
    expect(when(5000)).toEqual([]);
    const activated = when(6000);
    expect(activated).toEqual([{ type: 'SigningKeyActivated', data: { tenantId: 't', kid: 'b', alg: 'ES256', at: 5900, replaced: 'a' } }]);
    const base: SigningKeyEvent[] = [key('a', 'ES256', 1000), key('r', 'RS256', 1000), key('b', 'ES256', 5000, 5900)];
    expect(when(6000, [...base, ...activated])).toEqual([]);
    const later = when(5900 + RETIRE_AFTER_SECONDS, [...base, ...activated]);
    expect(later).toEqual([{ type: 'SigningKeyRetired', data: { tenantId: 't', kid: 'a', alg: 'ES256', at: 5900 + RETIRE_AFTER_SECONDS } }]);
    expect(when(5900 + RETIRE_AFTER_SECONDS + 10, [...base, ...activated, ...later])).toEqual([]);
  });
});
