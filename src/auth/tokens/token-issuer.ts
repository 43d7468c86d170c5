import { Inject, Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import type { TenantView } from '../../../projections/tenants.projection.js';
import type { SigningAlg } from '../../domain/tenant/tenant.events.js';
import { decodeJwt, signJwt, signatureValid, type DecodedJwt } from '../../infrastructure/crypto/jws.js';
import { KeyRing, type LoadedKey } from '../../infrastructure/crypto/key-ring.js';
import type { AccessTokenIssued } from '../../domain/session/session.events.js';
import { setBounded } from '../../shared/bounded-map.js';
import { Directory } from '../../shared/directory.js';
import { acrOf } from '../../domain/challenge/acr.js';
import type { TokenResponse } from '../token/grant.js';

/** The keys a token response is signed with, chosen before the events that name them are decided. */
export interface ResponseKeys {
  access: LoadedKey;
  /** The key for the client's ID token algorithm (the same key when it is the tenant's). */
  id: LoadedKey;
}

type IssuedAccessToken = AccessTokenIssued['data'];

/** OpenID Connect Core §3.1.3.6: left half of the hash (the alg's hash; SHA-512 for Ed25519) of the ASCII token. */
function halfHash(alg: SigningAlg, value: string): string {
  const digest = createHash(alg === 'EdDSA' ? 'sha512' : 'sha256').update(value).digest();
  return digest.subarray(0, digest.length / 2).toString('base64url');
}

const VERIFIED_LIMIT = 20_000;

/** Signs access tokens (RFC 9068) and ID tokens with the keys chosen for them; verifies its own JWTs. */
@Injectable()
export class TokenIssuer {
  private readonly verified = new Map<string, DecodedJwt>();

  constructor(
    @Inject(KeyRing) private readonly keys: KeyRing,
    @Inject(Directory) private readonly directory: Directory,
  ) {}

  /** The tenant's current key for access tokens (its `signing_alg`). */
  accessKey(tenant: TenantView): Promise<LoadedKey> {
    return this.keys.signingKey(tenant.tenantId, tenant.signingAlg as SigningAlg);
  }

  /**
   * The tenant's current keys for access tokens and for this client's ID tokens: the alg the
   * client registered, else RS256 (OpenID Connect Registration §2, `id_token_signed_response_alg`).
   */
  async responseKeys(tenant: TenantView, idTokenAlg: SigningAlg = 'RS256'): Promise<ResponseKeys> {
    const access = await this.accessKey(tenant);
    return { access, id: idTokenAlg === access.alg ? access : await this.keys.signingKey(tenant.tenantId, idTokenAlg) };
  }

  /** The access token an `AccessTokenIssued` describes, signed with the key it names. */
  accessToken(tenant: TenantView, t: IssuedAccessToken, key: LoadedKey, authTime?: number): Promise<string> {
    // Optional claims by assignment (see domain/shared/merged.ts).
    const claims: Record<string, unknown> = {
      iss: this.directory.issuer(tenant.tenantId),
      sub: t.sub,
      aud: t.audience.length === 1 ? t.audience[0] : t.audience,
      client_id: t.clientId,
    };
    // RFC 9068 §2.2.3: the scopes granted; none granted, no claim.
    if (t.scope.length) claims.scope = t.scope.join(' ');
    claims.jti = t.jti;
    claims.iat = t.issuedAt;
    claims.exp = t.expiresAt;
    if (t.sessionId) claims.sid = t.sessionId;
    if (authTime) claims.auth_time = authTime;
    // RFC 9449 §6.1: the token is bound to the DPoP key by its thumbprint.
    if (t.jkt) claims.cnf = { jkt: t.jkt };
    return signJwt({ alg: key.alg, kid: key.kid, typ: 'at+jwt' }, claims, key.privateKey);
  }

  /**
   * The token response for a user grant: the access token the event describes, the ID token
   * it records (when `openid` was granted), and the refresh token when one was issued.
   */
  async userTokenResponse(
    tenant: TenantView,
    t: IssuedAccessToken & { sessionId: string },
    keys: ResponseKeys,
    extra: { authTime: number; nonce?: string; refreshToken?: string; amr?: string[] },
  ): Promise<TokenResponse> {
    const accessToken = await this.accessToken(tenant, t, keys.access, extra.authTime);
    const response: TokenResponse = { access_token: accessToken, token_type: t.jkt ? 'DPoP' : 'Bearer', expires_in: tenant.accessTokenTtl };
    if (t.scope.length) response.scope = t.scope.join(' ');
    if (extra.refreshToken) response.refresh_token = extra.refreshToken;
    if (t.idToken) {
      const claims: Record<string, unknown> = {
        iss: this.directory.issuer(tenant.tenantId),
        sub: t.sub,
        aud: t.clientId,
        azp: t.clientId,
        iat: t.issuedAt,
        exp: t.idToken.expiresAt,
        auth_time: extra.authTime,
        sid: t.sessionId,
      };
      if (extra.nonce !== undefined) claims.nonce = extra.nonce;
      // MFA: OpenID Connect Core §2 `amr` (RFC 8176 values) and `acr`, from the sign-in the grant was made on.
      if (extra.amr) {
        claims.amr = extra.amr;
        claims.acr = acrOf(extra.amr);
      }
      claims.at_hash = halfHash(keys.id.alg, accessToken);
      response.id_token = await signJwt({ alg: keys.id.alg, kid: keys.id.kid, typ: 'JWT' }, claims, keys.id.privateKey);
    }
    return response;
  }

  /**
   * Verifies a JWT this tenant signed (signature, issuer, a numeric `exp`, no `crit` header,
   * and `typ` when given); expiry and revocation are the caller's to check. Tokens that passed
   * are remembered by their exact text, so a token presented again costs no signature check.
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
    // RFC 7515 §4.1.11: no extension is understood here, so a token that names one is refused.
    if (!decoded || typeof decoded.header.kid !== 'string' || decoded.header.crit !== undefined) return undefined;
    const key = await this.keys.find(tenantId, decoded.header.kid);
    if (!key || !(await signatureValid(decoded, key.publicKey, key.alg, key.lowS))) return undefined;
    // Every token signed here expires (RFC 9068 §2.2, OpenID Connect Core §2).
    if (decoded.payload.iss !== this.directory.issuer(tenantId) || typeof decoded.payload.exp !== 'number') return undefined;
    return { header: decoded.header, payload: decoded.payload };
  }
}
