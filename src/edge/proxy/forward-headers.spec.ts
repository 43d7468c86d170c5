import { clientResponseHeaders, foreignCookies, upstreamRequestHeaders } from './forward-headers.js';

const f = { identityHeader: 'x-caller', identity: 'jwt', host: 'id.example.com', proto: 'https', requestId: 'r1', clientIp: '10.0.0.1' };

describe('forwarded headers', () => {
  it("drops hop-by-hop fields, the Connection header's, credentials, client-written identity and forwarding fields", () => {
    const out = upstreamRequestHeaders(
      {
        host: 'evil', connection: 'keep-alive, x-secret', 'x-secret': '1', 'keep-alive': 'timeout=5', te: 'trailers', 'transfer-encoding': 'chunked', upgrade: 'h2c',
        'proxy-authorization': 'x', authorization: 'Bearer t', dpop: 'p', 'x-identity': 'forged', 'x-caller': 'forged', 'x-forwarded-for': '1.2.3.4', forwarded: 'for=1.2.3.4',
        'x-request-id': 'mine', expect: '100-continue', accept: 'application/json', 'content-type': 'text/plain', 'content-length': '3',
      },
      f,
    );
    expect(out).toEqual({ accept: 'application/json', 'content-type': 'text/plain', 'content-length': '3', 'x-caller': 'jwt', 'x-forwarded-for': '10.0.0.1', 'x-forwarded-host': 'id.example.com', 'x-forwarded-proto': 'https', 'x-request-id': 'r1' });
  });

  it('passes the token only when asked, and no identity on a public route', () => {
    const out = upstreamRequestHeaders({ authorization: 'Bearer t', 'x-caller': 'forged' }, { ...f, identity: undefined, authorization: 'Bearer t' });
    expect(out.authorization).toBe('Bearer t');
    expect(out['x-caller']).toBeUndefined();
  });

  it("keeps the client's other cookies and drops the edge's", () => {
    expect(foreignCookies('sid=a; app=1; interaction-xyz=n; __Host-sid.acme=b; device=d; theme=dark; logout-relay=r')).toBe('app=1; theme=dark');
    expect(foreignCookies('sid=a')).toBeUndefined();
  });

  it("passes the upstream's end-to-end response headers back", () => {
    expect(clientResponseHeaders({ 'content-type': 'text/plain', connection: 'close, x-hop', 'x-hop': '1', 'transfer-encoding': 'chunked', 'set-cookie': ['a=1', 'b=2'], 'x-request-id': 'up' })).toEqual({
      'content-type': 'text/plain',
      'set-cookie': ['a=1', 'b=2'],
    });
  });
});
