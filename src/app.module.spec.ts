import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppModule } from './app.module.js';
import { KeyRotation } from './central/jwks/key-rotation.js';
import type { Role } from './config.js';
import { ProjectionLeadership } from './infrastructure/read-store/projection-leadership.js';

/** The routes the application of `role` serves, as `METHOD /path` of Fastify's router (the store is a fresh embedded one). */
async function routesOf(role: Role): Promise<((method: string, url: string) => boolean) & { rotatesKeys: boolean; foldsViews: boolean }> {
  const dataDir = mkdtempSync(join(tmpdir(), `role-${role}-`));
  const saved = { ...process.env };
  Object.assign(process.env, { DATA_DIR: dataDir, LOG_LEVEL: 'error' });
  delete process.env.ROLE;
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRole(role), new FastifyAdapter({ exposeHeadRoutes: false }), { logger: false, abortOnError: false });
  try {
    const fastify = app.getHttpAdapter().getInstance();
    const routes = new Set<string>();
    fastify.addHook('onRoute', (r) => {
      for (const method of [r.method].flat()) routes.add(`${method} ${r.url}`);
    });
    await app.init();
    // The proxy's routes are a Fastify plugin's: they are there once Fastify is ready.
    await fastify.ready();
    let rotatesKeys = true;
    try {
      app.get(KeyRotation, { strict: false });
    } catch {
      rotatesKeys = false;
    }
    const foldsViews = app.get(ProjectionLeadership, { strict: false }).leading;
    return Object.assign((method: string, url: string) => routes.has(`${method} ${url}`), { rotatesKeys, foldsViews });
  } finally {
    await app.close();
    process.env = saved;
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** What an edge does not serve; the whole server does. */
const NOT_ON_EDGES = [
  ['POST', '/:tenant/token'], ['GET', '/:tenant/authorize'], ['GET', '/:tenant/configuration/clients'], ['GET', '/:tenant/configuration/edges'],
  ['POST', '/:tenant/configuration/clients/edge-certificate/renew'], ['GET', '/configuration/tenants'], ['GET', '/:tenant/events'],
];

describe('the modules of each ROLE', () => {
  it('ROLE=edge serves the traffic plane only: sign-in, consent, /permissions/me and the proxy, no OAuth endpoint, no admin API, no key rotation', async () => {
    const has = await routesOf('edge');
    expect([has('GET', '/:tenant/login'), has('POST', '/:tenant/login'), has('GET', '/:tenant/permissions/me'), has('GET', '/:tenant/resources/:resourceId/*')]).toEqual([true, true, true, true]);
    for (const [method, url] of NOT_ON_EDGES) expect([method, url, has(method, url)]).toEqual([method, url, false]);
    // Nor the background work of central: automatic key rotation, folding the log into the views.
    expect(has.rotatesKeys).toBe(false);
    expect(has.foldsViews).toBe(false);
  });

  it('ROLE=central serves everything but the traffic plane; no ROLE, everything', async () => {
    const central = await routesOf('central');
    expect([central('POST', '/:tenant/token'), central('GET', '/:tenant/configuration/edges'), central('POST', '/:tenant/configuration/clients/edge-certificate/renew')]).toEqual([true, true, true]);
    expect([central('GET', '/:tenant/login'), central('GET', '/:tenant/permissions/me'), central('GET', '/:tenant/resources/:resourceId/*')]).toEqual([false, false, false]);
    const all = await routesOf('all');
    expect([all('GET', '/:tenant/login'), all('GET', '/:tenant/resources/:resourceId/*')]).toEqual([true, true]);
    for (const [method, url] of NOT_ON_EDGES) expect([method, url, all(method, url)]).toEqual([method, url, true]);
    expect([central.rotatesKeys, all.rotatesKeys]).toEqual([true, true]);
    // Both compete for the projections lease; alone on the store, each takes it.
    expect([central.foldsViews, all.foldsViews]).toEqual([true, true]);
  });
});
