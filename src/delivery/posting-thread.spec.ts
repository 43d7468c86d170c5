import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPrivateKey, generateKeyPairSync, KeyObject } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import { jest } from '@jest/globals';
import { compactVerify } from 'jose';
import { JwsSigner } from '../infrastructure/crypto/jws-signer.js';
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
      ...Array.from({ length: 10 }, (_, i) => thread.post({ url: `${base}/logout?n=${i}`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `logout_token=t${i}` })),
      thread.post({ url: `${base}/refuse`, headers: {}, body: '' }),
    ]);
    expect(answers).toEqual([...Array.from({ length: 10 }, () => ({ status: 200 })), { status: 503 }]);
    expect(received.filter((r) => r.path.startsWith('/logout')).map((r) => r.body).sort()).toEqual(Array.from({ length: 10 }, (_, i) => `logout_token=t${i}`).sort());
    expect(received[0].type).toBe('application/x-www-form-urlencoded');
    await thread.close();
  });

  it('signs each JWT on its thread at the attempt, with the key it was given once, as a form field or as the whole body', async () => {
    const thread = new PostingThread(4, 2000);
    received.length = 0;
    answer = (_req, res) => res.writeHead(200).end();
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const ed = generateKeyPairSync('ed25519');
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const answers = await Promise.all([
      ...Array.from({ length: 20 }, (_, n) => thread.post({ url: `${base}/es/${n}`, headers: form, jwt: { header: { alg: 'ES256', kid: 'e', typ: 'logout+jwt' }, payload: { n }, key: ec.privateKey }, form: 'logout_token' })),
      thread.post({ url: `${base}/ed`, headers: { 'content-type': 'application/secevent+jwt' }, jwt: { header: { alg: 'EdDSA', kid: 'd' }, payload: { n: 'ed' }, key: ed.privateKey } }),
      thread.post({ url: `${base}/rs`, headers: form, jwt: { header: { alg: 'RS256', kid: 'r' }, payload: { n: 'rs' }, key: rsa.privateKey }, form: 'logout_token' }),
    ]);
    expect(answers.every((a) => a.status === 200)).toBe(true);
    const tokenAt = (path: string) => {
      const r = received.find((x) => x.path === path)!;
      return r.type === 'application/secevent+jwt' ? r.body : new URLSearchParams(r.body).get('logout_token')!;
    };
    for (let n = 0; n < 20; n++) {
      const token = tokenAt(`/es/${n}`);
      const { payload, protectedHeader } = await compactVerify(token, ec.publicKey);
      expect(JSON.parse(Buffer.from(payload).toString())).toEqual({ n });
      expect(protectedHeader).toEqual({ alg: 'ES256', kid: 'e', typ: 'logout+jwt' });
      expect(JwsSigner.isLowS(Buffer.from(token.split('.')[2], 'base64url'))).toBe(true);
    }
    expect(JSON.parse(Buffer.from((await compactVerify(tokenAt('/ed'), ed.publicKey)).payload).toString())).toEqual({ n: 'ed' });
    expect(JSON.parse(Buffer.from((await compactVerify(tokenAt('/rs'), rsa.publicKey)).payload).toString())).toEqual({ n: 'rs' });
    // A key that cannot sign for the header's algorithm fails that attempt only, without a POST.
    const before = received.length;
    expect(await thread.post({ url: `${base}/bad`, headers: form, jwt: { header: { alg: 'RS256', kid: 'x' }, payload: {}, key: ed.privateKey }, form: 'logout_token' })).toEqual({ error: 'the token could not be signed' });
    expect(received.length).toBe(before);
    await thread.close();
  });

  it('sends a key to the thread once per kid, however often the key ring opens it again', async () => {
    const thread = new PostingThread(2, 2000);
    answer = (_req, res) => res.writeHead(200).end();
    const sent = jest.spyOn(Worker.prototype, 'postMessage');
    const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const other = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = pair.privateKey.export({ format: 'jwk' });
    const post = (kid: string, key: KeyObject) => thread.post({ url: `${base}/k`, headers: {}, jwt: { header: { alg: 'ES256', kid }, payload: { kid }, key }, form: 'logout_token' });
    for (let i = 0; i < 3; i++) expect(await post('same', createPrivateKey({ key: jwk, format: 'jwk' }))).toEqual({ status: 200 });
    expect(await post('other', other.privateKey)).toEqual({ status: 200 });
    const keysSent = sent.mock.calls.flatMap(([batch]) => (batch as unknown[][]).map((m) => (m[4] as unknown[] | null)?.[2])).filter((k) => k instanceof KeyObject);
    expect(keysSent).toHaveLength(2);
    sent.mockRestore();
    await thread.close();
  });

  it('connects a public-only request to no internal address, and reads the start of a refusal from the thread too', async () => {
    const thread = new PostingThread(1, 2000);
    received.length = 0;
    answer = (_req, res) => res.writeHead(400, { 'content-type': 'application/json' }).end('{"err":"invalid_key"}');
    expect(await thread.post({ url: `${base}/events`, headers: {}, body: '', publicOnly: true })).toEqual({ error: 'EINTERNALADDRESS' });
    expect(received).toHaveLength(0);
    expect(await thread.post({ url: `${base}/events`, headers: {}, body: '' })).toEqual({ status: 400, body: '{"err":"invalid_key"}' });
    await thread.close();
  });

  it('never follows a redirect; a receiver too slow or gone is an error, not a status', async () => {
    const thread = new PostingThread(1, 200);
    answer = (_req, res) => res.writeHead(302, { location: `${base}/elsewhere` }).end();
    expect(await thread.post({ url: `${base}/logout`, headers: {}, body: '' })).toEqual({ status: 302 });
    answer = () => undefined;
    expect(await thread.post({ url: `${base}/logout`, headers: {}, body: '' })).toEqual({ error: 'timeout' });
    expect((await thread.post({ url: 'http://127.0.0.1:1/logout', headers: {}, body: '' })).error).toBe('ECONNREFUSED');
    expect(await thread.post({ url: 'ftp://127.0.0.1/logout', headers: {}, body: '' })).toEqual({ error: 'unsupported scheme ftp:' });
    await thread.close();
  });

  it('answers what it still held with an error once closed, and starts a new thread for the next POST', async () => {
    const thread = new PostingThread(1, 5000);
    const key = generateKeyPairSync('ed25519').privateKey;
    const signed = () => thread.post({ url: `${base}/logout`, headers: {}, jwt: { header: { alg: 'EdDSA', kid: 'c' }, payload: {}, key }, form: 'logout_token' });
    answer = () => undefined;
    const held = signed();
    await new Promise((r) => setTimeout(r, 50));
    await thread.close();
    expect(await held).toEqual({ error: 'delivery thread closed' });
    answer = (_req, res) => res.writeHead(204).end();
    expect(await thread.post({ url: `${base}/logout`, headers: {}, body: '' })).toEqual({ status: 204 });
    // The new thread is given the key again.
    expect(await signed()).toEqual({ status: 204 });
    await thread.close();
  });
});
