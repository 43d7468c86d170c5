import { Inject, Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import type { TenantView } from '../../../projections/tenants.projection.js';
import type { SigningAlg } from '../../domain/tenant/tenant.events.js';
import { decodeJwt, signJwt, signatureValid, type DecodedJwt } from '../../infrastructure/crypto/jws.js';
import { KeyRing } from '../../infrastructure/crypto/key-ring.js';
import { setBounded } from '../../shared/bounded-map.js';
import { Directory } from '../../shared/directory.js';
import { idTokenTtl, type TokenResponse } from '../token/grant.js';

export interface AccessTokenClaims {
  jti: string;
  sub: string;
  clientId: string;
  scope: string[];
  audience: string[];
  issuedAt: number;
  expiresAt: number;
  sessionId?: string;
  authTime?: number;
}

export interface IdTokenClaims {
  sub: string;
  clientId: string;
  nonce?: string;
  authTime: number;
  sessionId: string;
  accessToken?: string;
  issuedAt: number;
  expiresAt: number;
  /** The client's registered `id_token_signed_response_alg`; absent, the tenant's algorithm. */
  alg?: SigningAlg;
}

/** OpenID Connect Core §3.1.3.6: left half of the hash (the alg's hash; SHA-512 for Ed25519) of the ASCII token. */
function halfHash(alg: SigningAlg, value: string): string {
  const digest = createHash(alg === 'EdDSA' ? 'sha512' : 'sha256').update(value).digest();
  return digest.subarray(0, digest.length / 2).toString('base64url');
}

/** Signs access tokens (RFC 9068) and ID tokens with the tenant's current key; verifies its own JWTs. */
const VERIFIED_LIMIT = 20_000;

@Injectable()
export class TokenIssuer {
  private readonly verified = new Map<string, DecodedJwt>();

  constructor(
    @Inject(KeyRing) private readonly keys: KeyRing,
    @Inject(Directory) private readonly directory: Directory,
  ) {}

  async accessToken(tenant: TenantView, c: AccessTokenClaims): Promise<string> {
    const alg = tenant.signingAlg as SigningAlg;
    const key = await this.keys.signingKey(tenant.tenantId, alg);
    return signJwt(
      { alg, kid: key.kid, typ: 'at+jwt' },
      {
        iss: this.directory.issuer(tenant.tenantId),
        sub: c.sub,
        aud: c.audience.length === 1 ? c.audience[0] : c.audience,
        client_id: c.clientId,
        scope: c.scope.join(' '),
        jti: c.jti,
        iat: c.issuedAt,
        exp: c.expiresAt,
        ...(c.sessionId ? { sid: c.sessionId } : {}),
        ...(c.authTime ? { auth_time: c.authTime } : {}),
      },
      key.privateKey,
    );
  }

  async idToken(tenant: TenantView, c: IdTokenClaims): Promise<string> {
    const alg = c.alg ?? (tenant.signingAlg as SigningAlg);
    const key = await this.keys.signingKey(tenant.tenantId, alg);
    return signJwt(
      { alg, kid: key.kid, typ: 'JWT' },
      {
        iss: this.directory.issuer(tenant.tenantId),
        sub: c.sub,
        aud: c.clientId,
        azp: c.clientId,
        iat: c.issuedAt,
        exp: c.expiresAt,
        auth_time: c.authTime,
        sid: c.sessionId,
        ...(c.nonce !== undefined ? { nonce: c.nonce } : {}),
        ...(c.accessToken ? { at_hash: halfHash(alg, c.accessToken) } : {}),
      },
      key.privateKey,
    );
  }

  /**
   * The token response for a user grant: the access token, an ID token when `openid` was
   * granted, and the refresh token when one was issued.
   */
  async userTokenResponse(
    tenant: TenantView,
    c: AccessTokenClaims & { sessionId: string; authTime: number; nonce?: string; refreshToken?: string; idTokenAlg?: SigningAlg },
  ): Promise<TokenResponse> {
    const accessToken = await this.accessToken(tenant, c);
    const idToken = c.scope.includes('openid')
      ? await this.idToken(tenant, { sub: c.sub, clientId: c.clientId, nonce: c.nonce, authTime: c.authTime, sessionId: c.sessionId, accessToken, issuedAt: c.issuedAt, expiresAt: c.issuedAt + idTokenTtl(tenant), alg: c.idTokenAlg })
      : undefined;
    return {
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: tenant.accessTokenTtl,
      scope: c.scope.join(' '),
      ...(c.refreshToken ? { refresh_token: c.refreshToken } : {}),
      ...(idToken ? { id_token: idToken } : {}),
    };
  }

  /**
   * Verifies a JWT this tenant signed (signature, issuer, and `typ` when given); expiry and
   * revocation are the caller's to check. Tokens that passed are remembered by their exact
   * text, so a token presented again costs no signature check.
   */
  async verify(tenantId: string, token: string, typ?: string): Promise<DecodedJwt | undefined> {
    const key = `${tenantId} ${token}`;
    let decoded = this.verified.get(key);
    if (!decoded) {
      decoded = await this.checkSignature(tenantId, token);
      if (!decoded) return undefined;
      setBounded(this.verified, key, decoded, VERIFIED_LIMIT);
    }
    return !typ || decoded.header.typ === typ ? decoded : undefined;
  }

  private async checkSignature(tenantId: string, token: string): Promise<DecodedJwt | undefined> {
    const decoded = token.length < 8192 ? decodeJwt(token) : undefined;
    if (!decoded || typeof decoded.header.kid !== 'string') return undefined;
    const key = await this.keys.find(tenantId, decoded.header.kid);
    if (!key || !(await signatureValid(decoded, key.publicKey, key.alg, key.lowS))) return undefined;
    if (decoded.payload.iss !== this.directory.issuer(tenantId)) return undefined;
    return { header: decoded.header, payload: decoded.payload };
  }
}
