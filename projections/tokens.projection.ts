import { grantOfTokenId } from '../src/domain/session/session.events.js';
import type { Projection, ProjectedEvent } from './projection.js';

/**
 * Tokens for introspection. Refresh tokens are keyed `<tenant>/rt/<reference>` (the reference
 * leads with the issue stamp, so new documents land at the end of the key index). A refresh
 * token's document lives while the token may be used: a rotation deletes the old one and
 * creates the new one, a revocation deletes it (a token without a document is inactive, and
 * the audit trail is the `token_history` view), so the view grows with grants, not with
 * rotations. An access token is described by its verified
 * JWT and gets a document, keyed `<tenant>/at/<jti>`, only when it is revoked by itself; the
 * revocation of its whole session or grant is read from the `sessions` view (its `jti` names
 * its grant). Access tokens of sessions issued before their `jti` named the grant keep a
 * document from issue on.
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
  status: 'active' | 'revoked';
  /** DPoP (RFC 9449 §6.1): the thumbprint of the key the access token is bound to (`cnf.jkt`). */
  jkt?: string;
}

export const accessTokenKey = (tenantId: string, jti: string) => `${tenantId}/at/${jti}`;
export const refreshTokenKey = (tenantId: string, hash: string) => `${tenantId}/rt/${hash}`;

function documentId(e: ProjectedEvent): string | readonly string[] | undefined {
  const d = e.data;
  switch (e.type) {
    case 'AccessTokenIssued':
      return d.sessionId && !grantOfTokenId(d.jti) ? accessTokenKey(d.tenantId, d.jti) : undefined;
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
  version: 6,
  eventTypes: ['AccessTokenIssued', 'RefreshTokenIssued', 'RefreshRotated', 'TokenRevoked'],
  // Read by id only (introspection, userinfo); a session's tokens are listed by the token_history view.
  indexes: [],
  documentId,
  // Issuing creates a document and the end of a refresh token deletes one; only the revocation of an access token changes one.
  readsDocument: (e) => e.type === 'TokenRevoked' && !!e.data.jti,
  apply(doc, e, id) {
    const d = e.data;
    if (e.type === 'RefreshRotated' && id === refreshTokenKey(d.tenantId, d.fromHash)) return null;
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
        if (!d.jti) return null;
        if (doc) return { ...doc, status: 'revoked' };
        // An access token with no document until now: the event says whose it was; its scope and
        // times are in its AccessTokenIssued event (introspection of it answers only `active: false`).
        return {
          tenantId: d.tenantId,
          kind: 'access_token',
          clientId: d.clientId,
          sub: d.userId ?? d.clientId,
          ...(d.userId ? { userId: d.userId, sessionId: d.sessionId, grantId: d.grantId } : {}),
          jti: d.jti,
          scope: [],
          issuedAt: 0,
          expiresAt: 0,
          status: 'revoked',
        };
      default:
        return doc;
    }
  },
};
