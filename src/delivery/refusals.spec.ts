import { logoutRefusal, setRefusal } from './refusals.js';

describe('refusals', () => {
  it('takes an RFC 8935 400 with an err as a refusal of the SET, with its description', () => {
    expect(setRefusal({ status: 400, body: '{"err":"invalid_key","description":"unknown kid"}' })).toBe('invalid_key: unknown kid');
    expect(setRefusal({ status: 400, body: '{"err":"access_denied"}' })).toBe('access_denied');
  });

  it('retries a push answer that is not a 400 with an err: another status, no body, a body that is not such JSON', () => {
    for (const answer of [{ status: 503, body: '{"err":"invalid_request"}' }, { status: 400 }, { status: 400, body: 'Bad Request' }, { status: 400, body: '["err"]' }, { status: 400, body: '{"err":""}' }, { status: 400, body: '{"error":"invalid_request"}' }, { error: 'timeout' }]) {
      expect([answer, setRefusal(answer)]).toEqual([answer, undefined]);
    }
  });

  it('takes every back-channel logout 400 as a refusal, with the RP\'s error when it gives one', () => {
    expect(logoutRefusal({ status: 400, body: '{"error":"invalid_request","error_description":"bad aud"}' })).toBe('invalid_request: bad aud');
    expect(logoutRefusal({ status: 400, body: '' })).toBe('refused (400 Bad Request)');
    expect(logoutRefusal({ status: 500, body: '{"error":"server_error"}' })).toBeUndefined();
    expect(logoutRefusal({ status: 401 })).toBeUndefined();
  });

  it('keeps a recorded error to one bounded line', () => {
    const refused = setRefusal({ status: 400, body: JSON.stringify({ err: 'invalid_request', description: `line\r\nbreak ${'x'.repeat(500)}` }) })!;
    expect(refused.length).toBeLessThanOrEqual(200);
    expect(refused).not.toMatch(/[\r\n]/);
  });
});
