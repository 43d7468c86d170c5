import { createServer, type IncomingMessage, type Server } from 'node:http';
import { freePort } from './server.js';

/** One POST a receiver took: its content type and form fields. */
export interface Received {
  contentType?: string;
  form: URLSearchParams;
}

/**
 * A back-channel logout receiver on 127.0.0.1: answers each POST with the next status of
 * `statuses` (then 200), and records what it was sent. It may start down (its port reserved,
 * nothing listening) and come up later.
 */
export class LogoutReceiver {
  readonly received: Received[] = [];
  private server?: Server;
  private waiters: Array<() => void> = [];

  private constructor(
    readonly port: number,
    private readonly statuses: number[],
  ) {}

  static async create(statuses: number[] = [], up = true): Promise<LogoutReceiver> {
    const r = new LogoutReceiver(await freePort(), [...statuses]);
    if (up) await r.up();
    return r;
  }

  get uri(): string {
    return `http://127.0.0.1:${this.port}/backchannel-logout`;
  }

  /** The logout tokens received so far. */
  get tokens(): string[] {
    return this.received.map((r) => r.form.get('logout_token') ?? '');
  }

  up(): Promise<void> {
    this.server = createServer((req, res) => {
      void body(req).then((text) => {
        this.received.push({ contentType: req.headers['content-type'], form: new URLSearchParams(text) });
        res.writeHead(this.statuses.shift() ?? 200, { 'cache-control': 'no-store' }).end();
        for (const w of this.waiters.splice(0)) w();
      });
    });
    return new Promise((resolve) => this.server!.listen(this.port, '127.0.0.1', () => resolve()));
  }

  down(): Promise<void> {
    const s = this.server;
    this.server = undefined;
    if (!s) return Promise.resolve();
    s.closeAllConnections();
    return new Promise((resolve) => s.close(() => resolve()));
  }

  /** Resolves once `count` POSTs have arrived (rejects after `ms` of real time: the delivery never came). */
  async posts(count: number, ms = 10_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (this.received.length < count) {
      if (Date.now() > deadline) throw new Error(`receiver ${this.port}: ${this.received.length} of ${count} POSTs arrived`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 50);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }
}

function body(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (text += c));
    req.on('end', () => resolve(text));
  });
}
