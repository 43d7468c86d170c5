import type { CheckedRequest } from '../../auth/authorize/checks/index.js';
import type { OneTimeUse, UsedJtis } from '../../auth/one-time/used-jtis.js';
import { KeyEncryption } from '../../infrastructure/crypto/key-encryption.js';
import { Clock } from '../../infrastructure/nest/clock.js';
import { AUTH_SESSION_TTL_SECONDS, AuthSessions } from './auth-sessions.js';

class FixedClock extends Clock {
  at = 1_700_000_000_000;
  now(): Date {
    return new Date(this.at);
  }
}

/** UsedJtis as the log answers it: the first use of an id is fresh, any later one is not. */
class SeenIds {
  readonly uses: OneTimeUse[] = [];
  use(u: OneTimeUse): Promise<boolean> {
    const fresh = !this.uses.some((x) => x.kind === u.kind && x.issuer === u.issuer && x.jti === u.jti);
    this.uses.push(u);
    return Promise.resolve(fresh);
  }
}

const request = { tenantId: 'acme', clientId: 'app', scope: ['openid'], codeChallenge: 'c'.repeat(43), codeChallengeMethod: 'S256', prompt: [] } as unknown as CheckedRequest;
const origin = { correlationId: 'req-1' };

function setup() {
  const clock = new FixedClock();
  const used = new SeenIds();
  const sessions = new AuthSessions(KeyEncryption.load(Buffer.alloc(32, 7).toString('base64'), '.'), used as unknown as UsedJtis, clock);
  return { clock, used, sessions };
}

describe('AuthSessions', () => {
  it('seals the state: opaque to the app, opened only at its tenant, refused once altered', () => {
    const { sessions } = setup();
    const value = sessions.issue({ tenantId: 'acme', clientId: 'app', request, step: { kind: 'password' }, wrong: 0 });
    expect(value).not.toContain('app');
    expect(Buffer.from(value, 'base64url').toString('latin1')).not.toContain('openid');
    expect(sessions.open('acme', value)).toMatchObject({ clientId: 'app', step: { kind: 'password' }, request: { scope: ['openid'] } });
    expect(sessions.open('other', value)).toBeUndefined();
    const parts = value.split('.');
    parts[3] = `${parts[3].slice(0, -2)}${parts[3].endsWith('AA') ? 'BB' : 'AA'}`;
    expect(sessions.open('acme', parts.join('.'))).toBeUndefined();
    expect(sessions.open('acme', 'not a sealed value')).toBeUndefined();
  });

  it(`expires after ${AUTH_SESSION_TTL_SECONDS} seconds`, () => {
    const { clock, sessions } = setup();
    const value = sessions.issue({ tenantId: 'acme', clientId: 'app', request, step: { kind: 'password' }, wrong: 0 });
    clock.at += (AUTH_SESSION_TTL_SECONDS - 1) * 1000;
    expect(sessions.open('acme', value)).toBeDefined();
    clock.at += 1000;
    expect(sessions.open('acme', value)).toBeUndefined();
  });

  it('is spent by its first use; the log is given only its id, never the value', async () => {
    const { used, sessions } = setup();
    const value = sessions.issue({ tenantId: 'acme', clientId: 'app', request, step: { kind: 'password' }, wrong: 0 });
    const state = sessions.open('acme', value)!;
    expect(await sessions.spend(state, origin)).toBe(true);
    expect(await sessions.spend(sessions.open('acme', value)!, origin)).toBe(false);
    expect(used.uses[0]).toMatchObject({ tenantId: 'acme', kind: 'auth_session', issuer: 'app', clientId: 'app' });
    expect(JSON.stringify(used.uses)).not.toContain(value);
    // Each step's auth_session has an id of its own.
    const next = sessions.open('acme', sessions.issue({ tenantId: 'acme', clientId: 'app', request, step: { kind: 'password' }, wrong: 1 }))!;
    expect(await sessions.spend(next, origin)).toBe(true);
  });
});
