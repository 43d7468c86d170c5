import { JwksServer } from '../../../test/support/jwks-server.js';
import { JwksFetcher, JwksUnavailable, publicSignatureKeys } from './jwks-fetcher.js';

const EC = { kty: 'EC', crv: 'P-256', x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU', y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0', kid: 'a' };

describe('JwksFetcher', () => {
  let host: JwksServer;
  let fetcher: JwksFetcher;
  beforeAll(async () => {
    host = await JwksServer.start();
    fetcher = new JwksFetcher({ timeoutMs: 1500, maxBytes: 4096 });
  });
  afterAll(async () => {
    await fetcher.close();
    await host.close();
  });

  it('fetches a JWK Set and reads its max-age', async () => {
    host.keys('/ok', [EC], 'public, max-age=120');
    expect(await fetcher.fetch(host.url('/ok'), true)).toEqual({ keys: [EC], maxAgeSeconds: 120 });
  });

  // A client that did not come from an administrator never reaches loopback or private hosts.
  it.each(['127.0.0.1', 'localhost', '[::ffff:127.0.0.1]'])('refuses %s unless internal hosts are allowed, without sending a request', async (hostname) => {
    host.keys('/internal', [EC]);
    const before = host.count('/internal');
    await expect(fetcher.fetch(host.url('/internal', hostname), false)).rejects.toThrow(/internal address/);
    expect(host.count('/internal')).toBe(before);
  });

  it.each<[string, (path: string) => void, RegExp]>([
    ['a document over the size cap, by its length', (p) => host.raw(p, JSON.stringify({ keys: Array(100).fill(EC) })), /too large/],
    ['a document over the size cap, sent without a length', (p) => host.raw(p, JSON.stringify({ keys: Array(100).fill(EC) }), {}, true), /too large/],
    ['a document that is not JSON', (p) => host.raw(p, '<html>'), /not return JSON/],
    ['JSON that is no JWK Set', (p) => host.raw(p, '{"kty":"EC"}'), /not return a JWK Set/],
    ['a redirect (not followed)', (p) => host.redirect(p, host.url('/ok')), /answered 302/],
    ['no answer within the timeout', (p) => host.hang(p), /in time/],
  ])('refuses %s', async (_, serve, why) => {
    const path = `/case-${Math.random().toString(36).slice(2)}`;
    serve(path);
    const failed = fetcher.fetch(host.url(path), true);
    await expect(failed).rejects.toBeInstanceOf(JwksUnavailable);
    await expect(failed).rejects.toThrow(why);
  });

  it('refuses a host that is not there', async () => {
    await expect(fetcher.fetch('http://127.0.0.1:1/jwks', true)).rejects.toThrow(/could not be fetched/);
  });

  it('keeps only public signature keys of a document', () => {
    const doc = { keys: [EC, { ...EC, kid: 'enc', use: 'enc' }, { ...EC, kid: 'priv', d: 'x' }, { kty: 'oct', k: 'c2VjcmV0' }, 'junk'] };
    expect(publicSignatureKeys(JSON.stringify(doc))).toEqual([EC]);
  });
});
