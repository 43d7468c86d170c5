import { unappliedFields } from './create-tenant.command.js';

describe('unappliedFields', () => {
  it('names the fields that differ, by their names in the bootstrap file, lists in any order', () => {
    const stored = { clientId: 'web', scope: ['openid', 'profile'], grantTypes: ['authorization_code', 'refresh_token'], clientName: 'Web', firstParty: false };
    expect(unappliedFields({ ...stored, scope: ['profile', 'openid'], grantTypes: ['refresh_token', 'authorization_code'] }, stored)).toEqual([]);
    expect(unappliedFields({ ...stored, scope: ['openid'], clientName: 'Web app', firstParty: true }, stored)).toEqual(['scope', 'client_name', 'first_party']);
    // A field on one side only differs too.
    const { clientName: _, ...unnamed } = stored;
    expect(unappliedFields(unnamed, stored)).toEqual(['client_name']);
    expect(unappliedFields(stored, unnamed)).toEqual(['client_name']);
  });
});
