import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PostingThread } from './posting-thread.js';

describe('PostingThread', () => {
  let server: Server;
  let base: string;
  const received: Array<{ path: string; type: string; body: string }> = [];
  let answer: (req: IncomingMessage, res: ServerResponse) => void;

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => (body += c));
      req.on('end', () => {
        received.push({ path: req.url!, type: req.headers['content-type'] ?? '', body });
        answer(req, res);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it('makes the POSTs on its thread, many at once, each with its own answer', async () => {
    const thread = new PostingThread(4, 2000);
    received.length = 0;
    answer = (req, res) => res.writeHead(req.url === '/refuse' ? 503 : 200).end();
    const answers = await Promise.all([
      ...Array.from({ length: 10 }, (_, i) => thread.post(`${base}/logout?n=${i}`, { 'content-type': 'application/x-www-form-urlencoded' }, `logout_token=t${i}`)),
      thread.post(`${base}/refuse`, {}, ''),
    ]);
    expect(answers).toEqual([...Array.from({ length: 10 }, () => ({ status: 200 })), { status: 503 }]);
    expect(received.filter((r) => r.path.startsWith('/logout')).map((r) => r.body).sort()).toEqual(Array.from({ length: 10 }, (_, i) => `logout_token=t${i}`).sort());
    expect(received[0].type).toBe('application/x-www-form-urlencoded');
    await thread.close();
  });

  it('never follows a redirect; a receiver too slow or gone is an error, not a status', async () => {
    const thread = new PostingThread(1, 200);
    answer = (_req, res) => res.writeHead(302, { location: `${base}/elsewhere` }).end();
    expect(await thread.post(`${base}/logout`, {}, '')).toEqual({ status: 302 });
    answer = () => undefined;
    expect(await thread.post(`${base}/logout`, {}, '')).toEqual({ error: 'timeout' });
    expect((await thread.post('http://127.0.0.1:1/logout', {}, '')).error).toBe('ECONNREFUSED');
    expect(await thread.post('ftp://127.0.0.1/logout', {}, '')).toEqual({ error: 'unsupported scheme ftp:' });
    await thread.close();
  });

  it('answers what it still held with an error once closed, and starts a new thread for the next POST', async () => {
    const thread = new PostingThread(1, 5000);
    answer = () => undefined;
    const held = thread.post(`${base}/slow`, {}, '');
    await new Promise((r) => setTimeout(r, 50));
    await thread.close();
    expect(await held).toEqual({ error: 'delivery thread closed' });
    answer = (_req, res) => res.writeHead(204).end();
    expect(await thread.post(`${base}/logout`, {}, '')).toEqual({ status: 204 });
    await thread.close();
  });
});
