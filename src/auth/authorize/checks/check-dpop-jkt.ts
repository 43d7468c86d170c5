import { InvalidRequest } from '../../oauth-errors.js';
import type { Check } from './check.js';

/** A JWK SHA-256 thumbprint (RFC 7638), base64url without padding. */
const THUMBPRINT = /^[A-Za-z0-9_-]{43}$/;

/**
 * RFC 9449 §10: `dpop_jkt` binds the code to a DPoP key; the token request must then carry a
 * proof of that key (decided when the code is redeemed).
 */
export const checkDpopJkt: Check = (ctx) => {
  const jkt = ctx.params.dpop_jkt;
  if (jkt === undefined) return;
  if (!THUMBPRINT.test(jkt)) throw new InvalidRequest('dpop_jkt must be a base64url JWK SHA-256 thumbprint');
  ctx.request.dpopJkt = jkt;
};
