import { createHmac, randomBytes } from 'node:crypto';

/** RFC 6238 §4.1: the default time step, in seconds. */
export const TOTP_STEP = 30;
export const TOTP_DIGITS = 6;
/** Steps either side of the current one a code may come from (RFC 6238 §5.2: clock drift, typing time). */
export const TOTP_WINDOW = 1;

export type TotpAlgorithm = 'sha1' | 'sha256' | 'sha512';

/**
 * RFC 4226 §5.3 (HOTP): the HMAC of the 8-byte big-endian counter, dynamically truncated to
 * 31 bits and reduced to `digits` decimal digits. The MAC is OpenSSL's (node:crypto).
 */
export function hotp(secret: Buffer, counter: number, digits = TOTP_DIGITS, algorithm: TotpAlgorithm = 'sha1'): string {
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac(algorithm, secret).update(message).digest();
  const offset = mac[mac.length - 1] & 0x0f;
  const binary = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 10 ** digits).padStart(digits, '0');
}

/** RFC 6238 §4.2: the step a time (in seconds since the epoch) falls in. */
export const totpStep = (seconds: number, step = TOTP_STEP) => Math.floor(seconds / step);

/** RFC 6238 §4.2: the code of the step `seconds` falls in. */
export function totp(secret: Buffer, seconds: number, digits = TOTP_DIGITS, algorithm: TotpAlgorithm = 'sha1'): string {
  return hotp(secret, totpStep(seconds), digits, algorithm);
}

/**
 * The step, within the window around `seconds`, whose code `code` is; undefined when none.
 * Every step of the window is computed whatever matches, so the time says nothing of which.
 */
export function matchingStep(secret: Buffer, code: string, seconds: number): number | undefined {
  if (!/^\d{6}$/.test(code)) return undefined;
  const current = totpStep(seconds);
  let found: number | undefined;
  for (let step = current - TOTP_WINDOW; step <= current + TOTP_WINDOW; step++) {
    if (hotp(secret, step) === code && found === undefined) found = step;
  }
  return found;
}

/** A new 160-bit secret (RFC 4226 §4 R6: at least 128, 160 recommended). */
export const newTotpSecret = () => randomBytes(20);

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 §6 base32 without padding, as authenticator apps read `secret=`. */
export function base32(bytes: Buffer): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

/** The key URI authenticator apps read from the QR code (`otpauth://totp/<issuer>:<account>?...`). */
export function otpauthUri(secret: Buffer, issuer: string, account: string): string {
  const label = `${encodeURIComponent(issuer)}:${encodeURIComponent(account)}`;
  const query = new URLSearchParams({ secret: base32(secret), issuer, algorithm: 'SHA1', digits: String(TOTP_DIGITS), period: String(TOTP_STEP) });
  return `otpauth://totp/${label}?${query.toString()}`;
}
