import { Inject, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { EmbeddedJWK, type JWTHeaderParameters, type JWTPayload, jwtVerify } from 'jose';
import { createHash } from 'node:crypto';
import { CONFIG, type Config } from '../../config.js';
import { PRIVATE_MEMBERS } from '../../domain/client/client-jwks.js';
import { thumbprint, type Jwk } from '../../infrastructure/crypto/jws.js';
import { KeyEncryption } from '../../infrastructure/crypto/key-encryption.js';
import type { RequestOrigin } from '../../infrastructure/event-store/event-store.port.js';
import { Clock } from '../../infrastructure/nest/clock.js';
import { headerLines } from '../form-request.js';
import { DpopChallenge, InvalidDpopProof, type OAuthError, UseDpopNonce } from '../oauth-errors.js';
import { UsedJtis } from '../one-time/used-jtis.js';
import { setBounded } from '../../shared/bounded-map.js';
import { DpopNonces } from './dpop-nonces.js';

/** The algs a DPoP proof may be signed with (asymmetric only, RFC 9449 §4.2; `Ed25519` is RFC 9864's name for EdDSA over Ed25519); discovery's `dpop_signing_alg_values_supported`. */
export const DPOP_ALGS = ['ES256', 'PS256', 'RS256', 'EdDSA', 'Ed25519'] as const;

/** How old a proof's `iat` may be, and how far ahead (clock skew), in seconds (RFC 9449 §4.3 item 11). */
const IAT_PAST = 60;
const IAT_FUTURE = 10;
const MAX_PROOF_LENGTH = 8192;
/** Proof keys kept imported (see `proofKey`). */
const PROOF_KEYS_LIMIT = 10_000;

type ProofKey = Awaited<ReturnType<typeof EmbeddedJWK>>;

/** Where a proof is checked: the token endpoint (errors 400, RFC 9449 §5) or a resource (401 with the DPoP challenge, §7.1). */
export interface ProofContext {
  tenantId: string;
  at: 'token' | 'resource';
  /** The access token the proof must be bound to by `ath` (resources). */
  accessToken?: string;
  /** The tenant asks for server nonces (§8, §9). */
  nonceRequired: boolean;
  /** The algs the tenant's security profile allows; absent: DPOP_ALGS. */
  algs?: readonly string[];
  origin: RequestOrigin;
}

/** A proof that passed: the thumbprint of its key (RFC 7638), which tokens are bound to (`cnf.jkt`). */
export interface Proof {
  jkt: string;
}

/**
 * Checks the DPoP proof of a request (RFC 9449 §4.3): one `DPoP` header, a JWT of
 * `typ: dpop+jwt` signed with an allowed alg by the public key in its `jwk` header; `htm` and
 * `htu` this request's method and URL (without query and fragment); `iat` recent by the
 * injected clock; `ath` the hash of the access token at a resource; the server's nonce when
 * the tenant asks for one; and a `jti` this key never used before (UsedJtis, every server).
 */
@Injectable()
export class DpopProofs {
  readonly nonces: DpopNonces;
  /** Imported proof keys by alg and exact `jwk` header: a client proves with one key request after request. */
  private readonly proofKeys = new Map<string, ProofKey>();

  constructor(
    @Inject(CONFIG) private readonly config: Config,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(UsedJtis) private readonly jtis: UsedJtis,
    @Inject(KeyEncryption) keys: KeyEncryption,
  ) {
    this.nonces = new DpopNonces(keys);
  }

  /** The proof of `req`, checked; undefined when the request carries none. */
  async check(req: FastifyRequest, c: ProofContext): Promise<Proof | undefined> {
    const header = req.headers.dpop;
    if (header === undefined) return undefined;
    const algs = c.algs ?? DPOP_ALGS;
    const fail = (d: string): OAuthError => (c.at === 'token' ? new InvalidDpopProof(d) : new DpopChallenge('invalid_dpop_proof', d, algs));
    // §4.3 item 1: exactly one DPoP header.
    if (typeof header !== 'string' || headerLines(req.raw, 'dpop') > 1) throw fail('send a single DPoP header');
    if (header.length > MAX_PROOF_LENGTH) throw fail('the DPoP proof is too long');
    let payload: JWTPayload;
    let jwk: Jwk;
    try {
      const verified = await jwtVerify(header, async (h, token) => {
        // §4.3 item 6: the key is public; a proof that carries private members is refused before use.
        const embedded = h.jwk as Record<string, unknown> | undefined;
        if (embedded && PRIVATE_MEMBERS.some((m) => m in embedded)) throw new Error('private key in jwk');
        return this.proofKey(h, token);
      }, { typ: 'dpop+jwt', algorithms: [...algs], requiredClaims: ['jti', 'htm', 'htu', 'iat'] });
      payload = verified.payload;
      jwk = verified.protectedHeader.jwk as Jwk;
    } catch {
      throw fail('the DPoP proof is invalid');
    }
    const now = this.clock.seconds();
    const iat = payload.iat!;
    if (iat < now - IAT_PAST || iat > now + IAT_FUTURE) throw fail('the DPoP proof is not recent (iat)');
    // §4.3 items 8, 9: htm and htu are this request's; htu compared without query and fragment.
    if (payload.htm !== req.method) throw fail('the DPoP proof is for another method (htm)');
    if (!this.sameUrl(payload.htu, req.url)) throw fail('the DPoP proof is for another URL (htu)');
    if (typeof payload.jti !== 'string' || payload.jti.length === 0 || payload.jti.length > 256) throw fail('the DPoP proof needs a jti');
    // §4.3 item 12, §7: at a resource, the proof names the access token it goes with.
    if (c.accessToken !== undefined && payload.ath !== createHash('sha256').update(c.accessToken).digest('base64url')) throw fail('the DPoP proof does not match the access token (ath)');
    if (c.nonceRequired && !this.nonces.valid(c.tenantId, payload.nonce, now)) throw new UseDpopNonce(this.nonces.current(c.tenantId, now), c.at === 'token' ? 400 : 401, DPOP_ALGS);
    const jkt = thumbprint(jwk);
    // §11.1: a proof is used once; the jti is remembered for as long as its iat is accepted.
    const fresh = await this.jtis.use({ tenantId: c.tenantId, kind: 'dpop_proof', issuer: jkt, jti: payload.jti, expiresAt: iat + IAT_PAST, jkt, actor: 'anonymous', origin: c.origin });
    if (!fresh) throw fail('the DPoP proof was used before');
    return { jkt };
  }

  /**
   * The proof's `jwk` as jose imports it, imported once per alg and `jwk` header: the same
   * header text gives the same key, so only the first proof with it pays for the import. (A
   * compact JWS has no unprotected header that could name another `jwk`.)
   */
  private async proofKey(header: JWTHeaderParameters, token: Parameters<typeof EmbeddedJWK>[1]): Promise<ProofKey> {
    const id = header.jwk !== null && typeof header.jwk === 'object' && token?.header === undefined ? `${header.alg} ${JSON.stringify(header.jwk)}` : undefined;
    const known = id === undefined ? undefined : this.proofKeys.get(id);
    if (known) return known;
    const key = await EmbeddedJWK(header, token);
    if (id !== undefined) setBounded(this.proofKeys, id, key, PROOF_KEYS_LIMIT);
    return key;
  }

  private sameUrl(htu: unknown, path: string): boolean {
    if (typeof htu !== 'string' || !URL.canParse(htu)) return false;
    const claimed = new URL(htu);
    const expected = new URL(`${this.config.publicUrl}${path.split('?')[0]}`);
    return claimed.origin === expected.origin && claimed.pathname === expected.pathname;
  }
}
