import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { freePort } from './server.js';

/** One POST a receiver took: its headers and raw body. */
export interface Post {
  headers: IncomingHttpHeaders;
  body: string;
}

/** An answer with a JSON body (a receiver saying why it refused a message). */
export interface Reply {
  status: number;
  json: unknown;
}

/**
 * A receiver of the server's deliveries on 127.0.0.1 (back-channel logout tokens, webhooks,
 * pushed Security Event Tokens): answers each POST with the next status of `statuses` (then
 * `okStatus`), and records what it was sent. It may start down (its port reserved, nothing
 * listening) and come up later.
 */
export class PostReceiver {
  readonly taken: Post[] = [];
  private server?: Server;
  private waiters: Array<() => void> = [];

  protected constructor(
    readonly port: number,
    private readonly path: string,
    /** The statuses (or replies) still to answer, in order (a test may add some). */
    readonly statuses: Array<number | Reply>,
    private readonly okStatus: number,
  ) {}

  static async start(path: string, statuses: Array<number | Reply> = [], okStatus = 200): Promise<PostReceiver> {
    const r = new PostReceiver(await freePort(), path, [...statuses], okStatus);
    await r.up();
    return r;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}${this.path}`;
  }

  up(): Promise<void> {
    this.server = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => (body += c));
      req.on('end', () => {
        this.taken.push({ headers: req.headers, body });
        const next = this.statuses.shift() ?? this.okStatus;
        if (typeof next === 'number') res.writeHead(next, { 'cache-control': 'no-store' }).end();
        else res.writeHead(next.status, { 'cache-control': 'no-store', 'content-type': 'application/json' }).end(JSON.stringify(next.json));
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
  async posts(count: number, ms = 20_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (this.taken.length < count) {
      if (Date.now() > deadline) throw new Error(`receiver ${this.port}: ${this.taken.length} of ${count} POSTs arrived`);
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

/** One logout POST: its content type and form fields. */
export interface Received {
  contentType?: string;
  form: URLSearchParams;
}

/** A back-channel logout receiver: the POSTs as forms, and the logout tokens in them. */
export class LogoutReceiver extends PostReceiver {
  static async create(statuses: Array<number | Reply> = [], up = true): Promise<LogoutReceiver> {
    const r = new LogoutReceiver(await freePort(), '/backchannel-logout', [...statuses], 200);
    if (up) await r.up();
    return r;
  }

  get uri(): string {
    return this.url;
  }

  get received(): Received[] {
    return this.taken.map((p) => ({ contentType: p.headers['content-type'], form: new URLSearchParams(p.body) }));
  }

  /** The logout tokens received so far. */
  get tokens(): string[] {
    return this.received.map((r) => r.form.get('logout_token') ?? '');
  }
}
