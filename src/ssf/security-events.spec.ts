import type { RecordedEvent } from '../infrastructure/event-store/event-store.port.js';
import { emailKey, eventsDelivered, issSubKey, SSF_EVENTS, subjectFor, userSignal } from './security-events.js';

const ISS = 'https://as.example.com/acme';
const event = (type: string, data: Record<string, unknown>, actor = 'client:admin'): RecordedEvent =>
  ({ id: 'e1', type, data: { tenantId: 'acme', ...data }, streamId: 's', revision: 0, position: 7, metadata: { tenantId: 'acme', actor, correlationId: 'c', occurredAt: '2026-01-01T00:00:00.000Z' } }) as unknown as RecordedEvent;

describe('SET events from domain events', () => {
  it('maps a session end to CAEP session-revoked with who initiated it', () => {
    expect(userSignal(event('SessionRevoked', { sessionId: 'sid1', userId: 'u1', reason: 'admin' }))).toEqual({
      eventType: SSF_EVENTS.sessionRevoked,
      userId: 'u1',
      sessionId: 'sid1',
      payload: { event_timestamp: 1767225600, initiating_entity: 'admin' },
    });
    expect(userSignal(event('SessionRevoked', { sessionId: 's', userId: 'u1', reason: 'refresh_replayed' }))?.payload.initiating_entity).toBe('policy');
  });

  it('maps a password set anew to credential-change, by the user or an administrator, without the hash', () => {
    const own = userSignal(event('UserPasswordChanged', { userId: 'u1', passwordHash: 'scrypt$secret' }, 'user:u1'));
    expect(own?.payload).toEqual({ credential_type: 'password', change_type: 'update', event_timestamp: 1767225600, initiating_entity: 'user' });
    expect(JSON.stringify(own)).not.toContain('scrypt');
    expect(userSignal(event('UserPasswordChanged', { userId: 'u1', passwordHash: 'x' }))?.payload.initiating_entity).toBe('admin');
  });

  it('maps UserDisabled and UserEnabled to RISC, and nothing else', () => {
    expect(userSignal(event('UserDisabled', { userId: 'u1' }))?.eventType).toBe(SSF_EVENTS.accountDisabled);
    expect(userSignal(event('UserEnabled', { userId: 'u1' }))?.eventType).toBe(SSF_EVENTS.accountEnabled);
    expect(userSignal(event('UserCreated', { userId: 'u1' }))).toBeUndefined();
    expect(userSignal(event('__proto__', { userId: 'u1' }))).toBeUndefined();
  });

  it('delivers what was requested and is supported', () => {
    expect(eventsDelivered(['urn:x', SSF_EVENTS.accountEnabled])).toEqual([SSF_EVENTS.accountEnabled]);
  });
});

describe('sub_id', () => {
  const signal = { eventType: SSF_EVENTS.accountDisabled, userId: 'u1', payload: {} };

  it('names the user as the receiver added it: iss_sub first, else email; nobody it did not add', () => {
    expect(subjectFor([issSubKey('u1'), emailKey('a@b.c')], ISS, signal, 'a@b.c')).toEqual({ format: 'iss_sub', iss: ISS, sub: 'u1' });
    expect(subjectFor([emailKey('A@B.c')], ISS, signal, 'a@B.C')).toEqual({ format: 'email', email: 'a@B.C' });
    expect(subjectFor([issSubKey('u2'), emailKey('x@y.z')], ISS, signal, 'a@b.c')).toBeUndefined();
    expect(subjectFor([emailKey('a@b.c')], ISS, signal)).toBeUndefined();
  });

  it("names a session's end as a complex subject: the user and the session", () => {
    expect(subjectFor([issSubKey('u1')], ISS, { ...signal, sessionId: 'sid1' })).toEqual({ format: 'complex', user: { format: 'iss_sub', iss: ISS, sub: 'u1' }, session: { format: 'opaque', id: 'sid1' } });
  });
});
