import { grantOfTokenId, grantTokenId } from '../src/domain/session/session.events.js';
import type { ProjectedEvent } from './projection.js';
import { accessTokenKey, refreshTokenKey, tokensProjection } from './tokens.projection.js';

let position = 0;
const event = (type: string, data: Record<string, unknown>): ProjectedEvent => ({
  id: `e${++position}`,
  type,
  streamId: 's',
  revision: position,
  position,
  data,
  metadata: { actor: 'test', correlationId: 'c', occurredAt: '2026-01-01T00:00:00.000Z' },
});
const issued = (jti: string, session: boolean) =>
  event('AccessTokenIssued', { tenantId: 't', jti, clientId: 'web', sub: 'u', ...(session ? { sessionId: 's1', grantId: 'g1', userId: 'u' } : {}), scope: ['openid'], audience: ['x'], issuedAt: 1, expiresAt: 2 });

describe('tokens view: access tokens', () => {
  it('keeps no document for an access token whose jti names its grant, nor for a client token', () => {
    expect(tokensProjection.documentId(issued(grantTokenId('j1', 'g1'), true))).toBeUndefined();
    expect(tokensProjection.documentId(issued('j2', false))).toBeUndefined();
  });

  it('keeps a document for a session token issued before its jti named the grant', () => {
    const e = issued('j3', true);
    expect(tokensProjection.documentId(e)).toBe(accessTokenKey('t', 'j3'));
    expect(tokensProjection.apply(null, e, accessTokenKey('t', 'j3'))).toMatchObject({ sessionId: 's1', grantId: 'g1', status: 'active' });
  });

  it('records the revocation of a token that has no document', () => {
    const jti = grantTokenId('j4', 'g1');
    const revoked = event('TokenRevoked', { tenantId: 't', sessionId: 's1', grantId: 'g1', clientId: 'web', tokenType: 'access_token', jti, reason: 'revocation_request' });
    expect(tokensProjection.documentId(revoked)).toBe(accessTokenKey('t', jti));
    expect(tokensProjection.apply(null, revoked, accessTokenKey('t', jti))).toMatchObject({ jti, status: 'revoked' });
  });
});

describe('tokens view: refresh tokens', () => {
  const refresh = { tenantId: 't', clientId: 'web', sessionId: 's1', grantId: 'g1', userId: 'u', scope: ['openid'], issuedAt: 1, expiresAt: 2 };

  it('creates the new token of a rotation and deletes the old one without reading it', () => {
    const rotated = event('RefreshRotated', { ...refresh, fromHash: 'h1', toHash: 'h2' });
    expect(tokensProjection.documentId(rotated)).toEqual([refreshTokenKey('t', 'h2'), refreshTokenKey('t', 'h1')]);
    expect(tokensProjection.readsDocument!(rotated, refreshTokenKey('t', 'h1'))).toBe(false);
    const stored = tokensProjection.apply(null, event('RefreshTokenIssued', { ...refresh, refreshHash: 'h1' }), refreshTokenKey('t', 'h1'));
    expect(stored).toMatchObject({ status: 'active' });
    expect(tokensProjection.apply(stored, rotated, refreshTokenKey('t', 'h1'))).toBeNull();
    expect(tokensProjection.apply(null, rotated, refreshTokenKey('t', 'h2'))).toMatchObject({ kind: 'refresh_token', status: 'active' });
  });

  it('deletes a revoked refresh token without reading it', () => {
    const revoked = event('TokenRevoked', { tenantId: 't', sessionId: 's1', grantId: 'g1', clientId: 'web', tokenType: 'refresh_token', refreshHash: 'h2', reason: 'revocation_request' });
    expect(tokensProjection.documentId(revoked)).toBe(refreshTokenKey('t', 'h2'));
    expect(tokensProjection.readsDocument!(revoked, refreshTokenKey('t', 'h2'))).toBe(false);
    const stored = tokensProjection.apply(null, event('RefreshTokenIssued', { ...refresh, refreshHash: 'h2' }), refreshTokenKey('t', 'h2'));
    expect(tokensProjection.apply(stored, revoked, refreshTokenKey('t', 'h2'))).toBeNull();
  });
});

describe('grant token ids', () => {
  it('name the grant after the random id, and only then', () => {
    expect(grantOfTokenId(grantTokenId('0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', 'g-1'))).toBe('g-1');
    expect(grantOfTokenId('0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b')).toBeUndefined();
    expect(grantOfTokenId('.g')).toBeUndefined();
    expect(grantOfTokenId('j.')).toBeUndefined();
  });
});
