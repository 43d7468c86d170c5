import { Inject, Injectable } from '@nestjs/common';
import { constantTimeEqual, randomToken } from '../../infrastructure/crypto/hashing.js';
import { KeyEncryption } from '../../infrastructure/crypto/key-encryption.js';
import { BrowserSessions } from '../../auth/sessions/browser-session.js';

export const DEVICE_COOKIE = 'device';
const LIFETIME_SECONDS = 365 * 24 * 3600;
const NONCE = /^[A-Za-z0-9_-]{22}$/;

/**
 * A browser's proof that it has signed in as a username before (OWASP: device cookies against
 * online guessing): `<nonce>.<keyed MAC of tenant, username and nonce>`, nothing stored. The
 * sign-in page counts the failures of such a browser apart from everyone else's, so guessing a
 * username's password from elsewhere does not keep its own user waiting.
 */
@Injectable()
export class DeviceCookies {
  constructor(
    @Inject(KeyEncryption) private readonly keys: KeyEncryption,
    @Inject(BrowserSessions) private readonly browser: BrowserSessions,
  ) {}

  /** The nonce of the request's device cookie when it was issued for `username` here, else undefined. */
  recognise(tenantId: string, username: string, cookieHeader: string | undefined): string | undefined {
    const [nonce, mac] = (this.browser.read(tenantId, cookieHeader)[DEVICE_COOKIE] ?? '').split('.');
    return nonce && mac && NONCE.test(nonce) && constantTimeEqual(mac, this.mac(tenantId, username, nonce)) ? nonce : undefined;
  }

  /** A new device cookie for `username`, to set once it has signed in. */
  issue(tenantId: string, username: string): string {
    const nonce = randomToken(16);
    return this.browser.cookie(tenantId, DEVICE_COOKIE, `${nonce}.${this.mac(tenantId, username, nonce)}`, LIFETIME_SECONDS);
  }

  private mac(tenantId: string, username: string, nonce: string): string {
    return this.keys.keyedHash('device cookie', `${tenantId}\n${username.toLowerCase()}\n${nonce}`).slice('hmac-sha256:'.length);
  }
}
