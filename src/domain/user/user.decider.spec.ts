import { fold } from '../shared/decider.js';
import { givenFor } from '../shared/decider-spec.js';
import { userDecider } from './user.decider.js';
import type { UserEvent } from './user.events.js';

const created: UserEvent = {
  type: 'UserCreated',
  data: { tenantId: 't', userId: 'u', username: 'alice', passwordHash: 'scrypt$...', claims: { email: 'alice@example.com' }, createdAt: '2026-01-01T00:00:00.000Z' },
};
const failed: UserEvent = { type: 'LoginFailed', data: { tenantId: 't', clientId: 'web', reason: 'bad_password', userId: 'u' } };
const given = givenFor(userDecider);
const consent = (clientId: string, scope: string[]): UserEvent => ({ type: 'ConsentGranted', data: { tenantId: 't', userId: 'u', clientId, scope } });

describe('user decider', () => {
  it('saves its state as plain JSON and folds on from a saved state as from the events', () => {
    const events: UserEvent[] = [created, ...Array.from({ length: 50 }, () => failed), consent('third', ['openid']), failed, consent('other', ['openid', 'email'])];
    const codec = userDecider.snapshot!;
    for (const n of [1, 30, 52, events.length]) {
      const restored = codec.decode(JSON.parse(JSON.stringify(codec.encode(given(events.slice(0, n)).state))));
      expect(restored).toEqual(given(events.slice(0, n)).state);
      expect(events.slice(n).reduce(userDecider.evolve, restored)).toEqual(given(events).state);
    }
    expect(given(events).when({ kind: 'GrantConsent', clientId: 'third', scope: ['openid'] })).toEqual([]);
  });

  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty'])('keeps the consents of a client named %s as its own, saved and restored', (clientId) => {
    const fresh = fold(userDecider, [created]);
    const grant = (state: ReturnType<typeof fold<UserEvent, typeof fresh>>) => userDecider.decide({ kind: 'GrantConsent', clientId, scope: ['openid'] }, state);
    expect(grant(fresh)).toEqual([consent(clientId, ['openid'])]);
    const granted = fold(userDecider, [created, consent(clientId, ['openid'])]);
    expect(grant(granted)).toEqual([]);
    const restored = userDecider.snapshot!.decode(JSON.parse(JSON.stringify(userDecider.snapshot!.encode(granted))));
    expect(grant(restored)).toEqual([]);
    expect(userDecider.decide({ kind: 'GrantConsent', clientId, scope: ['email'] }, restored)).toEqual([consent(clientId, ['openid', 'email'])]);
    expect(Object.getPrototypeOf(granted.consents)).toBe(Object.prototype);
  });
});

describe('user decider: admin changes', () => {
  const after = (...more: UserEvent[]) => given([created, ...more]);

  it('records only what an edit changes, as one decision', () => {
    expect(after().when({ kind: 'EditUser', claims: { email: 'alice@example.com' }, disabled: false })).toEqual([]);
    expect(after().when({ kind: 'EditUser', claims: { email: 'a@example.com', name: 'Alice' }, passwordHash: 'scrypt$new', disabled: true })).toEqual([
      { type: 'UserUpdated', data: { tenantId: 't', userId: 'u', claims: { email: 'a@example.com', name: 'Alice' } } },
      { type: 'UserPasswordChanged', data: { tenantId: 't', userId: 'u', passwordHash: 'scrypt$new' } },
      { type: 'UserDisabled', data: { tenantId: 't', userId: 'u' } },
    ]);
  });

  it('folds the edits: new claims and hash, disabled then enabled again', () => {
    const disabled = after({ type: 'UserUpdated', data: { tenantId: 't', userId: 'u', claims: { name: 'A' } } }, { type: 'UserPasswordChanged', data: { tenantId: 't', userId: 'u', passwordHash: 'h2' } }, { type: 'UserDisabled', data: { tenantId: 't', userId: 'u' } });
    expect(disabled.state.created).toMatchObject({ claims: { name: 'A' }, passwordHash: 'h2' });
    expect(disabled.state.disabled).toBe(true);
    expect(disabled.when({ kind: 'EditUser', disabled: true })).toEqual([]);
    expect(disabled.when({ kind: 'EditUser', disabled: false })).toEqual([{ type: 'UserEnabled', data: { tenantId: 't', userId: 'u' } }]);
  });

  it('deletes once; a deleted or never created user is not found for every later command', () => {
    expect(after().when({ kind: 'DeleteUser' })).toEqual([{ type: 'UserDeleted', data: { tenantId: 't', userId: 'u', username: 'alice' } }]);
    const deleted = after({ type: 'UserDeleted', data: { tenantId: 't', userId: 'u', username: 'alice' } });
    for (const state of [deleted, given()]) {
      expect(() => state.when({ kind: 'DeleteUser' })).toThrow('unknown user');
      expect(() => state.when({ kind: 'EditUser', disabled: true })).toThrow('unknown user');
      expect(() => state.when({ kind: 'GrantConsent', clientId: 'c', scope: ['openid'] })).toThrow('unknown user');
    }
    // The stream keeps its user: creating it again changes nothing (the username is not given twice).
    expect(deleted.when({ kind: 'CreateUser', tenantId: 't', userId: 'u', username: 'alice', passwordHash: 'h', claims: {}, now: '2026-01-02T00:00:00.000Z' })).toEqual([]);
  });
});
