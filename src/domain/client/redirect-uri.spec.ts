import { redirectUriMatches, validateRedirectUri, withResponseParams } from './redirect-uri.js';

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

describe('response parameters added to a redirect URI', () => {
  it('keeps the query the URI was registered with as written (RFC 6749 §3.1.2)', () => {
    expect(withResponseParams('https://rp.example/cb?x=1&y=a%20b', { code: 'c1', state: 'a b&c' })).toBe('https://rp.example/cb?x=1&y=a%20b&code=c1&state=a+b%26c');
    expect(withResponseParams('https://rp.example/cb?flag', { code: 'c1' })).toBe('https://rp.example/cb?flag&code=c1');
    expect(withResponseParams('https://rp.example/cb?', { code: 'c1' })).toBe('https://rp.example/cb?code=c1');
    expect(withResponseParams('com.example.app:/cb', { code: 'c1', state: undefined })).toBe('com.example.app:/cb?code=c1');
    expect(withResponseParams('https://rp.example/bye?x=1', { state: undefined })).toBe('https://rp.example/bye?x=1');
    expect(withResponseParams('https://rp.example/bye', {})).toBe('https://rp.example/bye');
    // Only what a URL may not hold is escaped.
    expect(withResponseParams('https://rp.example/a b?q="x y"', { code: 'c1' })).toBe('https://rp.example/a%20b?q=%22x%20y%22&code=c1');
  });

  it('replaces registered parameters of the names it adds, however they are spelled', () => {
    expect(withResponseParams('https://rp.example/cb?state=fixed&%73tate=x&iss=me&keep=1', { code: 'c1', state: 's', iss: 'https://as' })).toBe(
      'https://rp.example/cb?keep=1&code=c1&state=s&iss=https%3A%2F%2Fas',
    );
    expect(withResponseParams('https://rp.example/cb?%zz=1', { code: 'c1' })).toBe('https://rp.example/cb?%zz=1&code=c1');
  });
});
