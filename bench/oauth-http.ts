/**
 * A small keep-alive HTTP/1.1 client over one TCP socket, one request at a time, for the
 * benchmark's load loops: it costs far less CPU per request than node:http or fetch, which
 * matters when the load generator and the server share two cores. Plus a cookie jar.
 */
import { connect, type Socket } from 'node:net';

export interface HttpResponse {
  status: number;
  /** Lower-case names; a repeated header keeps its last value (set-cookie is kept apart). */
  headers: Record<string, string>;
  setCookies: string[];
  body: string;
}

interface Head {
  status: number;
  headers: Record<string, string>;
  setCookies: string[];
  bodyStart: number;
  contentLength?: number;
  chunked: boolean;
  close: boolean;
}

interface Waiting {
  resolve(response: HttpResponse): void;
  reject(error: Error): void;
  noBody: boolean;
}

const CRLF = Buffer.from('\r\n');
const HEAD_END = Buffer.from('\r\n\r\n');
const EMPTY = Buffer.alloc(0);

export class HttpConnection {
  private socket?: Socket;
  private connected?: Promise<Socket>;
  private buf: Buffer = EMPTY;
  private head?: Head;
  private waiting?: Waiting;
  private received = false;
  private closed = false;

  constructor(
    readonly host: string,
    readonly port: number,
  ) {}

