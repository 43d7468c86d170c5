import { givenFor, types } from '../shared/decider-spec.js';
import { ssfStreamDecider } from './ssf-stream.decider.js';
import { POLL_METHOD, type SsfStreamEvent, type StreamSettings } from './ssf-stream.events.js';

const given = givenFor(ssfStreamDecider);
const settings: StreamSettings = { eventsRequested: ['https://schemas.openid.net/secevent/caep/event-type/session-revoked'], delivery: { method: POLL_METHOD } };
const created: SsfStreamEvent = { type: 'SsfStreamCreated', data: { tenantId: 'acme', streamId: 's1', clientId: 'rcv', ...settings } };

describe('SSF stream decider', () => {
  it('creates a stream once', () => {
    expect(types(given().when({ kind: 'CreateStream', tenantId: 'acme', streamId: 's1', clientId: 'rcv', settings }))).toEqual(['SsfStreamCreated']);
    expect(given([created]).refused({ kind: 'CreateStream', tenantId: 'acme', streamId: 's1', clientId: 'rcv', settings })).toBe('already_exists');
  });

  it("hides another receiver's stream, and a deleted one, as not found", () => {
    expect(given([created]).refused({ kind: 'SetStatus', clientId: 'other', status: 'paused' })).toBe('not_found');
    const deleted = given([created]).after({ kind: 'DeleteStream', clientId: 'rcv' });
    expect(given(deleted).refused({ kind: 'RequestVerification', clientId: 'rcv' })).toBe('not_found');
  });

  it('records a change only when something changes', () => {
    expect(given([created]).when({ kind: 'UpdateStream', clientId: 'rcv', settings })).toEqual([]);
    expect(given([created]).when({ kind: 'SetStatus', clientId: 'rcv', status: 'enabled' })).toEqual([]);
    const paused = given([created]).after({ kind: 'SetStatus', clientId: 'rcv', status: 'paused', reason: 'maintenance' });
    expect(given(paused).state).toMatchObject({ status: 'paused', reason: 'maintenance' });
    const resumed = given(paused).after({ kind: 'SetStatus', clientId: 'rcv', status: 'enabled' });
    expect(given(resumed).state.reason).toBeUndefined();
  });

  it('adds a subject once, and removes only one it holds', () => {
    const added = given([created]).after({ kind: 'AddSubject', clientId: 'rcv', subject: 'iss_sub:u1' });
    expect(given(added).when({ kind: 'AddSubject', clientId: 'rcv', subject: 'iss_sub:u1' })).toEqual([]);
    expect(given(added).state.subjects).toEqual(['iss_sub:u1']);
    expect(given(added).refused({ kind: 'RemoveSubject', clientId: 'rcv', subject: 'email:a@b.c' })).toBe('not_found');
    expect(given(given(added).after({ kind: 'RemoveSubject', clientId: 'rcv', subject: 'iss_sub:u1' })).state.subjects).toEqual([]);
  });
});
