import { isInternalHost } from '../../shared/address-policy.js';
import { validateBackchannelLogoutUri } from './backchannel-logout-uri.js';

describe('backchannel_logout_uri', () => {
  it('takes https anywhere, and http on loopback and private networks only', () => {
    for (const ok of ['https://rp.example.com/bc', 'http://127.0.0.1/bc', 'http://127.8.0.1:9/bc', 'http://localhost:3000/bc', 'http://10.0.0.1/bc', 'http://172.16.0.1/bc', 'http://172.31.255.255/bc', 'http://192.168.1.1/bc', 'http://[::1]/bc', 'http://[fd00::1]/bc']) {
      expect(() => validateBackchannelLogoutUri(ok)).not.toThrow();
    }
    for (const bad of ['http://rp.example.com/bc', 'http://172.32.0.1/bc', 'http://11.0.0.1/bc', 'http://[2001:db8::1]/bc', 'https://rp.example.com/bc#f', 'https://u:p@rp.example.com/bc', 'ws://127.0.0.1/bc', 'javascript:alert(1)', 'bc']) {
      expect(() => validateBackchannelLogoutUri(bad)).toThrow(/backchannel_logout_uri/);
    }
  });

  it('does not count a name that only looks private as internal', () => {
    expect(isInternalHost('10.0.0.1.example.com')).toBe(false);
    expect(isInternalHost('localhost.example.com')).toBe(false);
  });
});
