/**
 * What filtered log subscriptions cost the request thread per append, on the embedded store:
 * `--appends N` appends of two events (16 in flight), with none and then with two subscribers
 * filtered to rare event types (as the back-channel logout follower and the event feed are),
 * alternating `--rounds` times. Prints the request thread's CPU time (from
 * /proc/self/task/<pid>/stat, Linux) per append; its difference is the subscribers' cost.
 *
 *   npm run build && node dist/bench/subscriptions.bench.js --appends 12000 --rounds 2
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventData } from '../src/infrastructure/event-store/event-store.port.js';
import { SqliteEventStore } from '../src/infrastructure/event-store/sqlite-event-store.js';
import { numberFlag, readFlags } from './args.js';

const USAGE = 'usage: node dist/bench/subscriptions.bench.js [--appends N] [--rounds N]';
const FILTERS = [
  ['SessionRevoked', 'UserDisabled', 'UserDeleted', 'ClientDeleted'],
  ['SessionRevoked', 'TokenRevoked', 'GrantRevoked', 'RefreshReplayed', 'UserDisabled', 'UserEnabled', 'UserDeleted', 'ClientDeleted', 'SigningKeyActivated'],
];

/** CPU milliseconds of this process's main thread (clock ticks of 10 ms). */
function mainThreadMs(): number {
  const fields = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

const event = (type: string): EventData => ({
  id: randomUUID(),
  type,
  data: { tenantId: 'bench', jti: randomUUID(), scope: ['api:read'] },
  metadata: { tenantId: 'bench', actor: 'bench', correlationId: randomUUID(), occurredAt: new Date().toISOString(), schemaVersion: 1 },
});

async function run(subscribers: number, appends: number): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'subscriptions-bench-'));
  const store = new SqliteEventStore(join(dir, 'events.db'));
  const subs = FILTERS.slice(0, subscribers).map((eventTypes) => store.subscribeToAll({ filter: { eventTypes } }));
  const loops = subs.map(async (sub) => {
    for await (const _ of sub);
  });
  const before = mainThreadMs();
  let started = 0;
  await Promise.all(
    Array.from({ length: 16 }, async (_, w) => {
      while (started++ < appends) await store.append(`bench-${w}`, [event('RefreshRotated'), event('AccessTokenIssued')], 'any');
    }),
  );
  const used = mainThreadMs() - before;
  for (const sub of subs) await sub.close();
  await Promise.all(loops);
  await store.close();
  rmSync(dir, { recursive: true, force: true });
  return (used * 1000) / appends;
}

async function main(): Promise<void> {
  const f = readFlags(process.argv.slice(2), { appends: 'string', rounds: 'string' }, USAGE);
  const appends = numberFlag(f.appends, 'appends', 12_000, 1, true);
  const rounds = numberFlag(f.rounds, 'rounds', 2, 1, true);
  for (let round = 1; round <= rounds; round++) {
    const none = await run(0, appends);
    const two = await run(2, appends);
    console.log(`round ${round}: ${appends} appends, request thread ${none.toFixed(1)} µs per append without subscribers, ${two.toFixed(1)} with two filtered ones (+${(two - none).toFixed(1)})`);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
