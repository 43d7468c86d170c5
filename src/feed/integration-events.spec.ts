import type { RecordedEvent } from '../infrastructure/event-store/event-store.port.js';
import { FEED_SOURCE_TYPES, integrationEvent } from './integration-events.js';

const ISSUER = 'https://id.example.com/acme';
let position = 0;
const recorded = (type: string, data: Record<string, unknown>): RecordedEvent => ({
  id: `00000000-0000-4000-8000-${String(++position).padStart(12, '0')}`,
  type,
  data: { tenantId: 'acme', ...data },
  metadata: { tenantId: 'acme', actor: 'system', correlationId: 'c', occurredAt: '2026-01-01T00:00:00.000Z', schemaVersion: 1, sourceIp: '203.0.113.9', userAgent: 'UA' },
  streamId: 's',
  revision: 0,
  position,
});

describe('integration events', () => {
  it('maps a session end to session.revoked, with the clients and nothing of where the user was', () => {
    const e = integrationEvent(recorded('SessionRevoked', { sessionId: 's1', userId: 'u1', reason: 'logout', grants: [{ grantId: 'g1', clientId: 'web' }], kept: [{ grantId: 'g2', clientId: 'app' }] }), ISSUER);
    expect(e).toEqual({
      specversion: '1.0',
      id: expect.any(String),
      source: ISSUER,
      type: 'session.revoked',
      time: '2026-01-01T00:00:00.000Z',
      subject: 's1',
      datacontenttype: 'application/json',
      cursor: String(position),
      data: { sid: 's1', sub: 'u1', reason: 'logout', client_ids: ['web', 'app'] },
    });
    expect(JSON.stringify(e)).not.toMatch(/203\.0\.113\.9|UA/);
  });

  it('never passes on a hash of a token, a secret or a key', () => {
    const events = [
      recorded('TokenRevoked', { sessionId: 's', userId: 'u', grantId: 'g', clientId: 'web', tokenType: 'refresh_token', refreshHash: 'HASH', reason: 'revocation_request' }),
      recorded('RefreshReplayed', { sessionId: 's', userId: 'u', grantId: 'g', refreshHash: 'HASH', clientId: 'web' }),
      recorded('UserDeleted', { userId: 'u', username: 'alice' }),
      recorded('SigningKeyActivated', { kid: 'k2', alg: 'ES256', at: 1, replaced: 'k1' }),
    ];
    const mapped = events.map((e) => integrationEvent(e, ISSUER));
    expect(mapped.map((m) => m?.type)).toEqual(['token.revoked', 'refresh_token.replayed', 'user.deleted', 'signing_key.rotated']);
    expect(JSON.stringify(mapped)).not.toMatch(/HASH|alice/);
    expect(mapped[3]?.data).toEqual({ kid: 'k2', alg: 'ES256', previous_kid: 'k1' });
  });

  it('tells a grant ended by a refresh revocation or replay once, by the event that caused it', () => {
    for (const reason of ['refresh_revoked', 'refresh_replayed']) expect(integrationEvent(recorded('GrantRevoked', { sessionId: 's', userId: 'u', grantId: 'g', clientId: 'web', reason }), ISSUER)).toBeUndefined();
    expect(integrationEvent(recorded('GrantRevoked', { sessionId: 's', userId: 'u', grantId: 'g', clientId: 'web', reason: 'code_replayed' }), ISSUER)?.type).toBe('grant.revoked');
  });

  it('maps nothing it does not name, whatever the type is called', () => {
    for (const type of ['CodeIssued', 'toString', '__proto__', 'constructor']) expect(integrationEvent(recorded(type, {}), ISSUER)).toBeUndefined();
    expect(FEED_SOURCE_TYPES).not.toContain('CodeIssued');
  });
});
