import { parseProxyTarget, upstreamPath, type ProxyTarget } from './proxy-path.js';

const ok = (url: string) => parseProxyTarget(url) as ProxyTarget;

describe('proxy paths', () => {
  it('splits the tenant, the resource and the decoded segments below it', () => {
    expect(ok('/acme/resources/invoices')).toEqual({ tenantId: 'acme', resourceId: 'invoices', segments: [], trailingSlash: false, search: '' });
    expect(ok('/acme/resources/invoices/')).toMatchObject({ segments: [], trailingSlash: false });
    expect(ok('/acme/resources/invoices/a/b%20c/?x=%2F..')).toEqual({ tenantId: 'acme', resourceId: 'invoices', segments: ['a', 'b c'], trailingSlash: true, search: '?x=%2F..' });
    expect(ok('/acme/resources/invoices/%C3%A9t%C3%A9')).toMatchObject({ segments: ['été'] });
  });

  it('refuses whatever the upstream could read another way', () => {
    for (const url of [
      '/acme/resources/invoices/a/../admin',
      '/acme/resources/invoices/a/%2e%2e/admin',
      '/acme/resources/invoices/a/%2E%2E',
      '/acme/resources/invoices/.%2e/x',
      '/acme/resources/invoices/./a',
      '/acme/resources/invoices/a%2fb',
      '/acme/resources/invoices/a%2Fb',
      '/acme/resources/invoices/a%5cb',
      '/acme/resources/invoices/a\\b',
      '/acme/resources/invoices//a',
      '/acme/resources/invoices/a//b',
      '/acme/resources/invoices/%252e%252e',
      '/acme/resources/invoices/a%00',
      '/acme/resources/invoices/%ff',
      '/acme/resources/%2e%2e/x',
      '/acme/resources/../x',
      '/acme/other/invoices/a',
      '/acme/resources/./x',
    ]) {
      expect([url, typeof parseProxyTarget(url)]).toEqual([url, "string"]);
    }
  });

  it('sends the checked segments, each encoded one way, below the upstream base path', () => {
    expect(upstreamPath('/', ok('/acme/resources/r'))).toBe('/');
    expect(upstreamPath('', ok('/acme/resources/r/a/b'))).toBe('/a/b');
    expect(upstreamPath('/api/', ok('/acme/resources/r/a%20b/c:d@e/?q=1'))).toBe('/api/a%20b/c:d@e/?q=1');
    expect(upstreamPath('/api', ok('/acme/resources/r/%41'))).toBe('/api/A');
  });
});
