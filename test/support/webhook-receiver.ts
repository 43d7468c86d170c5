import { createServer, type IncomingMessage, type Server } from 'node:http';
import { freePort } from './server.js';

/** One POST a webhook receiver took: its headers and raw body. */
export interface WebhookPost {
  headers: IncomingMessage['headers'];
  body: string;
}

/** A webhook receiver on 127.0.0.1: answers each POST with the next of `statuses` (then 200), and records what it was sent. */
export class WebhookReceiver {
  readonly received: WebhookPost[] = [];
  private server?: Server;

  private constructor(
    readonly port: number,
    readonly statuses: number[],
  ) {}

  static async create(statuses: number[] = []): Promise<WebhookReceiver> {
    const r = new WebhookReceiver(await freePort(), [...statuses]);
    await r.up();
    return r;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/hooks`;
  }

  up(): Promise<void> {
    this.server = createServer((req, res) => {
      let text = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => (text += c));
      req.on('end', () => {
        this.received.push({ headers: req.headers, body: text });
        res.writeHead(this.statuses.shift() ?? 200).end();
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
      if (Date.now() > deadline) throw new Error(`webhook receiver ${this.port}: ${this.received.length} of ${count} POSTs arrived`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}
