import { patternMatches, routeFor, routesFault, type ResourceRoute } from './resource-routes.js';

const seg = (p: string) => (p === '/' ? [] : p.slice(1).split('/'));

describe('resource routes', () => {
  it('matches literal segments, * as one segment and ** as the rest', () => {
    expect(patternMatches('/', seg('/'))).toBe(true);
    expect(patternMatches('/', seg('/a'))).toBe(false);
    expect(patternMatches('/invoices', seg('/invoices'))).toBe(true);
    expect(patternMatches('/invoices', seg('/invoices/1'))).toBe(false);
    expect(patternMatches('/invoices/*', seg('/invoices/1'))).toBe(true);
    expect(patternMatches('/invoices/*', seg('/invoices'))).toBe(false);
    expect(patternMatches('/invoices/*', seg('/invoices/1/lines'))).toBe(false);
    expect(patternMatches('/invoices/**', seg('/invoices'))).toBe(true);
    expect(patternMatches('/invoices/**', seg('/invoices/1/lines'))).toBe(true);
    expect(patternMatches('/invoices/**', seg('/invoicesX/1'))).toBe(false);
    expect(patternMatches('/**', seg('/'))).toBe(true);
  });

  it('takes the first route of the method that covers the path', () => {
    const routes: ResourceRoute[] = [
      { methods: ['GET'], path: '/health', permissions: [], public: true },
      { methods: ['GET'], path: '/invoices/**', permissions: ['invoices:read'] },
      { methods: ['*'], path: '/invoices/**', permissions: ['invoices:write'] },
    ];
    expect(routeFor(routes, 'GET', seg('/health'))).toBe(routes[0]);
    expect(routeFor(routes, 'POST', seg('/health'))).toBeUndefined();
    expect(routeFor(routes, 'HEAD', seg('/health'))).toBe(routes[0]);
    expect(routeFor(routes, 'GET', seg('/invoices/7'))).toBe(routes[1]);
    expect(routeFor(routes, 'DELETE', seg('/invoices/7'))).toBe(routes[2]);
    expect(routeFor(routes, 'GET', seg('/other'))).toBeUndefined();
  });

  it('refuses bad patterns, methods, permissions and identity headers', () => {
    const r = (o: Partial<ResourceRoute>): ResourceRoute[] => [{ methods: ['GET'], path: '/a', permissions: [], ...o }];
    expect(routesFault(r({}), undefined)).toBeUndefined();
    expect(routesFault(r({ path: 'a' }), undefined)).toMatch(/path/);
    expect(routesFault(r({ path: '/a//b' }), undefined)).toMatch(/segment/);
    expect(routesFault(r({ path: '/a/../b' }), undefined)).toMatch(/segment/);
    expect(routesFault(r({ path: '/a/%2e%2e' }), undefined)).toMatch(/segment/);
    expect(routesFault(r({ path: '/**/a' }), undefined)).toMatch(/last/);
    expect(routesFault(r({ methods: ['get'] }), undefined)).toMatch(/methods/);
    expect(routesFault(r({ methods: [] }), undefined)).toMatch(/methods/);
    expect(routesFault(r({ permissions: ['has space'] }), undefined)).toMatch(/permissions/);
    expect(routesFault(r({ public: true, permissions: ['a'] }), undefined)).toMatch(/public/);
    expect(routesFault([], 'x-caller')).toBeUndefined();
    for (const h of ['authorization', 'cookie', 'host', 'connection', 'X-Identity', 'bad header']) expect(routesFault([], h)).toMatch(/identity_header/);
  });
});
