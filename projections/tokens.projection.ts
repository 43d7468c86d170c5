import type { Projection, ProjectedEvent } from './projection.js';

/**
 * The tokens of sessions, for introspection: access tokens keyed `<tenant>/at/<jti>` (jtis are
 * time-ordered, so new documents land at the end of the key index), refresh tokens keyed
 * `<tenant>/rt/<sha256>`; a rotation marks the old refresh token and creates the new one.
 * Revocation of a whole session or grant is read from the `sessions` view. A token a client
 * holds for itself (client_credentials) gets a document only when it is revoked.
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
      // A token a client holds for itself (no session) is described by its JWT alone: only its revocation is kept.
      return d.sessionId ? accessTokenKey(d.tenantId, d.jti) : undefined;
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
  version: 4,
  eventTypes: ['AccessTokenIssued', 'RefreshTokenIssued', 'RefreshRotated', 'TokenRevoked'],
  // Read by id only (introspection, userinfo); a session's tokens are listed by the token_history view.
  indexes: [],
  documentId,
  // Issuing creates a document; only a revocation and the rotated side of a rotation change one.
  readsDocument: (e, id) => e.type === 'TokenRevoked' || (e.type === 'RefreshRotated' && id === refreshTokenKey(e.data.tenantId, e.data.fromHash)),
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
        if (doc) return { ...doc, status: 'revoked' };
        return d.jti && !d.sessionId
          ? { tenantId: d.tenantId, kind: 'access_token', clientId: d.clientId, sub: d.clientId, jti: d.jti, scope: [], issuedAt: 0, expiresAt: 0, status: 'revoked' }
          : null;
      default:
        return doc;
    }
  },
};
