import { givenFor, types } from '../shared/decider-spec.js';
import { scopeDecider } from './scope.decider.js';
import type { ScopeEvent } from './scope.events.js';

const given = givenFor(scopeDecider);
const contact = { scopeId: 'contact', restricted: false, claims: ['email'] };
const created: ScopeEvent = { type: 'ScopeCreated', data: { tenantId: 't', ...contact } };

describe('scope decider', () => {
  it('creates a scope once; a built-in name is taken from the start', () => {
    expect(given().when({ kind: 'CreateScope', tenantId: 't', definition: contact })).toEqual([created]);
    expect(given([created]).refused({ kind: 'CreateScope', tenantId: 't', definition: contact })).toBe('already_exists');
    expect(given().refused({ kind: 'CreateScope', tenantId: 't', definition: { ...contact, scopeId: 'profile' } })).toBe('already_exists');
  });

  it('changes a built-in scope before any event of its own, but never deletes it', () => {
    const profile = { scopeId: 'profile', restricted: true, claims: ['name'] };
    expect(types(given().when({ kind: 'UpdateScope', tenantId: 't', definition: profile }))).toEqual(['ScopeUpdated']);
    expect(given().refused({ kind: 'DeleteScope', scopeId: 'profile' })).toBe('invalid_value');
    expect(given().refused({ kind: 'UpdateScope', tenantId: 't', definition: contact })).toBe('not_found');
  });

  it("keeps the protocol scopes' meaning, the admin scopes' names, and the claims to those kept of users", () => {
    const update = (scopeId: string, claims: string[], restricted = false) => given().refused({ kind: 'UpdateScope', tenantId: 't', definition: { scopeId, claims, restricted } });
    expect(update('openid', ['sub', 'email'])).toBe('invalid_value');
    expect(update('offline_access', [], true)).toBe('invalid_value');
    expect(update('openid', ['sub'])).toBe('no error');
    expect(given().refused({ kind: 'CreateScope', tenantId: 't', definition: { ...contact, scopeId: 'central:read' } })).toBe('invalid_value');
    expect(given().refused({ kind: 'CreateScope', tenantId: 't', definition: { ...contact, claims: ['password'] } })).toBe('invalid_value');
  });

  it('deletes a scope of the tenant; its name may be defined again', () => {
    const deleted = given([created]).after({ kind: 'DeleteScope', scopeId: 'contact' });
    expect(types(deleted)).toEqual(['ScopeCreated', 'ScopeDeleted']);
    expect(given(deleted).refused({ kind: 'DeleteScope', scopeId: 'contact' })).toBe('not_found');
    expect(given(deleted).when({ kind: 'CreateScope', tenantId: 't', definition: contact })).toEqual([created]);
  });
});
