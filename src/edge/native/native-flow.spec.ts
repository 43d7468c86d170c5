import type { ClientView } from '../../../projections/clients.projection.js';
import type { TenantView } from '../../../projections/tenants.projection.js';
import type { AuthorizeFlow } from '../../auth/authorize/authorize-flow.js';
import type { CheckedRequest } from '../../auth/authorize/checks/index.js';
import type { OneTimeUse, UsedJtis } from '../../auth/one-time/used-jtis.js';
import type { SessionCommands } from '../../auth/sessions/session-commands.js';
import { KeyEncryption } from '../../infrastructure/crypto/key-encryption.js';
import { Clock } from '../../infrastructure/nest/clock.js';
import type { PasswordOutcome, PasswordSignIn } from '../login/password-sign-in.js';
import { AuthSessions } from './auth-sessions.js';
import { type NativeAnswer, NativeFlow } from './native-flow.js';
import { type NativeSecondFactor, NoSecondFactor, type SecondFactorChallenge, type SecondFactorSubject, type SecondFactorVerdict } from './native-second-factor.js';

class FixedClock extends Clock {
  now(): Date {
    return new Date(1_700_000_000_000);
  }
}

/**
 * A fake MFA binding: TOTP, then an e-mailed code when the client asks for both; the right
 * answers are fixed. It records what it was asked.
 */
class FakeFactors implements NativeSecondFactor {
  readonly asked: SecondFactorSubject[] = [];
  constructor(private readonly methods: string[]) {}
  next(s: SecondFactorSubject): Promise<SecondFactorChallenge | null> {
    this.asked.push(s);
    const method = this.methods.find((m) => !s.proven.includes(m));
    if (method === 'totp') return Promise.resolve({ method, hint: 'Authenticator' });
    if (method === 'email') return Promise.resolve({ method, hint: 'a***@example.com', ref: 'mail-42' });
    return Promise.resolve(null);
  }
  verify(_s: SecondFactorSubject, c: SecondFactorChallenge, answer: string): Promise<SecondFactorVerdict> {
    if (answer === 'limited') return Promise.resolve({ kind: 'limited', retryAfterSeconds: 30 });
    const right = (c.method === 'totp' && answer === '123456') || (c.method === 'email' && c.ref === 'mail-42' && answer === '654321');
    return Promise.resolve(right ? { kind: 'proved', amr: [c.method, 'mfa'] } : { kind: 'wrong' });
  }
}

const tenant = { tenantId: 'acme' } as TenantView;
const client = { clientId: 'app', firstParty: true, firstPartyNative: true } as ClientView;
const request = { tenantId: 'acme', clientId: 'app', scope: ['openid'], prompt: [], codeChallenge: 'c'.repeat(43), codeChallengeMethod: 'S256', redirectUri: 'x', responseMode: 'query' } as unknown as CheckedRequest;
const origin = { correlationId: 'req' };

function setup(factors: NativeSecondFactor, outcome: PasswordOutcome = { kind: 'signed-in', user: { userId: 'u1' } as never }) {
  const used = new Set<string>();
  const jtis = { use: (u: OneTimeUse) => Promise.resolve(!used.has(u.jti) && !!used.add(u.jti)) } as unknown as UsedJtis;
  const clock = new FixedClock();
  const sessions = new AuthSessions(KeyEncryption.load(Buffer.alloc(32, 3).toString('base64'), '.'), jtis, clock);
  const issued: string[] = [];
  const flow = {
    checkNative: () => Promise.resolve({ ...request }),
    grantable: (_t: string, _c: ClientView, _u: string, scope: string[]) => Promise.resolve({ scope, consented: true }),
    issueCode: (_t: string, _c: ClientView, _r: CheckedRequest, _s: string, userId: string) => Promise.resolve(`code-for-${userId}-${issued.push(userId)}`),
  } as unknown as AuthorizeFlow;
  const signIn = { check: () => Promise.resolve(outcome), usernameRule: () => Promise.resolve({ name: 'username', required: true }) } as unknown as PasswordSignIn;
  const started: unknown[] = [];
  const commands = { run: (_t: string, _s: string, command: unknown) => Promise.resolve({ events: [] }).finally(() => started.push(command)) } as unknown as SessionCommands;
  const native = new NativeFlow(flow, sessions, signIn, commands, clock, factors);
  const post = (params: Record<string, string>): Promise<NativeAnswer> => native.authorize(tenant, client, params, undefined, origin);
  return { post, issued, started };
}

