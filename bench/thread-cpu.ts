/**
 * CPU time of this process's threads (Linux, /proc/self/task), so that a bench can say how
 * much of a window went to the event loop's thread and how much to the others (libuv's pool,
 * the SQLite writer, worker threads, V8's helpers). Elsewhere the figures are empty.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';

/** CPU seconds by thread id, with each thread's name. */
export type ThreadSample = Map<number, { name: string; seconds: number }>;

export function sampleThreads(): ThreadSample {
  const out: ThreadSample = new Map();
  let tids: string[];
  try {
    tids = readdirSync('/proc/self/task');
  } catch {
    return out;
  }
  for (const tid of tids) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'latin1');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // utime and stime (fields 14 and 15 of the file), counted here from "state" (field 3).
      out.set(Number(tid), { name, seconds: (Number(fields[11]) + Number(fields[12])) / 100 });
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return out;
}

/**
 * CPU seconds spent between two samples: the event loop's thread, and the other threads that
 * ran, largest first (Node names nearly all its threads "node": libuv's pool, worker threads).
 */
export function threadsBetween(before: ThreadSample, after: ThreadSample): { main: number; others: Array<[string, number]>; total: number } {
  let main = 0;
  let total = 0;
  const others: Array<[string, number]> = [];
  for (const [tid, t] of after) {
    const spent = t.seconds - (before.get(tid)?.seconds ?? 0);
    total += spent;
    if (tid === process.pid) main += spent;
    else if (spent > 0) others.push([`${t.name}#${tid}`, spent]);
  }
  return { main, others: others.sort((a, b) => b[1] - a[1]), total };
}

/** The machine's 1-minute load average and its core count, as a short phrase. */
export function loadNow(): string {
  return `load ${loadavg()[0].toFixed(2)}`;
}