  /** Sends one request and reads its response; retries once on a fresh socket if a reused one was closed by the server. */
  async request(method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<HttpResponse> {
    const reused = this.socket !== undefined;
    try {
      return await this.send(method, path, headers, body);
    } catch (error) {
      if (!reused || this.received || this.closed) throw error;
      return this.send(method, path, headers, body);
    }
  }

  close(): void {
    this.closed = true;
    this.socket?.destroy();
    this.socket = undefined;
    this.connected = undefined;
  }

  private async send(method: string, path: string, headers: Record<string, string>, body?: string): Promise<HttpResponse> {
    if (this.waiting) throw new Error('one request at a time per connection');
    const socket = await this.open();
    let text = `${method} ${path} HTTP/1.1\r\nhost: ${this.host}:${this.port}\r\n`;
    for (const name in headers) text += `${name}: ${headers[name]}\r\n`;
    if (body !== undefined) text += `content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    else text += '\r\n';
    this.received = false;
    return new Promise<HttpResponse>((resolve, reject) => {
      this.waiting = { resolve, reject, noBody: method === 'HEAD' };
      socket.write(text);
    });
  }

  private open(): Promise<Socket> {
    if (this.closed) return Promise.reject(new Error('connection closed'));
    if (this.connected) return this.connected;
    this.connected = new Promise<Socket>((resolve, reject) => {
      const socket = connect({ host: this.host, port: this.port, noDelay: true });
      const fail = (error: Error) => {
        this.drop(socket, error);
        reject(error);
      };
      socket.once('error', fail);
      socket.once('connect', () => {
        socket.off('error', fail);
        socket.on('error', (error) => this.drop(socket, error));
        socket.on('close', () => this.drop(socket, new Error('the server closed the connection')));
        socket.on('data', (chunk: Buffer) => this.onData(chunk));
        this.socket = socket;
        resolve(socket);
      });
    });
    return this.connected;
  }

  private drop(socket: Socket, error: Error): void {
    if (this.socket !== undefined && this.socket !== socket) return;
    socket.destroy();
    this.socket = undefined;
    this.connected = undefined;
    this.buf = EMPTY;
    this.head = undefined;
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.reject(error);
  }

  private onData(chunk: Buffer): void {
    this.received = true;
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    const waiting = this.waiting;
    if (!waiting) return;
    if (!this.head) {
      const end = this.buf.indexOf(HEAD_END);
      if (end < 0) return;
      this.head = parseHead(this.buf.toString('latin1', 0, end), end + 4);
    }
    const head = this.head;
    let body: string;
    let consumed: number;
    if (waiting.noBody || head.status === 204 || head.status === 304 || (head.status >= 100 && head.status < 200)) {
      body = '';
      consumed = head.bodyStart;
    } else if (head.chunked) {
      const decoded = decodeChunked(this.buf, head.bodyStart);
      if (!decoded) return;
      ({ body, consumed } = decoded);
    } else if (head.contentLength !== undefined) {
      consumed = head.bodyStart + head.contentLength;
      if (this.buf.length < consumed) return;
      body = this.buf.toString('utf8', head.bodyStart, consumed);
    } else {
      // No length: the body runs to the end of the connection; not expected from either server.
      return;
    }
    this.buf = this.buf.length > consumed ? this.buf.subarray(consumed) : EMPTY;
    this.head = undefined;
    this.waiting = undefined;
    if (head.close) {
      const socket = this.socket;
      this.socket = undefined;
      this.connected = undefined;
      socket?.destroy();
    }
    waiting.resolve({ status: head.status, headers: head.headers, setCookies: head.setCookies, body });
  }
}

function parseHead(text: string, bodyStart: number): Head {
  const lines = text.split('\r\n');
  const status = Number(lines[0].slice(9, 12));
  const headers: Record<string, string> = {};
  const setCookies: string[] = [];
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i];
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (name === 'set-cookie') setCookies.push(value);
    else headers[name] = value;
  }
  const te = headers['transfer-encoding'];
  const cl = headers['content-length'];
  return {
    status,
    headers,
    setCookies,
    bodyStart,
    chunked: te !== undefined && te.toLowerCase().includes('chunked'),
    contentLength: cl !== undefined ? Number(cl) : undefined,
    close: (headers.connection ?? '').toLowerCase() === 'close',
  };
}

/** A complete chunked body from `start`, or undefined while more bytes are needed. */
function decodeChunked(buf: Buffer, start: number): { body: string; consumed: number } | undefined {
  const parts: Buffer[] = [];
  let at = start;
  for (;;) {
    const lineEnd = buf.indexOf(CRLF, at);
    if (lineEnd < 0) return undefined;
    const size = parseInt(buf.toString('latin1', at, lineEnd), 16);
    if (!Number.isFinite(size)) throw new Error('bad chunk size');
    at = lineEnd + 2;
    if (size === 0) {
      // Trailers, if any, end with an empty line.
      const end = buf.indexOf(CRLF, at);
      if (end < 0) return undefined;
      if (end === at) return { body: Buffer.concat(parts).toString('utf8'), consumed: at + 2 };
      const trailersEnd = buf.indexOf(HEAD_END, at);
      if (trailersEnd < 0) return undefined;
      return { body: Buffer.concat(parts).toString('utf8'), consumed: trailersEnd + 4 };
    }
    if (buf.length < at + size + 2) return undefined;
    parts.push(buf.subarray(at, at + size));
    at += size + 2;
  }
}

interface StoredCookie {
  value: string;
  path: string;
}

/** Cookies by name, with their path; enough for one host and the two servers' cookies. */
export class CookieJar {
  private readonly cookies = new Map<string, StoredCookie>();

  store(setCookies: readonly string[], requestPath: string): void {
    for (const line of setCookies) {
      const [pair, ...attributes] = line.split(';');
      const eq = pair.indexOf('=');
      if (eq < 1) continue;
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      let path = defaultPath(requestPath);
      let expired = value === '';
      for (const attribute of attributes) {
        const [k, v = ''] = attribute.split('=');
        const key = k.trim().toLowerCase();
        if (key === 'path' && v.trim().startsWith('/')) path = v.trim();
        else if (key === 'max-age' && Number(v) <= 0) expired = true;
        else if (key === 'expires' && Date.parse(v) <= Date.now()) expired = true;
      }
      if (expired) this.cookies.delete(name);
      else this.cookies.set(name, { value, path });
    }
  }

  /** The Cookie header for a request path, or undefined when no cookie applies. */
  header(requestPath: string): string | undefined {
    const path = requestPath.split('?')[0];
    let out = '';
    for (const [name, c] of this.cookies) {
      if (path === c.path || path.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`)) out += `${out ? '; ' : ''}${name}=${c.value}`;
    }
    return out || undefined;
  }

  has(name: string): boolean {
    return this.cookies.has(name);
  }
}

function defaultPath(requestPath: string): string {
  const path = requestPath.split('?')[0];
  const slash = path.lastIndexOf('/');
  return slash <= 0 ? '/' : path.slice(0, slash);
}
