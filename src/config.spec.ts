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

  it('trusts no X-Forwarded-For unless TRUST_PROXY names the proxies', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'loopback, 10.0.0.0/8,fd00::/8, 192.0.2.7' }).trustProxy).toEqual(['loopback', '10.0.0.0/8', 'fd00::/8', '192.0.2.7']);
  });

  it.each(['true', '*', '0', '2', '10.0.0.0/33', '::1/129', '10.0.0.0/8/1', 'proxy.example.com', 'loopback,', '10.0.0.0/08x'])(
    'refuses TRUST_PROXY=%j: every client could name its own address, or the entry is no address',
    (TRUST_PROXY) => {
      expect(() => loadConfig({ TRUST_PROXY })).toThrow(/TRUST_PROXY must be a comma-separated list of the proxies' addresses/);
    },
  );

  it('reads the sign-in limits, with their defaults, and refuses what is no whole number in range', () => {
    expect(loadConfig({}).signIn).toMatchObject({ hashQueue: 16, usernameFailures: 5, addressFailures: 30, tenantFailures: 1000, windowSeconds: 900, passwordMinLength: 8 });
    expect(loadConfig({}).signIn.hashConcurrency).toBeGreaterThanOrEqual(1);
    expect(loadConfig({ PASSWORD_HASH_CONCURRENCY: '2', PASSWORD_HASH_QUEUE: '0', SIGNIN_WINDOW: '60' }).signIn).toMatchObject({ hashConcurrency: 2, hashQueue: 0, windowSeconds: 60 });
    expect(() => loadConfig({ PASSWORD_HASH_CONCURRENCY: '0' })).toThrow('PASSWORD_HASH_CONCURRENCY must be a whole number of at least 1, got "0"');
    expect(() => loadConfig({ SIGNIN_ADDRESS_FAILURES: '1e3' })).toThrow('SIGNIN_ADDRESS_FAILURES must be a whole number of at least 1, got "1e3"');
  });
});

describe('ROLE', () => {
  const stores = { EVENTSTORE_URL: 'esdb://es:2113?tls=false', MONGODB_URL: 'mongodb://mongo:27017/auth' };

  it('reads how often view caches catch up and the projection lease, with their defaults, and refuses what is out of range', () => {
    expect(loadConfig({}).views).toEqual({ syncMs: 1000, leaseMs: 15000 });
    expect(loadConfig({ VIEW_SYNC_MS: '250', PROJECTIONS_LEASE_MS: '5000' }).views).toEqual({ syncMs: 250, leaseMs: 5000 });
    expect(() => loadConfig({ VIEW_SYNC_MS: '5' })).toThrow('VIEW_SYNC_MS must be a whole number of at least 10, got "5"');
    expect(() => loadConfig({ PROJECTIONS_LEASE_MS: '1s' })).toThrow('PROJECTIONS_LEASE_MS must be a whole number of at least 1000');
  });

  it('serves everything unset; edge or central with EventStoreDB and MongoDB', () => {
    expect(loadConfig({}).role).toBe('all');
    expect(loadConfig({ ROLE: 'edge', ...stores }).role).toBe('edge');
    expect(loadConfig({ ROLE: 'central', ...stores }).role).toBe('central');
  });

  it('refuses edge or central on the embedded store, saying it serves one process, and refuses other roles', () => {
    expect(() => loadConfig({ ROLE: 'edge' })).toThrow('ROLE=edge needs EVENTSTORE_URL and MONGODB_URL: the embedded store (a SQLite file in DATA_DIR) serves one process only');
    expect(() => loadConfig({ ROLE: 'edge', EVENTSTORE_URL: stores.EVENTSTORE_URL })).toThrow(/ROLE=edge needs EVENTSTORE_URL and MONGODB_URL/);
    expect(() => loadConfig({ ROLE: 'central', MONGODB_URL: stores.MONGODB_URL })).toThrow(/ROLE=central needs EVENTSTORE_URL and MONGODB_URL/);
    expect(() => loadConfig({ ROLE: 'auth' })).toThrow('ROLE must be edge or central (or unset, for everything), got "auth"');
  });
});