const start = { client_id: 'app', response_type: 'code', username: 'alice', password: 'right' };

describe('NativeFlow and its NativeSecondFactor port', () => {
  it('answers a code straight after the password with the default binding (nothing more to prove)', async () => {
    const { post } = setup(new NoSecondFactor());
    expect(await post(start)).toEqual({ status: 200, body: { authorization_code: 'code-for-u1-1' } });
  });

  it('asks for a TOTP code after the password, refuses a wrong one with a new auth_session, and issues the code for the right one', async () => {
    const factors = new FakeFactors(['totp']);
    const { post, issued } = setup(factors);
    const asked = await post(start);
    expect(asked).toMatchObject({ status: 403, body: { error: 'insufficient_authorization', challenge_type: 'otp', otp_method: 'totp', hint: 'Authenticator' } });
    expect(factors.asked[0]).toMatchObject({ tenantId: 'acme', clientId: 'app', userId: 'u1', proven: ['pwd'] });
    const missing = await post({ client_id: 'app', auth_session: asked.body.auth_session as string });
    expect(missing).toMatchObject({ status: 403, body: { error: 'insufficient_authorization', otp_method: 'totp' } });
    const wrong = await post({ client_id: 'app', auth_session: missing.body.auth_session as string, otp: '000000' });
    expect(wrong).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(issued).toEqual([]);
    const done = await post({ client_id: 'app', auth_session: wrong.body.auth_session as string, otp: '123456' });
    expect(done).toEqual({ status: 200, body: { authorization_code: 'code-for-u1-1' } });
    await expect(post({ client_id: 'app', auth_session: wrong.body.auth_session as string, otp: '123456' })).rejects.toMatchObject({ code: 'invalid_session' });
  });

  it('chains challenges (TOTP, then an e-mailed code whose reference the auth_session keeps) until the binding is satisfied', async () => {
    const factors = new FakeFactors(['totp', 'email']);
    const { post } = setup(factors);
    const totp = await post(start);
    const email = await post({ client_id: 'app', auth_session: totp.body.auth_session as string, otp: '123456' });
    expect(email).toMatchObject({ status: 403, body: { challenge_type: 'otp', otp_method: 'email', hint: 'a***@example.com' } });
    // The binding's reference is kept for it, never shown.
    expect(JSON.stringify(email.body)).not.toContain('mail-42');
    expect(factors.asked.at(-1)!.proven).toEqual(['pwd', 'totp', 'mfa']);
    const done = await post({ client_id: 'app', auth_session: email.body.auth_session as string, otp: '654321' });
    expect(done.status).toBe(200);
  });

  it('starts the session with what was proven (amr), for the ID token of the code', async () => {
    const { post, started } = setup(new FakeFactors(['totp']));
    const asked = await post(start);
    await post({ client_id: 'app', auth_session: asked.body.auth_session as string, otp: '123456' });
    expect(started).toEqual([expect.objectContaining({ kind: 'StartSession', amr: ['pwd', 'totp', 'mfa'] })]);
  });

  it('answers 429 slow_down when the binding says the sign-in limits hold the user up', async () => {
    const { post } = setup(new FakeFactors(['totp']));
    const asked = await post(start);
    expect(await post({ client_id: 'app', auth_session: asked.body.auth_session as string, otp: 'limited' })).toMatchObject({ status: 429, retryAfter: 30, body: { error: 'slow_down' } });
  });

  it('asks no second factor when the password is wrong, and says so as invalid_grant', async () => {
    const factors = new FakeFactors(['totp']);
    let recorded = 0;
    const { post } = setup(factors, { kind: 'wrong', recordFailure: () => recorded++ });
    const answer = await post(start);
    expect(answer).toMatchObject({ status: 400, body: { error: 'invalid_grant', error_description: 'the username or password is wrong' } });
    expect(factors.asked).toEqual([]);
    // Recorded by the controller once the answer is sent.
    expect(recorded).toBe(0);
    answer.afterAnswer!();
    expect(recorded).toBe(1);
  });
});
