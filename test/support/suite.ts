import { ContractFetch } from './contract-fetch.js';
import { RelyingParty } from './rp.js';
import { startTestServer, type TestServer } from './server.js';

type ServerOptions = Parameters<typeof startTestServer>[1];

export interface Suite {
  server: TestServer;
  rp: RelyingParty;
  contract: ContractFetch;
}

/**
 * The hooks every end-to-end file shares: before all, a fresh server (with `bootstrap`, or what
 * it resolves to, and `options`) and a relying party on it, handed to `ready`; after each test, no response
 * may have departed from its OpenAPI file; after all, the server stops. Returns the
 * contract-checking fetch.
 */
export function endToEnd(ready: (suite: Suite) => unknown, bootstrap?: string | (() => Promise<string>), options?: ServerOptions): ContractFetch {
  const contract = new ContractFetch();
  let server: TestServer | undefined;
  beforeAll(async () => {
    server = await startTestServer(typeof bootstrap === 'function' ? await bootstrap() : bootstrap, options);
    await ready({ server, rp: await RelyingParty.discover(server, contract), contract });
  });
  afterAll(async () => {
    await server?.close();
  });
  afterEach(() => {
    expect(contract.violations.splice(0)).toEqual([]);
  });
  return contract;
}
