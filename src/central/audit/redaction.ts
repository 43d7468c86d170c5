/**
 * What the audit routes withhold from the events they return. The log keeps no secret in usable
 * form (rule 3), but a few values are kept for the server's own checks and are worth nothing to
 * an auditor while being worth something to an attacker: a password's scrypt hash (a target for
 * offline guessing), a signing key's sealed private half (one leaked key-encryption key from
 * being a signing key), a webhook's sealed secret (likewise), and a client secret's digest (with a client_secret_jwt client's sealed secret). Their presence is shown, not their value.
 * Hashes of codes, refresh tokens and cookies stay: they are digests of 256-bit random values,
 * and they let an auditor follow a token through its rotations.
 */
export const WITHHELD = '[withheld]';

const WITHHELD_FIELDS = new Set(['passwordHash', 'encryptedPrivateKey', 'sealedSecret', /* Shared Signals push */ 'authorizationSealed', /* MFA */ 'sealedTotpSecret']);

/** `data` with the fields above replaced by WITHHELD, wherever they are; the input is not changed. */
export function redacted(data: unknown): unknown {
  if (Array.isArray(data)) return data.map(redacted);
  if (typeof data !== 'object' || data === null) return data;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(data)) {
    if (WITHHELD_FIELDS.has(k)) out[k] = WITHHELD;
    // A secret digest says how it is kept (the scheme), not what it is.
    else if (k === 'secretDigest' && typeof v === 'object' && v !== null) out[k] = { ...(v as object), hash: WITHHELD, ...('sealed' in v ? { sealed: WITHHELD } : {}) };
    else out[k] = redacted(v);
  }
  return out;
}
