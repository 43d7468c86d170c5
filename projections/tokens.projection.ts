import type { Projection, ProjectedEvent } from './projection.js';

/**
 * Every issued token, for introspection: access tokens keyed `<tenant>/at/<jti>` (jtis are
 * time-ordered, so new documents land at the end of the key index), refresh tokens keyed
 * `<tenant>/rt/<sha256>`; a rotation marks the old refresh token and creates the new one.
 * Revocation of a whole session or grant is read from the `sessions` view.
 */
export interface TokenView {
  tenantId: string;
  kind: 'access_token' | 'refresh_token';
  clientId: string;
  sub: string;
  userId?: string;
  sessionId?: string;
  grantId?: string;
  jti?: string;
  scope: string[];
  audience?: string[];
  issuedAt: number;
  expiresAt: number;
  status: 'active' | 'rotated' | 'revoked';
}

export const accessTokenKey = (tenantId: string, jti: string) => `${tenantId}/at/${jti}`;
export const refreshTokenKey = (tenantId: string, hash: string) => `${tenantId}/rt/${hash}`;

function documentId(e: ProjectedEvent): string | readonly string[] | undefined {
  const d = e.data;
  switch (e.type) {
    case 'AccessTokenIssued':
      return accessTokenKey(d.tenantId, d.jti);
    case 'RefreshTokenIssued':
      return refreshTokenKey(d.tenantId, d.refreshHash);
    case 'RefreshRotated':
      return [refreshTokenKey(d.tenantId, d.toHash), refreshTokenKey(d.tenantId, d.fromHash)];
    case 'TokenRevoked':
      return d.jti ? accessTokenKey(d.tenantId, d.jti) : d.refreshHash ? refreshTokenKey(d.tenantId, d.refreshHash) : undefined;
    default:
      return undefined;
  }
}

export const tokensProjection: Projection<TokenView> = {
  view: 'tokens',
  version: 3,
  eventTypes: ['AccessTokenIssued', 'RefreshTokenIssued', 'RefreshRotated', 'TokenRevoked'],
  // Read by id only (introspection, userinfo); a session's tokens are listed by the token_history view.
  indexes: [],
  documentId,
  apply(doc, e, id) {
    const d = e.data;
    if (e.type === 'RefreshRotated' && id === refreshTokenKey(d.tenantId, d.fromHash)) return doc ? { ...doc, status: 'rotated' } : null;
    switch (e.type) {
      case 'AccessTokenIssued':
        return {
          tenantId: d.tenantId,
          kind: 'access_token',
          clientId: d.clientId,
          sub: d.sub,
          ...(d.userId ? { userId: d.userId, sessionId: d.sessionId, grantId: d.grantId } : {}),
          jti: d.jti,
          scope: d.scope,
          audience: d.audience,
          issuedAt: d.issuedAt,
          expiresAt: d.expiresAt,
          status: 'active',
        };
      case 'RefreshTokenIssued':
      case 'RefreshRotated':
        return {
          tenantId: d.tenantId,
          kind: 'refresh_token',
          clientId: d.clientId,
          sub: d.userId,
          userId: d.userId,
          sessionId: d.sessionId,
          grantId: d.grantId,
          scope: d.scope,
          issuedAt: d.issuedAt,
          expiresAt: d.expiresAt,
          status: 'active',
        };
      case 'TokenRevoked':
        return doc ? { ...doc, status: 'revoked' } : null;
      default:
        return doc;
    }
  },
};
