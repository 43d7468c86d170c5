import { types } from '../shared/decider-spec.js';
import { resourceToken } from './resource-target.js';
import { access, code, given, redeem, rotate, started } from './session.fixtures.js';

const ORDERS = { identifier: 'https://api/orders', scopes: ['orders:read', 'orders:write'] };
const BILLING = { identifier: 'https://api/billing', scopes: ['bills:read'] };

describe('resource indicators (RFC 8707) on a session', () => {
  it('leaves a grant without resource and a request without one to the issuer', () => {
    expect(resourceToken(undefined, undefined, ['openid', 'orders:read'])).toBeUndefined();
  });

  it("keeps to the grant's resource, with its scopes and never the OpenID ones", () => {
    expect(resourceToken(ORDERS.identifier, undefined, ['openid', 'offline_access', 'orders:read'])).toEqual({ identifier: ORDERS.identifier, scope: ['orders:read'] });
    expect(resourceToken(ORDERS.identifier, ORDERS, ['openid', 'orders:read', 'bills:read'])).toEqual({ identifier: ORDERS.identifier, scope: ['orders:read'] });
    expect(() => resourceToken(ORDERS.identifier, BILLING, ['bills:read'])).toThrow(expect.objectContaining({ code: 'invalid_target' }));
    // A grant made without a resource may name any; it may hold none of its scopes.
    expect(resourceToken(undefined, BILLING, ['openid', 'orders:read'])).toEqual({ identifier: BILLING.identifier, scope: [] });
  });

  it("issues the code's access token for its resource and keeps the resource with the grant's refresh token", () => {
    const withCode = given(started).after({ kind: 'IssueCode', code: { ...code, scope: ['openid', 'offline_access', 'orders:read'], resource: ORDERS.identifier } });
    const events = given(withCode).when(redeem());
    expect(events.find((e) => e.type === 'AccessTokenIssued')!.data).toMatchObject({ audience: [ORDERS.identifier], scope: ['orders:read'], idToken: expect.anything() });
    expect(events.find((e) => e.type === 'RefreshTokenIssued')!.data).toMatchObject({ resource: ORDERS.identifier, scope: ['openid', 'offline_access', 'orders:read'] });
    expect(given(withCode).refused(redeem({ target: BILLING }))).toBe('invalid_target');
    const redeemed = [...withCode, ...events];
    expect(given(redeemed).when(rotate('r1', 'r2')).find((e) => e.type === 'AccessTokenIssued')!.data).toMatchObject({ audience: [ORDERS.identifier], scope: ['orders:read'] });
    expect(given(redeemed).refused(rotate('r1', 'r2', { target: BILLING }))).toBe('invalid_target');
  });
});

describe('dpop_jkt (RFC 9449 §10) on a session', () => {
  const bound = given(started).after({ kind: 'IssueCode', code: { ...code, dpopJkt: 'k'.repeat(43) } });

  it('redeems a bound code only with a proof of its key, and a wrong key revokes nothing', () => {
    expect(given(bound).refused(redeem())).toBe('code_invalid');
    expect(given(bound).refused(redeem({ access: { ...access('at1'), jkt: 'x'.repeat(43) } }))).toBe('code_invalid');
    const events = given(bound).when(redeem({ access: { ...access('at1'), jkt: 'k'.repeat(43) } }));
    expect(types(events)).toEqual(['CodeRedeemed', 'AccessTokenIssued', 'RefreshTokenIssued']);
    // The replay of the redeemed code without its key is refused before it could revoke the grant.
    expect(given([...bound, ...events]).refused(redeem())).toBe('code_invalid');
  });
});
