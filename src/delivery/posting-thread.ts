import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { type Answer, ReceiverPools } from './receiver-pools.js';

/** One POST for the thread: [id, url, headers, body]. */
type PostMessage = [number, string, Record<string, string>, string];
/** What came of it: [id, answer]. */
type AnswerMessage = [number, Answer];

const UNDICI = createRequire(import.meta.url).resolve('undici');

/**
 * The delivery POSTs, made on a thread of their own (node:worker_threads): writing each request
 * and parsing each answer never holds up the request thread. The thread gets the URL, headers
 * and body of each POST, nothing else (the body is already rendered: no key and no sealed value
 * crosses over), and answers with the status or a short error. POSTs asked for in one turn of
 * the event loop go over in one message, and so do the answers.
 */
export class PostingThread {
  private worker?: Worker;
  private readonly waiting = new Map<number, (answer: Answer) => void>();
  private outbox: PostMessage[] = [];
  private nextId = 1;
  private flushScheduled = false;

  constructor(
    private readonly connections: number,
    private readonly timeoutMs: number,
  ) {}

  /** One POST of `body` to `uri` on the thread; a thread that fails answers every POST it held with an error (the attempt is retried). */
  post(uri: string, headers: Record<string, string>, body: string): Promise<Answer> {
    const id = this.nextId++;
    this.outbox.push([id, uri, headers, body]);
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(() => this.flush());
    }
    return new Promise((resolve) => this.waiting.set(id, resolve));
  }

  /** Ends the thread and its connections (nothing is in flight by then: the sender waits for its attempts first). */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    if (worker) await worker.terminate();
    this.fail('delivery thread closed');
  }

  private flush(): void {
    this.flushScheduled = false;
    const batch = this.outbox;
    this.outbox = [];
    if (!batch.length) return;
    const worker = this.thread();
    // Held while POSTs are out, so that the process waits for their answers; let go after.
    worker.ref();
    worker.postMessage(batch);
  }

  private thread(): Worker {
    if (this.worker) return this.worker;
    const source = `const { Pool } = require(${JSON.stringify(UNDICI)}); const { EventEmitter } = require('node:events'); (${postingThread.toString()})(${ReceiverPools.toString()});`;
    const worker = new Worker(source, { eval: true, workerData: { connections: this.connections, timeoutMs: this.timeoutMs } });
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
 * test runner): it uses only `require`, the worker's data and the pools class it is given.
 * Idle receivers' pools are looked over on the wall clock (their sockets live in real time).
 */
export function postingThread(Pools: typeof ReceiverPools): void {
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { parentPort, workerData } = require('node:worker_threads');
  const pools = new Pools(workerData.connections, workerData.timeoutMs);
  const sweeper = setInterval(() => pools.sweep(Date.now()), 1000);
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
    for (const [id, uri, headers, body] of batch) {
      void pools.post(uri, headers, body, Date.now()).then((answer) => {
        answers.push([id, answer]);
        if (!scheduled) {
          scheduled = true;
          setImmediate(flush);
        }
      });
    }
  });
}
