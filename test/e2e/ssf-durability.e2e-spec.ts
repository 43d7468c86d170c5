import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exited, startChild } from '../support/child-server.js';
import { decodeJwt } from '../support/rp.js';
import { freePort } from '../support/server.js';

/**
 * The built server (`dist/`) as a child process, killed with SIGKILL right after the events a
 * stream asked for, and again after a poll that acknowledged nothing: every SET is polled after
 * the restarts, the unacknowledged one again with the same jti.
 */
const SECRET = 'receiver-secret-0123456789-0123456789-abcdefgh';
const RISC = 'https://schemas.openid.net/secevent/risc/event-type/';
let dataDir: string;
let child: ChildProcess | undefined;

afterEach(() => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

it('loses no SET to a kill -9, and answers an unacknowledged one again after it', async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'authserver-ssf-kill-'));
  writeFileSync(
    join(dataDir, 'bootstrap.yaml'),
    `
tenants:
  - id: acme
    clients:
      - client_id: receiver
        client_secret: "${SECRET}"
        grant_types: [client_credentials]
        scope: "ssf:manage"
      - client_id: admin
        client_secret: "${SECRET}"
        grant_types: [client_credentials]
        scope: "central:read central:write"
    users:
      - username: bob
        password: "bob's long password"
`,
  );
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const issuer = `${baseUrl}/acme`;
  const env = { ...process.env, PORT: String(port), PUBLIC_URL: baseUrl, DATA_DIR: dataDir, BOOTSTRAP_FILE: join(dataDir, 'bootstrap.yaml'), LOG_LEVEL: 'error' };
  const ready = `${issuer}/.well-known/ssf-configuration`;
  const restart = async () => {
    child!.kill('SIGKILL');
    await exited(child!);
    child = (await startChild(env, ready)).child;
  };
  child = (await startChild(env, ready)).child;

  const token = async (clientId: string, scope: string) => {
    const res = await fetch(`${issuer}/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${clientId}:${SECRET}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', scope }),
    });
    return ((await res.json()) as { access_token: string }).access_token;
  };
  const json = async (method: string, url: string, bearer: string, body?: unknown) => {
    const res = await fetch(url, { method, headers: { authorization: `Bearer ${bearer}`, 'content-type': method === 'PATCH' ? 'application/merge-patch+json' : 'application/json' }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };

  const receiver = await token('receiver', 'ssf:manage');
  const admin = await token('admin', 'central:read central:write');
  const bob = (await json('GET', `${issuer}/configuration/users?username=bob`, admin)).body.items[0].id;
  const stream = (await json('POST', `${issuer}/ssf/stream`, receiver, { events_requested: [`${RISC}account-disabled`, `${RISC}account-enabled`] })).body.stream_id;
  expect((await json('POST', `${issuer}/ssf/subjects/add`, receiver, { stream_id: stream, subject: { format: 'iss_sub', iss: issuer, sub: bob } })).status).toBe(200);
  for (const disabled of [true, false]) expect((await json('PATCH', `${issuer}/configuration/users/${bob}`, admin, { disabled })).status).toBe(200);
  // Killed right after the events were appended: whether or not the SETs were stored by then.
  await restart();

  const poll = async (body: Record<string, unknown>) => {
    const res = await json('POST', `${issuer}/ssf/poll/${stream}`, await token('receiver', 'ssf:manage'), body);
    expect(res.status).toBe(200);
    return res.body as { sets: Record<string, string>; moreAvailable: boolean };
  };
  const first = await poll({ maxEvents: 1 });
  const [jti] = Object.keys(first.sets);
  expect(Object.keys(decodeJwt(first.sets[jti]).payload.events as object)).toEqual([`${RISC}account-disabled`]);
  // Polled, not acknowledged, then killed: answered again, the same SET.
  await restart();
  const again = await poll({ maxEvents: 1, returnImmediately: true });
  expect(again.sets).toEqual(first.sets);
  const rest = await poll({ ack: [jti], returnImmediately: true });
  expect(Object.values(rest.sets).map((s) => Object.keys(decodeJwt(s).payload.events as object)[0])).toEqual([`${RISC}account-enabled`]);
}, 60_000);
