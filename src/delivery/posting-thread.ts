import type { KeyObject } from 'node:crypto';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { internalLiteral, publicOnlyLookup } from '../shared/address-policy.js';
import { JwsSigner } from '../infrastructure/crypto/jws-signer.js';
import type { RenderedRequest, UnsignedRequest } from './delivery-kind.js';
import { type Answer, ReceiverPools } from './receiver-pools.js';

/** A JWT for the thread to sign: [header, payload, the key unless the thread holds it already under the header's kid]. */
type JwtMessage = [UnsignedRequest['jwt']['header'], Record<string, unknown>, KeyObject | null];
/** One POST for the thread: [id, url, headers, body, or the JWT to sign and the form field it goes in]. */
type PostMessage = [number, string, Record<string, string>, string | null, JwtMessage | null, string | null];
/** What came of it: [id, answer]. */
type AnswerMessage = [number, Answer];

const UNDICI = createRequire(import.meta.url).resolve('undici');
/** How long the thread keeps a private key no POST used: a rotated-out key does not stay in its memory. */
const KEY_FORGET_MS = 10 * 60_000;

/**
 * The delivery POSTs, made on a thread of their own (node:worker_threads): signing a token,
 * writing each request and parsing each answer never hold up the request thread. The thread
 * gets the URL, headers and body of each POST, or instead of the body a JWT's header and claims
 * with the private key object to sign them (sent once per key: never a sealed key or the key
 * that seals them), and answers with the status or a short error. POSTs asked for in one turn
 * of the event loop go over in one message, and so do the answers.
 *
 * A request that may reach only public addresses (`publicOnly`: a receiver that may not name an
 * internal one) is posted on this thread instead, through pools whose lookups check every
 * address they connect to: such requests are few (pushed SETs of some streams), and the checks
 * stay in their own module rather than in the thread's source.
 */
export class PostingThread {
  private worker?: Worker;
  private readonly waiting = new Map<number, (answer: Answer) => void>();
  private outbox: PostMessage[] = [];
  private nextId = 1;
  private flushScheduled = false;
  /**
   * The kids whose keys the running thread holds, with when each was last sent a POST to sign
   * (wall clock). The thread forgets a key unused for KEY_FORGET_MS; this side sends it again
   * once it was unused for half that, so the thread never lacks a key it is asked to use. A kid is the thumbprint of its public key
   * (the key ring checks that each private key matches it), so one kid is one key, however
   * often the key ring opens it again.
   */
  private keysSent = new Map<string, number>();
  private publicPools?: ReceiverPools;

  constructor(
    private readonly connections: number,
    private readonly timeoutMs: number,
  ) {}

