import { unappliedFields } from './create-tenant.command.js';

describe('unappliedFields', () => {
  it('names the fields that differ, by their names in the bootstrap file, lists in any order', () => {
    const stored = { clientId: 'web', scope: ['openid', 'profile'], grantTypes: ['authorization_code', 'refresh_token'], secretHash: 'sha256:a', firstParty: false };
    expect(unappliedFields({ ...stored, scope: ['profile', 'openid'], grantTypes: ['refresh_token', 'authorization_code'] }, stored)).toEqual([]);
    expect(unappliedFields({ ...stored, scope: ['openid'], secretHash: 'sha256:b', firstParty: true }, stored)).toEqual(['scope', 'client_secret', 'first_party']);
    // A field on one side only differs too.
    const { secretHash: _, ...publicClient } = stored;
    expect(unappliedFields(publicClient, stored)).toEqual(['client_secret']);
    expect(unappliedFields(stored, publicClient)).toEqual(['client_secret']);
  });
});
