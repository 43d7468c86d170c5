import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startChild, stopChild } from '../support/child-server.js';
import { freePort } from '../support/server.js';

const hasCurl = () => {
  try {
    execFileSync('curl', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};

/** `npm start` on an empty store with no BOOTSTRAP_FILE: the demo tenant, its credentials and the curl hint. */
it('creates the demo tenant on an empty store and prints how to try it', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'authserver-demo-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  // NO_COLOR would hide colour codes whatever the server decides.
  const { NO_COLOR: _, ...inherited } = process.env;
  const env = { ...inherited, PORT: String(port), PUBLIC_URL: base, DATA_DIR: dataDir, LOG_LEVEL: 'info', BOOTSTRAP_FILE: '' };
  const server = await startChild(env, `${base}/demo/.well-known/openid-configuration`);
  try {
    const demo = JSON.parse(readFileSync(join(dataDir, 'demo-credentials.json'), 'utf8')) as Record<string, string>;
    expect(server.output()).toContain(`curl -s -u ${demo.client_id}:${demo.client_secret} -d grant_type=client_credentials ${base}/demo/token`);
    // Its output is no terminal: no colour codes.
    expect(server.output()).not.toMatch(/\u001b\[/);
    const res = await fetch(`${base}/demo/token`, {
      method: 'POST',
      headers: { authorization: 'Basic ' + Buffer.from(`${demo.client_id}:${demo.client_secret}`).toString('base64'), 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { token_type: string }).token_type).toBe('Bearer');
    // The operator tenant's admin client lists every tenant, as the printed line does.
    const adminToken = await fetch(`${base}/operator/token`, {
      method: 'POST',
      headers: { authorization: 'Basic ' + Buffer.from(`${demo.admin_client_id}:${demo.admin_client_secret}`).toString('base64'), 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
    }).then(async (r) => ((await r.json()) as { access_token: string; scope: string }));
    expect(adminToken.scope).toBe('central:read central:write central:audit');
    const tenants = (await (await fetch(`${base}/configuration/tenants`, { headers: { authorization: `Bearer ${adminToken.access_token}` } })).json()) as { items: Array<{ id: string }> };
    expect(tenants.items.map((t) => t.id)).toEqual(['demo', 'operator']);
    const line = server.output().split('\n').find((l) => l.includes('admin API (operator tenant): '));
    expect(line).toContain(`curl -s -u operator-admin:${demo.admin_client_secret} -d grant_type=client_credentials ${base}/operator/token`);
    if (hasCurl()) {
      const printed = line!.slice(line!.indexOf('admin API (operator tenant): ') + 'admin API (operator tenant): '.length);
      expect(JSON.parse(execFileSync('bash', ['-c', printed], { encoding: 'utf8' })).items).toHaveLength(2);
    }
    const metadata = (await (await fetch(`${base}/demo/.well-known/openid-configuration`)).json()) as { issuer: string };
    expect(metadata.issuer).toBe(`${base}/demo`);
    // Hashes, sealed keys and the demo credentials: readable by the owner only.
    const modes = Object.fromEntries(readdirSync(dataDir).map((f) => [f, (statSync(join(dataDir, f)).mode & 0o777).toString(8)]));
    expect(modes).toMatchObject({ 'authserver.db': '600', 'authserver.db-wal': '600', 'key-encryption.key': '600', 'demo-credentials.json': '600' });
    expect(Object.values(modes).every((m) => m === '600')).toBe(true);
  } finally {
    await stopChild(server.child);
  }
  // A later start names the file: a log is kept and shipped where the credentials file is not.
  const demo = JSON.parse(readFileSync(join(dataDir, 'demo-credentials.json'), 'utf8')) as Record<string, string>;
  const again = await startChild(env, `${base}/demo/.well-known/openid-configuration`);
  try {
    expect(again.output()).toContain(`curl -s -u ${demo.client_id}:<client_secret> -d grant_type=client_credentials ${base}/demo/token`);
    expect(again.output()).toContain(join(dataDir, 'demo-credentials.json'));
    expect(again.output()).not.toContain(demo.client_secret);
    expect(again.output()).not.toContain(demo.password);
  } finally {
    await stopChild(again.child);
  }
  try {
    // Another key-encryption key than the one that sealed the signing keys: no start, and a reason.
    const otherKey = Buffer.alloc(32, 9).toString('base64');
    const attempt = await startChild({ ...env, KEY_ENCRYPTION_KEY: otherKey }, `${base}/demo/.well-known/openid-configuration`).then(
      (started) => {
        started.child.kill('SIGKILL');
        return 'started';
      },
      (e: Error) => e.message,
    );
    expect(attempt).toMatch(/signing keys of tenant demo cannot be opened/);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

it('logs one JSON object per line with LOG_FORMAT=json', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'authserver-json-log-'));
  const port = await freePort();
  const env = { ...process.env, PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'info', LOG_FORMAT: 'json', BOOTSTRAP_FILE: '' };
  const server = await startChild(env, `http://127.0.0.1:${port}/demo/.well-known/openid-configuration`);
  try {
    await stopChild(server.child);
    const lines = server.output().trim().split('\n');
    const entries = lines.map((line) => JSON.parse(line) as { level: string; message: string; context?: string });
    expect(entries.every((e) => typeof e.level === 'string' && typeof e.message === 'string')).toBe(true);
    expect(entries.some((e) => e.context === 'Server' && e.message.startsWith(`listening on port ${port}`))).toBe(true);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

it('warns, naming the fields, when BOOTSTRAP_FILE asks for other values than an existing tenant, client or user has, and leaves them as they are', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'authserver-seed-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const file = join(dataDir, 'seed.yaml');
  const seed = (secret: string, scope: string, ttl: number, name: string) => `
tenants:
  - id: acme
    access_token_ttl: ${ttl}
    clients:
      - client_id: service
        client_secret: "${secret}"
        grant_types: [client_credentials]
        scope: "${scope}"
    users:
      - username: alice
        password: "correct horse battery staple"
        name: "${name}"
`;
  const first = 'a'.repeat(40);
  const env = { ...process.env, PORT: String(port), PUBLIC_URL: base, DATA_DIR: dataDir, LOG_LEVEL: 'info', BOOTSTRAP_FILE: file };
  const ready = `${base}/acme/.well-known/openid-configuration`;
  try {
    writeFileSync(file, seed(first, 'orders:read', 300, 'Alice'));
    const created = await startChild(env, ready);
    await stopChild(created.child);
    expect(created.output()).not.toContain('already exists');
    // The same file again: nothing to say but that the user's password is not compared.
    const same = await startChild(env, ready);
    await stopChild(same.child);
    expect(same.output()).not.toContain('already exists');
    expect(same.output()).toContain('1 user(s) already existed; their passwords in the file are neither compared nor applied');
    writeFileSync(file, seed('b'.repeat(40), 'orders:read orders:write', 60, 'Alice Liddell'));
    const changed = await startChild(env, ready);
    try {
      const out = changed.output();
      expect(out).toContain(`${file}: tenants[0] already exists and is left as it is; the file's access_token_ttl differs`);
      expect(out).toContain(`${file}: tenants[0].clients[0] already exists and is left as it is; the file's scope, client_secret differ`);
      expect(out).toContain(`${file}: tenants[0].users[0] already exists and is left as it is; the file's claims.name differs`);
      // Left as it is: the first secret still authenticates the client.
      const res = await fetch(`${base}/acme/token`, {
        method: 'POST',
        headers: { authorization: 'Basic ' + Buffer.from(`service:${first}`).toString('base64'), 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=client_credentials',
      });
      expect(res.status).toBe(200);
    } finally {
      await stopChild(changed.child);
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
