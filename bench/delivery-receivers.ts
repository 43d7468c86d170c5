/**
 * The 5 back-channel logout receivers of bench/delivery.bench.ts, in a child process of their
 * own so that the bench measures the server and not its receivers. The last receiver answers
 * 503 to half the POSTs. Talks with the parent over IPC:
 *
 *   child -> {ports}                 once listening
 *   parent -> {expect: n}            the number of sessions; the child answers {done} once n distinct sids had a 200
 *   parent -> {mark}                 starts the CPU window
 *   parent -> {report}               child -> {report: ReceiversReport}
 *
 * Times are wall-clock milliseconds with sub-millisecond precision (performance.timeOrigin +
 * performance.now()), comparable across the processes of one machine.
 */
import { createServer, type Server } from 'node:http';
import { performance } from 'node:perf_hooks';
import { freePort } from './oauth-servers.js';

export const RECEIVERS = 5;

export interface ReceiversReport {
  /** [sid, receiver index, time of the first 200 for it] */
  delivered: Array<[string, number, number]>;
  posts: number[];
  refused: number;
  /** CPU seconds of this process since {mark}. */
  cpuSeconds: number;
}

export type ReceiversMessage = { ports: number[] } | { done: true } | { report: ReceiversReport };

export const wallNow = () => performance.timeOrigin + performance.now();

async function main(): Promise<void> {
  const delivered: Array<[string, number, number]> = [];
  const seen = new Set<string>();
  const posts = new Array<number>(RECEIVERS).fill(0);
  let refused = 0;
  let expect = Infinity;
  let cpuMark = process.cpuUsage();
  const servers: Server[] = [];
  const ports: number[] = [];
  for (let i = 0; i < RECEIVERS; i++) {
    const flaky = i === RECEIVERS - 1;
    const server = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => (body += c));
      req.on('end', () => {
        posts[i]++;
        if (flaky && Math.random() < 0.5) {
          refused++;
          res.writeHead(503).end();
          return;
        }
        const token = new URLSearchParams(body).get('logout_token') ?? '';
        const payload = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString() || '{}') as { sid?: string };
        res.writeHead(200).end();
        if (!payload.sid || seen.has(payload.sid)) return;
        seen.add(payload.sid);
        delivered.push([payload.sid, i, wallNow()]);
        if (seen.size === expect) process.send!({ done: true });
      });
    });
    const port = await freePort();
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
    servers.push(server);
    ports.push(port);
  }
  process.on('message', (m: { expect?: number; mark?: true; report?: true }) => {
    if (m.expect !== undefined) expect = m.expect;
    if (m.mark) cpuMark = process.cpuUsage();
    if (m.report) {
      const cpu = process.cpuUsage(cpuMark);
      const report: ReceiversReport = { delivered, posts, refused, cpuSeconds: (cpu.user + cpu.system) / 1e6 };
      process.send!({ report });
    }
  });
  process.on('disconnect', () => {
    for (const s of servers) s.close();
    process.exit(0);
  });
  process.send!({ ports });
}

if (process.env.DELIVERY_BENCH_RECEIVERS && process.send) void main();
