import { createHmac, timingSafeEqual } from 'node:crypto';
import { KeyEncryption } from '../infrastructure/crypto/key-encryption.js';
import { newWebhookSecret, openWebhookSecret, sealWebhookSecret, webhookHeaders } from './webhook-signature.js';

/**
 * A receiver's check, written from the Standard Webhooks specification ("Verifying webhook
 * authenticity"), not from the server's code: the key is the base64-decoded part of the secret
 * after `whsec_`; the signed content is `${webhook-id}.${webhook-timestamp}.${body}`; the
 * header is a space-delimited list of `version,signature`, any `v1` one of which may match,
 * compared in constant time; a timestamp more than five minutes away is refused.
 */
function verify(secret: string, headers: Record<string, string>, body: string, nowSeconds: number): boolean {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const header = headers['webhook-signature'];
  if (!id || !timestamp || !header || !/^\d+$/.test(timestamp)) return false;
  if (Math.abs(nowSeconds - Number(timestamp)) > 5 * 60) return false;
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest();
  return header.split(' ').some((entry) => {
    const [version, signature] = entry.split(',', 2);
    if (version !== 'v1' || signature === undefined) return false;
    const given = Buffer.from(signature, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

describe('Standard Webhooks signatures', () => {
  it("matches the specification's example", () => {
    // The example of the Standard Webhooks specification and its reference libraries' tests.
    const headers = webhookHeaders(['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'], 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}');
    expect(headers).toEqual({ 'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek', 'webhook-timestamp': '1614265330', 'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=' });
  });

  it('verifies with an independent check, and not once the body, id, timestamp or secret differ', () => {
    const secret = newWebhookSecret();
    const body = JSON.stringify({ specversion: '1.0', type: 'session.revoked', id: 'e1' });
    const now = 1_800_000_000;
    const headers = webhookHeaders([secret], 'msg_1', now, body);
    expect(verify(secret, headers, body, now + 10)).toBe(true);
    expect(verify(secret, headers, `${body} `, now)).toBe(false);
    expect(verify(secret, { ...headers, 'webhook-id': 'msg_2' }, body, now)).toBe(false);
    expect(verify(secret, { ...headers, 'webhook-timestamp': String(now + 1) }, body, now)).toBe(false);
    expect(verify(newWebhookSecret(), headers, body, now)).toBe(false);
    // An old message replayed later is refused by the receiver's tolerance, whatever its signature.
    expect(verify(secret, headers, body, now + 301)).toBe(false);
  });

  it('signs with each of several secrets, space-separated: a receiver holding either verifies', () => {
    const [current, previous] = [newWebhookSecret(), newWebhookSecret()];
    const body = '{"type":"user.disabled"}';
    const now = 1_800_000_000;
    const headers = webhookHeaders([current, previous], 'msg_1', now, body);
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(verify(current, headers, body, now)).toBe(true);
    expect(verify(previous, headers, body, now)).toBe(true);
    expect(verify(newWebhookSecret(), headers, body, now)).toBe(false);
  });

  it('makes secrets of whsec_ and the base64 of 32 random bytes, each different', () => {
    const a = newWebhookSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(a.slice(6), 'base64')).toHaveLength(32);
    expect(newWebhookSecret()).not.toBe(a);
  });

  it('keeps the secret sealed, opening only for its own tenant and subscription', () => {
    const keys = KeyEncryption.load(Buffer.alloc(32, 7).toString('base64'), '.');
    const secret = newWebhookSecret();
    const sealed = sealWebhookSecret(keys, 'acme', 'sub-1', secret);
    expect(sealed).not.toContain(secret.slice(6));
    expect(openWebhookSecret(keys, 'acme', 'sub-1', sealed)).toBe(secret);
    expect(() => openWebhookSecret(keys, 'acme', 'sub-2', sealed)).toThrow();
    expect(() => openWebhookSecret(keys, 'other', 'sub-1', sealed)).toThrow();
    expect(() => openWebhookSecret(KeyEncryption.load(Buffer.alloc(32, 8).toString('base64'), '.'), 'acme', 'sub-1', sealed)).toThrow();
  });
});
