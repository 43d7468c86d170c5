import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { internalLiteral, publicOnlyLookup } from '../shared/address-policy.js';
import { ReceiverPools } from './receiver-pools.js';

describe('ReceiverPools', () => {
  let server: Server;
  let base: string;
  const sockets = new Set<unknown>();
  let answer: (res: import('node:http').ServerResponse) => void;

  beforeAll(async () => {
    server = createServer((req, res) => {
      sockets.add(req.socket);
      req.resume();
      req.on('end', () => answer(res));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it('sends one after another over one kept-alive connection', async () => {
    const pools = new ReceiverPools(1, 2000);
    answer = (res) => res.writeHead(200).end('ok');
    sockets.clear();
    for (let i = 0; i < 5; i++) expect(await pools.post(`${base}/logout`, { 'content-type': 'text/plain' }, `n=${i}`, 0)).toEqual({ status: 200 });
    expect(sockets.size).toBe(1);
    await pools.close();
  });

  it('never follows a redirect, and names a receiver that does not answer in time a timeout', async () => {
    const pools = new ReceiverPools(1, 200);
    answer = (res) => res.writeHead(302, { location: 'http://127.0.0.1:1/elsewhere' }).end();
    expect(await pools.post(`${base}/logout`, {}, '', 0)).toEqual({ status: 302 });
    answer = () => undefined;
    expect(await pools.post(`${base}/logout`, {}, '', 0)).toEqual({ error: 'timeout' });
    await pools.close();
  });

  it("reads the start of a 400's body (where a receiver says why it refused), and no other body", async () => {
    const pools = new ReceiverPools(1, 2000);
    answer = (res) => res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ err: 'invalid_key', pad: 'x'.repeat(10_000) }));
    const refused = await pools.post(`${base}/events`, {}, '', 0);
    expect(refused.status).toBe(400);
    expect(refused.body).toMatch(/^\{"err":"invalid_key"/);
    expect(refused.body!.length).toBe(4096);
    answer = (res) => res.writeHead(500).end('{"err":"x"}');
    expect(await pools.post(`${base}/events`, {}, '', 0)).toEqual({ status: 500 });
    await pools.close();
  });

  it('connects a public-only POST to no internal address, by IP literal or by a name that resolves to one', async () => {
    const pools = new ReceiverPools(1, 2000, { lookup: publicOnlyLookup, internalLiteral });
    const open = new ReceiverPools(1, 2000);
    answer = (res) => res.writeHead(200).end();
    sockets.clear();
    const port = new URL(base).port;
    expect(await pools.post(`http://127.0.0.1:${port}/events`, {}, '', 0)).toEqual({ error: 'EINTERNALADDRESS' });
    expect(await pools.post(`http://[::ffff:127.0.0.1]:${port}/events`, {}, '', 0)).toEqual({ error: 'EINTERNALADDRESS' });
    expect(await pools.post(`http://localhost:${port}/events`, {}, '', 0)).toEqual({ error: 'EINTERNALADDRESS' });
    expect(sockets.size).toBe(0);
    // The same receiver without the restriction is reached.
    expect(await open.post(`http://localhost:${port}/events`, {}, '', 0)).toEqual({ status: 200 });
    await open.close();
    await pools.close();
  });

  it('bounds the whole exchange by the timeout: an answer that trickles in is a timeout too', async () => {
    const pools = new ReceiverPools(1, 200);
    let drip: NodeJS.Timeout | undefined;
    answer = (res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      drip = setInterval(() => res.write('.'), 40);
      res.on('close', () => clearInterval(drip));
    };
    const started = Date.now();
    expect(await pools.post(`${base}/logout`, {}, '', 0)).toEqual({ error: 'timeout' });
    expect(Date.now() - started).toBeLessThan(2000);
    clearInterval(drip);
    await pools.close();
  });

  it('closes the pool of a receiver nothing was sent to for a minute', async () => {
    const pools = new ReceiverPools(1, 2000);
    answer = (res) => res.writeHead(204).end();
    sockets.clear();
    await pools.post(`${base}/a`, {}, '', 0);
    pools.sweep(59_999);
    await pools.post(`${base}/a`, {}, '', 59_999);
    expect(sockets.size).toBe(1);
    pools.sweep(59_999 + 60_000);
    await pools.post(`${base}/a`, {}, '', 200_000);
    expect(sockets.size).toBe(2);
    await pools.close();
  });
});
