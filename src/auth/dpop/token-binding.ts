import type { FastifyRequest } from 'fastify';
import type { TenantView } from '../../../projections/tenants.projection.js';
import type { RequestOrigin } from '../../infrastructure/event-store/event-store.port.js';
import { allowedAlgs, profileOf } from '../../domain/security-profile/rules.js';
import { DpopChallenge } from '../oauth-errors.js';
import { DPOP_ALGS, type DpopProofs } from './dpop-proofs.js';

/** RFC 6750 §2.1 and RFC 9449 §7.1: `Bearer` or `DPoP`, 1*SP, token68 (trailing spaces dropped before). */
const CREDENTIALS = /^(Bearer|DPoP) +([A-Za-z0-9\-._~+/]+=*)$/i;

/** An access token as a resource request presents it, and by which scheme. */
export interface PresentedToken {
  scheme: 'Bearer' | 'DPoP';
  token: string;
}

/** The access token of an Authorization header; undefined when it holds none in either scheme. */
export function presentedToken(header: string | undefined): PresentedToken | undefined {
  const m = header ? CREDENTIALS.exec(header.trim()) : null;
  if (!m) return undefined;
  return { scheme: m[1].toLowerCase() === 'dpop' ? 'DPoP' : 'Bearer', token: m[2] };
}

/** The refusal of a resource request with the DPoP challenge (`algs`), RFC 9449 §7.1. */
export const dpopRefusal = (code: 'invalid_token' | 'invalid_dpop_proof', description: string) => new DpopChallenge(code, description, DPOP_ALGS);

/**
 * RFC 9449 §7: a resource request with a valid token `jkt` (its `cnf.jkt`, or none) is let
 * through only as the token's binding says. A bound token comes with the DPoP scheme (§7.2: not
 * as Bearer) and a proof of its key for this request, naming it by `ath`; a token that is not
 * bound is refused under the DPoP scheme (the client meant it to be bound).
 */
export async function requireBinding(dpop: DpopProofs, req: FastifyRequest, tenant: TenantView, presented: PresentedToken, jkt: string | undefined, origin: RequestOrigin): Promise<void> {
  if (jkt === undefined) {
    if (presented.scheme === 'DPoP') throw dpopRefusal('invalid_token', 'the access token is not DPoP-bound');
    return;
  }
  if (presented.scheme !== 'DPoP') throw dpopRefusal('invalid_token', 'a DPoP-bound access token is sent with the DPoP scheme and a proof');
  const proof = await dpop.check(req, { tenantId: tenant.tenantId, at: 'resource', accessToken: presented.token, nonceRequired: tenant.dpopNonceRequired === true, origin, algs: allowedAlgs(profileOf(tenant), DPOP_ALGS) });
  if (!proof) throw dpopRefusal('invalid_dpop_proof', 'a DPoP proof is required with a DPoP-bound access token');
  if (proof.jkt !== jkt) throw dpopRefusal('invalid_dpop_proof', 'the DPoP proof is signed by another key than the token is bound to');
}
