import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A JWKS host on loopback for jwks_uri tests: each path serves what the test sets, and counts
 * its requests. Special behaviours (`hang`, `redirect`, raw bodies) are set per path.
 */
export class JwksServer {
  readonly hits = new Map<string, number>();
  private readonly routes = new Map<string, (res: ServerResponse) => void>();
  private readonly open = new Set<ServerResponse>();
  private server!: Server;
  port = 0;

  static async start(): Promise<JwksServer> {
    const s = new JwksServer();
    s.server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      s.hits.set(path, (s.hits.get(path) ?? 0) + 1);
      const route = s.routes.get(path);
      if (!route) return res.writeHead(404).end();
      route(res);
    });
    await new Promise<void>((r) => s.server.listen(0, '127.0.0.1', r));
    s.port = (s.server.address() as AddressInfo).port;
    return s;
  }

  url(path: string, host = '127.0.0.1'): string {
    return `http://${host}:${this.port}${path}`;
  }

  /** Serves `keys` at `path` as a JWK Set, with Cache-Control when given. */
  keys(path: string, keys: object[], cacheControl?: string): void {
    this.raw(path, JSON.stringify({ keys }), { 'content-type': 'application/jwk-set+json', ...(cacheControl ? { 'cache-control': cacheControl } : {}) });
  }

  raw(path: string, body: string, headers: Record<string, string> = {}, chunked = false): void {
    this.routes.set(path, (res) => {
      res.writeHead(200, chunked ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) });
      if (!chunked) return res.end(body);
      // Sent in pieces without a length: the cap must hold while reading.
      for (let i = 0; i < body.length; i += 1024) res.write(body.slice(i, i + 1024));
      res.end();
    });
  }

  /** Takes the request and never answers. */
  hang(path: string): void {
    this.routes.set(path, (res) => {
      this.open.add(res);
    });
  }

  redirect(path: string, to: string): void {
    this.routes.set(path, (res) => res.writeHead(302, { location: to }).end());
  }

  count(path: string): number {
    return this.hits.get(path) ?? 0;
  }

  async close(): Promise<void> {
    for (const res of this.open) res.destroy();
    this.server.closeAllConnections();
    await new Promise((r) => this.server.close(r));
  }
}
