import type { Projection, ProjectedEvent } from './projection.js';

/**
 * A token as introspection sees it. Access tokens are documents of the `tokens` view, keyed
 * `<tenant>/at/<jti>` (time-ordered jtis, so new documents land at the end of the key index).
 * A refresh token is the current one of its grant in the `sessions` view; the inspector
 * describes it in this shape too.
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
}

export const accessTokenKey = (tenantId: string, jti: string) => `${tenantId}/at/${jti}`;

function documentId(e: ProjectedEvent): string | undefined {
  const d = e.data;
  if (e.type === 'AccessTokenIssued' || (e.type === 'TokenRevoked' && d.jti)) return accessTokenKey(d.tenantId, d.jti);
  return undefined;
}

export const tokensProjection: Projection<TokenView> = {
  view: 'tokens',
  version: 3,
  eventTypes: ['AccessTokenIssued', 'TokenRevoked'],
  indexes: [{ fields: ['tenantId', 'sessionId'] }],
  documentId,
  apply(doc, e) {
    const d = e.data;
    if (e.type === 'TokenRevoked') return doc ? { ...doc, status: 'revoked' } : null;
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
  },
};
