import { redirectUriMatches, validateRedirectUri } from './redirect-uri.js';

describe('redirect URI matching', () => {
  const registered = ['http://127.0.0.1:9999/cb', 'https://app.example.com/cb', 'http://[::1]/cb?x=1'];

  it('accepts the registered URIs exactly, and a loopback URI on any port', () => {
    for (const uri of [...registered, 'http://127.0.0.1/cb', 'http://127.0.0.1:1/cb', 'http://[::1]:65535/cb?x=1']) expect(redirectUriMatches(registered, uri)).toBe(true);
  });

  it('refuses every other spelling, even one that parses to the same URL', () => {
    const others = [
      'https://app.example.com/cb/',
      'https://APP.example.com/cb',
      'https://app.example.com:443/cb',
      'http://0x7f.1:9999/cb',
      'http://2130706433:9999/cb',
      'http://127.1:9999/cb',
      'http://%31%32%37.0.0.1:9999/cb',
      'http://127.0.0.1.:9999/cb',
      'http://127.0.0.1:9999/a/../cb',
      'http://127.0.0.1:9999\\cb',
      'http://127.0.0.1:99\t99/cb',
      'http://127.0.0.1:99999/cb',
      'http://127.0.0.1:09999/cb',
      'http://127.0.0.1:0/cb',
      'http://127.0.0.1:/cb',
      'http://127.0.0.1:9999/cb?x=1',
      'http://[::1]/cb',
      'http://[0:0:0:0:0:0:0:1]/cb?x=1',
    ];
    for (const uri of others) expect({ uri, matches: redirectUriMatches(registered, uri) }).toEqual({ uri, matches: false });
  });

  it('registers a loopback URI only as it is matched: lower-case host, a port written plainly', () => {
    for (const uri of ['http://127.0.0.1/cb', 'http://127.0.0.1:8080/cb', 'http://[::1]:65535/cb', 'http://localhost/cb?x=1']) expect(() => validateRedirectUri(uri)).not.toThrow();
    for (const uri of ['http://127.0.0.1:09999/cb', 'http://127.0.0.1:0/cb', 'http://LOCALHOST/cb']) expect(() => validateRedirectUri(uri)).toThrow(/must be written plainly/);
  });
});
