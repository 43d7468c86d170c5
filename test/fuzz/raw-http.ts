import { connect } from 'node:net';

/** One HTTP/1.1 request, written byte for byte as given (fetch would refuse or repair much of it). */
export interface RawRequest {
  method: string;
  /** Path and query as sent on the request line (latin1: each char one byte). */
  target: string;
  /** Header lines in order; a name may repeat. Content-Length is added unless `headers` has one. */
  headers: Array<[string, string]>;
  body: Buffer;
  /** Content-Length this many bytes short of the body (the rest reads as a next request). */
  shortBy: number;
}

export interface RawAnswer {
  /** The final status (after any 1xx). */
  status: number;
  head: string;
  /** What follows the head, as latin1 text. */
  body: string;
}

/** The request's bytes, `Connection: close` so that the answer ends with the connection. */
export function serialize(r: RawRequest): Buffer {
  const lines = [`${r.method} ${r.target} HTTP/1.1`, ...r.headers.map(([n, v]) => `${n}: ${v}`)];
  if (!r.headers.some(([n]) => n.toLowerCase() === 'content-length')) lines.push(`Content-Length: ${Math.max(0, r.body.length - r.shortBy)}`);
  lines.push('Connection: close');
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), r.body]);
}

/**
 * Sends `r` on a new connection to 127.0.0.1:`port` and reads the answer until the server
 * closes; rejects when the connection ends without an answer or none comes in `timeoutMs`.
 */
export function rawRequest(port: number, r: RawRequest, timeoutMs = 10_000): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(port, '127.0.0.1');
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    const finish = () => {
      clearTimeout(timer);
      const all = Buffer.concat(chunks);
      const answer = finalAnswer(all);
      if (answer) resolve(answer);
      else reject(new Error(`the connection ended without an answer (${all.length} bytes: ${JSON.stringify(all.subarray(0, 80).toString('latin1'))})`));
    };
    socket.on('data', (d: Buffer) => chunks.push(d));
    // The server may close while the request is still being written (e.g. after a 413): what
    // it answered before counts.
    socket.on('error', () => undefined);
    socket.on('close', finish);
    // Not end(): a client that half-closes has its request dropped by Node's HTTP server
    // (httpAllowHalfOpen is off), which would hide the answer of any slower handler.
    socket.write(serialize(r));
  });
}

/** The first non-1xx status line and its head. */
function finalAnswer(all: Buffer): RawAnswer | undefined {
  let at = 0;
  for (;;) {
    const end = all.indexOf('\r\n\r\n', at);
    if (end < 0) return undefined;
    const head = all.subarray(at, end).toString('latin1');
    const m = /^HTTP\/1\.[01] (\d{3})/.exec(head);
    if (!m) return undefined;
    const status = Number(m[1]);
    if (status >= 200 || status < 100) return { status, head, body: all.subarray(end + 4).toString('latin1') };
    at = end + 4;
  }
}