  /** One POST on the thread (its JWT signed there first); a thread that fails answers every POST it held with an error (the attempt is retried). */
  post(request: RenderedRequest | UnsignedRequest): Promise<Answer> {
    if ('publicOnly' in request && request.publicOnly) return this.postPublic(request);
    const id = this.nextId++;
    if ('jwt' in request) this.outbox.push([id, request.url, request.headers, null, [request.jwt.header, request.jwt.payload, request.jwt.key], request.form ?? null]);
    else this.outbox.push([id, request.url, request.headers, request.body, null, null]);
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(() => this.flush());
    }
    return new Promise((resolve) => this.waiting.set(id, resolve));
  }

  /** Ends the thread and its connections (nothing is in flight by then: the sender waits for its attempts first). */
  async close(): Promise<void> {
    const publicPools = this.publicPools;
    this.publicPools = undefined;
    await publicPools?.close();
    const worker = this.worker;
    this.worker = undefined;
    this.keysSent = new Map();
    if (worker) await worker.terminate();
    this.fail('delivery thread closed');
  }

  private postPublic(request: RenderedRequest): Promise<Answer> {
    const now = Date.now();
    this.publicPools ??= new ReceiverPools(this.connections, this.timeoutMs, { lookup: publicOnlyLookup, internalLiteral });
    this.publicPools.sweep(now);
    return this.publicPools.post(request.url, request.headers, request.body, now);
  }

  private flush(): void {
    this.flushScheduled = false;
    const batch = this.outbox;
    this.outbox = [];
    if (!batch.length) return;
    const worker = this.thread();
    // Which keys go over is decided for this very thread, as the batch leaves.
    const now = Date.now();
    for (const message of batch) {
      const jwt = message[4];
      const kid = jwt?.[0].kid;
      if (!jwt || typeof kid !== 'string') continue;
      const sent = this.keysSent.get(kid);
      if (sent !== undefined && now - sent < KEY_FORGET_MS / 2) jwt[2] = null;
      this.keysSent.set(kid, now);
    }
    // Held while POSTs are out, so that the process waits for their answers; let go after.
    worker.ref();
    worker.postMessage(batch);
  }

  private thread(): Worker {
    if (this.worker) return this.worker;
    const prelude = `const { Pool } = require(${JSON.stringify(UNDICI)}); const { EventEmitter } = require('node:events'); const { sign } = require('node:crypto');`;
    const source = `${prelude} (${postingThread.toString()})(${ReceiverPools.toString()}, ${JwsSigner.toString()});`;
    const worker = new Worker(source, { eval: true, workerData: { connections: this.connections, timeoutMs: this.timeoutMs, keyForgetMs: KEY_FORGET_MS } });
    worker.on('message', (answers: AnswerMessage[]) => {
      for (const [id, answer] of answers) {
        const resolve = this.waiting.get(id);
        this.waiting.delete(id);
        resolve?.(answer);
      }
      if (!this.waiting.size && this.worker === worker) worker.unref();
    });
    const lost = (reason: string) => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      this.keysSent = new Map();
      this.fail(reason);
    };
    worker.on('error', (error) => lost(`delivery thread failed: ${error.message}`.slice(0, 200)));
    worker.on('exit', () => lost('delivery thread exited'));
    this.worker = worker;
    return worker;
  }

  private fail(error: string): void {
    const waiting = [...this.waiting.values()];
    this.waiting.clear();
    for (const resolve of waiting) resolve({ error });
  }
}

/**
 * The thread's side. Sent as source text (so that it runs the same from `dist/` and under the
 * test runner): it uses only `require`, the worker's data and the classes it is given.
 * Idle receivers' pools are looked over on the wall clock (their sockets live in real time).
 */
export function postingThread(Pools: typeof ReceiverPools, Signer: typeof JwsSigner): void {
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { parentPort, workerData } = require('node:worker_threads');
  const pools = new Pools(workerData.connections, workerData.timeoutMs);
  const keys = new Map<string, { key: KeyObject; usedAt: number }>();
  const sweeper = setInterval(() => {
    const now = Date.now();
    pools.sweep(now);
    for (const [kid, k] of keys) if (now - k.usedAt >= workerData.keyForgetMs) keys.delete(kid);
  }, 1000);
  sweeper.unref();
  let answers: AnswerMessage[] = [];
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    const batch = answers;
    answers = [];
    parentPort.postMessage(batch);
  };
  parentPort.on('message', (batch: PostMessage[]) => {
    const answered = (id: number, answer: Answer) => {
      answers.push([id, answer]);
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    };
    for (const [id, uri, headers, body, jwt, form] of batch) {
      let payload = body ?? '';
      if (jwt) {
        const [header, claims, given] = jwt;
        const kid = typeof header.kid === 'string' ? header.kid : undefined;
        const held = kid !== undefined ? keys.get(kid) : undefined;
        const key = given ?? held?.key;
        if (key && kid !== undefined) keys.set(kid, { key, usedAt: Date.now() });
        try {
          const token = Signer.signSync(header, claims, key!);
          payload = form ? new URLSearchParams({ [form]: token }).toString() : token;
        } catch {
          answered(id, { error: 'the token could not be signed' });
          continue;
        }
      }
      void pools.post(uri, headers, payload, Date.now()).then((answer) => answered(id, answer));
    }
  });
}
