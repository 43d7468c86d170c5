import { given } from '../shared/decider-spec.js';
import { type ChallengesCommand, challengesDecider } from './challenges.decider.js';
import type { ChallengesDefinition } from './challenges.events.js';

const set = (definition: ChallengesDefinition, emailAvailable = true): ChallengesCommand => ({ kind: 'SetChallenges', tenantId: 't', definition, emailAvailable });
const totpRequired: ChallengesDefinition = { factors: { totp: 'required' }, clients: { kiosk: { totp: 'off' } } };

describe('challenges decider', () => {
  it('records the whole definition, and nothing when it is unchanged', () => {
    expect(given(challengesDecider).when(set(totpRequired))).toEqual([{ type: 'ChallengesChanged', data: { tenantId: 't', ...totpRequired } }]);
    expect(given(challengesDecider, given(challengesDecider).after(set(totpRequired))).when(set(totpRequired))).toEqual([]);
  });

  it('refuses unknown factors and policies', () => {
    expect(given(challengesDecider).refused(set({ factors: { sms: 'required' } as never, clients: {} }))).toBe('invalid_value');
    expect(given(challengesDecider).refused(set({ factors: { totp: 'always' } as never, clients: {} }))).toBe('invalid_value');
    expect(given(challengesDecider).refused(set({ factors: {}, clients: { web: { totp: 'maybe' } as never } }))).toBe('invalid_value');
  });

  it('refuses e-mail codes when the server cannot send mail', () => {
    expect(given(challengesDecider).refused(set({ factors: { email_otp: 'optional' }, clients: {} }, false))).toBe('invalid_value');
    expect(given(challengesDecider).refused(set({ factors: { email_otp: 'off' }, clients: {} }, false))).toBe('no error');
  });

  it('deletes only what exists', () => {
    expect(given(challengesDecider).refused({ kind: 'DeleteChallenges' })).toBe('not_found');
    expect(given(challengesDecider, given(challengesDecider).after(set(totpRequired))).when({ kind: 'DeleteChallenges' })).toEqual([{ type: 'ChallengesDeleted', data: { tenantId: 't' } }]);
  });
});
