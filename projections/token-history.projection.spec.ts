import type { ProjectedEvent } from './projection.js';
import { historyEvent } from '../src/central/audit/history-event.js';
import type { RecordedEvent } from '../src/infrastructure/event-store/event-store.port.js';
import { entryPart, historyKey, tokenHistoryProjection } from './token-history.projection.js';

let position = 100;
const event = (type: string, data: Record<string, unknown>, actor = 'system'): ProjectedEvent => ({
  id: `e${++position}`,
  type,
  streamId: 'session-t.s1',
  revision: position,
  position,
  data,
  metadata: { tenantId: 't', actor, correlationId: 'c', sourceIp: '192.0.2.1', occurredAt: '2026-01-01T00:00:00.000Z' },
});
const apply = (e: ProjectedEvent) => {
  const ids = tokenHistoryProjection.documentId(e);
  return (typeof ids === 'string' ? [ids] : (ids ?? [])).map((id) => ({ id, ...tokenHistoryProjection.apply(null, e, id)! }));
};

describe('token_history view: what finds a token', () => {
  it("files an access token's issue and revocation under its jti", () => {
    const [issued] = apply(event('AccessTokenIssued', { tenantId: 't', jti: 'j1.g1', clientId: 'web', sub: 'u', sessionId: 's1', grantId: 'g1', scope: [], audience: [], issuedAt: 1, expiresAt: 2 }));
    expect(issued).toEqual({ id: historyKey('t', position), tenantId: 't', jti: 'j1.g1', sessionId: 's1', sub: 'u', clientId: 'web' });
    expect(issued).not.toHaveProperty('endsGrant');
    const [revoked] = apply(event('TokenRevoked', { tenantId: 't', sessionId: 's1', grantId: 'g1', clientId: 'web', tokenType: 'access_token', jti: 'j1.g1', reason: 'revocation_request' }));
    expect(revoked).toMatchObject({ jti: 'j1.g1' });
  });

  it("marks a grant's revocation as the end of that grant", () => {
    const [entry] = apply(event('GrantRevoked', { tenantId: 't', sessionId: 's1', userId: 'u', grantId: 'g1', clientId: 'web', reason: 'refresh_revoked' }));
    expect(entry).toMatchObject({ endsGrant: 'g1', sessionId: 's1', sub: 'u', clientId: 'web' });
  });

  it("gives a session's end one entry per grant it ended (none for the grants it kept), found by that grant alone", () => {
    const e = event('SessionRevoked', {
      tenantId: 't',
      sessionId: 's1',
      userId: 'u',
      grants: [
        { grantId: 'g1', clientId: 'web' },
        { grantId: 'g2', clientId: 'web' },
        { grantId: 'g3', clientId: 'spa' },
      ],
      kept: [{ grantId: 'g4', clientId: 'third' }],
      reason: 'logout',
      requestedBy: 'web',
    }, 'user:u');
    const docs = apply(e);
    const ends = docs.filter((d) => d.endsGrant);
    expect(ends.map((d) => d.endsGrant)).toEqual(['g1', 'g2', 'g3']);
    for (const d of ends) {
      // Found by the grant only: a session's, subject's or client's history lists the event once.
      expect(d).not.toHaveProperty('sessionId');
      expect(d).not.toHaveProperty('sub');
      expect(d).not.toHaveProperty('clientId');
      expect(Object.keys(d).sort()).toEqual(['endsGrant', 'id', 'tenantId']);
    }
    // What the grant's entry shows of the event: that grant, and no more.
    const g3 = historyEvent(e as RecordedEvent, entryPart(ends.find((d) => d.endsGrant === 'g3')!.id, 't', e.position));
    expect(g3).not.toHaveProperty('sourceIp');
    expect(g3.type).toBe('SessionRevoked');
    expect(g3.data).toEqual({ sessionId: 's1', userId: 'u', tenantId: 't', reason: 'logout', grants: [{ grantId: 'g3', clientId: 'spa' }] });
    expect(g3.actor).toBe('user:u');
    // Every document of the event sorts after its main entry and before the next position.
    const key = historyKey('t', e.position);
    for (const d of docs) expect(d.id >= key && d.id < historyKey('t', e.position + 1)).toBe(true);
  });
});
