import { join } from 'node:path';
import { type Config, signInSettings } from '../../config.js';
import { SqliteAttemptCounters } from '../../infrastructure/attempt-counters/sqlite-attempt-counters.js';
import { KeyEncryption } from '../../infrastructure/crypto/key-encryption.js';
import { tempDir } from '../../../test/support/temp-dir.js';
import { addressBlock, type SignInSubject, SignInLimits } from './sign-in-limits.js';

const T0 = 1_700_000_000_000;
let counters: SqliteAttemptCounters;
let file: string;

function limits(env: NodeJS.ProcessEnv = {}, store = counters): SignInLimits {
  const config = { signIn: signInSettings({ SIGNIN_ADDRESS_FAILURES: '10', SIGNIN_TENANT_FAILURES: '20', SIGNIN_WINDOW: '60', ...env }) } as Config;
  return new SignInLimits(store, KeyEncryption.load(Buffer.alloc(32, 7).toString('base64'), '.'), config);
}

/** One attempt at `now` with a right or wrong password: the wait and the limit, or 0 when it ran. */
async function attempt(l: SignInLimits, who: Partial<SignInSubject>, now: number, ok = false): Promise<number | string> {
  const r = await l.attempt({ tenantId: 'acme', username: 'alice', ...who }, () => now, async () => ({ ok }));
  return 'wait' in r ? `${r.limit} ${r.wait}` : 0;
}

beforeEach(() => {
  file = join(tempDir('limits-'), 'authserver.db');
  counters = new SqliteAttemptCounters(file);
});
afterEach(async () => {
  await counters.close();
});

describe('sign-in limits per username', () => {
  it('lets a username fail a few times, then makes each next attempt wait twice as long', async () => {
    const l = limits();
    for (let i = 0; i < 5; i++) expect(await attempt(l, {}, T0)).toBe(0);
    expect(await attempt(l, {}, T0, true)).toBe('username 1000');
    expect(await attempt(l, {}, T0 + 999)).toBe('username 1');
    expect(await attempt(l, {}, T0 + 1000)).toBe(0);
    expect(await attempt(l, {}, T0 + 1000)).toBe('username 2000');
    expect(await attempt(l, {}, T0 + 3000)).toBe(0);
    expect(await attempt(l, {}, T0 + 3000)).toBe('username 4000');
    // Other usernames (whatever their case) are not held up; the same username in another case is.
    expect(await attempt(l, { username: 'bob' }, T0 + 3000)).toBe(0);
    expect(await attempt(l, { username: 'ALICE' }, T0 + 3000)).toBe('username 4000');
  });

  it('never makes a username wait more than 15 minutes, and forgets a count left alone for a day', async () => {
    const l = limits({ SIGNIN_TENANT_FAILURES: '1000', SIGNIN_ADDRESS_FAILURES: '1000' });
    let now = T0;
    for (let i = 0; i < 20; i++) {
      const r = await attempt(l, {}, now);
      if (r !== 0) {
        now += Number(String(r).split(' ')[1]);
        expect(await attempt(l, {}, now)).toBe(0);
      }
    }
    expect(await attempt(l, {}, now)).toBe(`username ${15 * 60_000}`);
    expect(await attempt(l, {}, now + 24 * 3600_000)).toBe(0);
  });

  it('keeps the count across a restart (a new store over the same file)', async () => {
    for (let i = 0; i < 5; i++) await attempt(limits(), {}, T0);
    await counters.close();
    counters = new SqliteAttemptCounters(file);
    expect(await attempt(limits(), {}, T0, true)).toBe('username 1000');
  });

  it('clears the count on a success', async () => {
    const l = limits();
    for (let i = 0; i < 4; i++) await attempt(l, {}, T0);
    expect(await attempt(l, {}, T0, true)).toBe(0);
    for (let i = 0; i < 5; i++) expect(await attempt(l, {}, T0)).toBe(0);
  });

  it('lets parallel attempts take turns: parallel guesses stop at the allowance, parallel right passwords all pass', async () => {
    const l = limits();
    const guesses = await Promise.all(Array.from({ length: 8 }, () => attempt(l, {}, T0)));
    expect(guesses.filter((w) => w === 0)).toHaveLength(5);
    const rights = await Promise.all(Array.from({ length: 16 }, () => attempt(l, { username: 'bob' }, T0, true)));
    expect(rights.every((w) => w === 0)).toBe(true);
  });

  it("counts a browser with a device cookie on its own, until it has failed as often itself", async () => {
    const l = limits();
    for (let i = 0; i < 5; i++) await attempt(l, {}, T0);
    expect(await attempt(l, {}, T0)).toBe('username 1000');
    expect(await attempt(l, { device: 'nonce-1' }, T0, true)).toBe(0);
    for (let i = 0; i < 5; i++) expect(await attempt(l, { device: 'nonce-1' }, T0)).toBe(0);
    // Used up: it now counts as the username does, which is held up.
    expect(await attempt(l, { device: 'nonce-1' }, T0)).toBe('username 1000');
  });
});

describe('sign-in limits per address and per tenant', () => {
  it('holds up an address after its failures in a window, whatever the usernames, until the window ends', async () => {
    const l = limits();
    for (let i = 0; i < 10; i++) expect(await attempt(l, { username: `u${i}`, address: '203.0.113.5' }, T0 + i)).toBe(0);
    expect(await attempt(l, { username: 'fresh', address: '203.0.113.5' }, T0 + 100)).toBe('address 59900');
    // Another address is not held up; a browser with a device cookie for its username is not either.
    expect(await attempt(l, { username: 'fresh', address: '203.0.113.6' }, T0 + 100)).toBe(0);
    expect(await attempt(l, { username: 'fresh', address: '203.0.113.5', device: 'mine' }, T0 + 100, true)).toBe(0);
    expect(await attempt(l, { username: 'fresh', address: '203.0.113.5' }, T0 + 60_000)).toBe(0);
  });

  it('counts an IPv6 address by its /64', async () => {
    expect(addressBlock('2001:db8:0:1::5')).toBe('2001:db8:0:1::/64');
    expect(addressBlock('2001:0db8:0000:0001:ffff:1:2:3')).toBe('2001:db8:0:1::/64');
    expect(addressBlock('::1')).toBe('0:0:0:0::/64');
    expect(addressBlock('203.0.113.5')).toBe('203.0.113.5');
    const l = limits();
    for (let i = 0; i < 10; i++) await attempt(l, { username: `u${i}`, address: `2001:db8:0:1::${i + 1}` }, T0);
    expect(await attempt(l, { username: 'fresh', address: '2001:db8:0:1:abcd::1' }, T0)).toMatch(/^address /);
    expect(await attempt(l, { username: 'fresh', address: '2001:db8:0:2::1' }, T0)).toBe(0);
  });

  it('holds up a tenant sprayed from many addresses, except browsers with a device cookie; other tenants go on', async () => {
    const l = limits();
    for (let i = 0; i < 20; i++) expect(await attempt(l, { username: `u${i}`, address: `198.51.100.${i}` }, T0)).toBe(0);
    expect(await attempt(l, { username: 'alice', address: '198.51.100.200' }, T0 + 1000, true)).toBe('tenant 59000');
    expect(await attempt(l, { username: 'alice', address: '198.51.100.200', device: 'hers' }, T0 + 1000, true)).toBe(0);
    expect(await attempt(l, { tenantId: 'other', username: 'alice', address: '198.51.100.200' }, T0 + 1000, true)).toBe(0);
  });
});
