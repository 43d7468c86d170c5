import { loadConfig } from './config.js';

describe('configuration', () => {
  it('takes an http or https PUBLIC_URL, with a path, without its trailing slash', () => {
    expect(loadConfig({ PUBLIC_URL: 'https://id.example.com/auth/' }).publicUrl).toBe('https://id.example.com/auth');
    expect(loadConfig({ PORT: '9000' }).publicUrl).toBe('http://localhost:9000');
  });

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
});
