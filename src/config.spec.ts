import { loadConfig } from './config.js';

describe('configuration', () => {
  it('takes an http or https PUBLIC_URL, with a path, without its trailing slash', () => {
    expect(loadConfig({ PUBLIC_URL: 'https://id.example.com/auth/' }).publicUrl).toBe('https://id.example.com/auth');
    expect(loadConfig({ PORT: '9000' }).publicUrl).toBe('http://localhost:9000');
    expect(loadConfig({ PORT: '80' }).publicUrl).toBe('http://localhost');
    expect(loadConfig({ PUBLIC_URL: 'http://[::1]:8080' }).publicUrl).toBe('http://[::1]:8080');
    expect(loadConfig({ PUBLIC_URL: 'https://id.example.com:8443/a%2Fb' }).publicUrl).toBe('https://id.example.com:8443/a%2Fb');
  });

  it.each(['HTTPS://ID.example.com', 'https://id.example.com:443', 'https:id.example.com', ' https://id.example.com', 'https://id.example.com\n', 'https://@id.example.com', 'https://h/a/../b', 'https://h/a b'])(
    'refuses PUBLIC_URL=%j, which a URL parser writes otherwise (clients compare issuers character by character)',
    (PUBLIC_URL) => {
      expect(() => loadConfig({ PUBLIC_URL })).toThrow(/PUBLIC_URL must be written as "https:\/\/[^"]+"/);
    },
  );

  it.each(['not-a-url', 'ftp://id.example.com', 'https://id.example.com/?tenant=x', 'https://id.example.com/#top', 'https://id.example.com?', 'https://user:pw@id.example.com'])(
    'refuses PUBLIC_URL=%s: an issuer has no other scheme, query, fragment or credentials (RFC 8414 §2)',
    (PUBLIC_URL) => {
      expect(() => loadConfig({ PUBLIC_URL })).toThrow(/PUBLIC_URL must be an absolute http or https URL/);
    },
  );

  it('logs as text unless LOG_FORMAT=json, and refuses any other format', () => {
    expect(loadConfig({}).logFormat).toBe('text');
    expect(loadConfig({ LOG_FORMAT: 'json' }).logFormat).toBe('json');
    expect(() => loadConfig({ LOG_FORMAT: 'xml' })).toThrow(/LOG_FORMAT must be text or json/);
  });

  it('does not repeat the credentials of a PUBLIC_URL that has some (the message goes to the log)', () => {
    expect(() => loadConfig({ PUBLIC_URL: 'https://admin:s3cret@id.example.com' })).toThrow(/it has credentials$/);
  });
});
