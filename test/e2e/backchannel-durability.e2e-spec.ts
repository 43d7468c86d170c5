import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as oauth from 'oauth4webapi';
import { exited, startChild } from '../support/child-server.js';
import { ContractFetch } from '../support/contract-fetch.js';
import { LogoutReceiver } from '../support/receiver.js';
import { decodeJwt, RelyingParty } from '../support/rp.js';
import { ALICE_PASSWORD, freePort, REDIRECT, type TestServer } from '../support/server.js';

/**
 * The built server (`dist/`) as a child process, killed with SIGKILL right after a logout,
 * while the receiver is down: whatever the server had done by then, the logout token reaches
 * the receiver once both are up again.
 */
let dataDir: string;
let child: ChildProcess | undefined;
let receiver: LogoutReceiver | undefined;

afterEach(async () => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await receiver?.down();
  rmSync(dataDir, { recursive: true, force: true });
});

it('delivers the logout token after a kill -9 between the logout and the POST', async () => {
  receiver = await LogoutReceiver.create([], false);
  dataDir = mkdtempSync(join(tmpdir(), 'authserver-bc-kill-'));
  writeFileSync(
    join(dataDir, 'bootstrap.yaml'),
    `
tenants:
  - id: acme
    clients:
      - client_id: app
        redirect_uris: ["${REDIRECT}"]
        scope: "openid"
        token_endpoint_auth_method: none
        first_party: true
        backchannel_logout_uri: "${receiver.uri}"
        backchannel_logout_session_required: true
    users:
      - username: alice
        password: "${ALICE_PASSWORD}"
`,
  );
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const env = { ...process.env, PORT: String(port), PUBLIC_URL: baseUrl, DATA_DIR: dataDir, BOOTSTRAP_FILE: join(dataDir, 'bootstrap.yaml'), LOG_LEVEL: 'error' };
  const ready = `${baseUrl}/acme/.well-known/openid-configuration`;
  child = (await startChild(env, ready)).child;

  const server = { baseUrl, issuer: (tenant = 'acme') => `${baseUrl}/${tenant}` } as TestServer;
  const rp = await RelyingParty.discover(server, new ContractFetch());
  rp.auths.set('app', () => oauth.None());
  const browser = rp.browser();
  const tokens = await rp.tokens({ clientId: 'app', scope: 'openid' }, browser);
  const { sid } = decodeJwt(tokens.id_token!).payload;
  const res = await browser.post(rp.as.end_session_endpoint!, { id_token_hint: tokens.id_token! }, new URL(REDIRECT).origin);
  expect(res.status).toBe(200);
  child.kill('SIGKILL');
  await exited(child);
  expect(receiver.received).toEqual([]);

  await receiver.up();
  child = (await startChild(env, ready)).child;
  await receiver.posts(1, 20_000);
  expect(decodeJwt(receiver.tokens[0]).payload).toMatchObject({ sid, aud: 'app', iss: `${baseUrl}/acme` });
});
