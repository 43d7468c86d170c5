/**
 * The load loop: every virtual client repeats its operation back to back on its own
 * keep-alive connection (closed-loop, so concurrency = connections). A warm-up runs first
 * and is not recorded; then every operation that completes within the measured window counts.
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { OpResult } from './oauth-scenarios.js';

export interface LoadOptions {
  warmupMs: number;
  durationMs: number;
}

export interface LoadResult {
  ops: number;
  errors: number;
  seconds: number;
  rps: number;
  p50: number;
  p99: number;
  mean: number;
  max: number;
  /** A few distinct error messages with their counts. */
  errorSamples: Record<string, number>;
  /** CPU time of the load generator (this process) over the window, as a share of one core. */
  clientCpu: number;
  /** CPU time of the server process over the window, as a share of one core (Linux only). */
  serverCpu?: number;
}

export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** User + system CPU seconds of a process, from /proc (undefined elsewhere). */
export function processCpuSeconds(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 14 and 15 of the file (utime, stime), counted from "state" (field 3) here.
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

export async function runLoad<C>(clients: readonly C[], op: (client: C) => Promise<OpResult>, options: LoadOptions, serverPid?: number): Promise<LoadResult> {
  const start = performance.now();
  const measureFrom = start + options.warmupMs;
  const measureTo = measureFrom + options.durationMs;
  let latencies = new Float64Array(1 << 16);
  let ops = 0;
  let errors = 0;
  const errorSamples: Record<string, number> = {};
  let cpuAtStart: NodeJS.CpuUsage | undefined;
  let serverCpuAtStart: number | undefined;
  const mark = setTimeout(() => {
    cpuAtStart = process.cpuUsage();
    serverCpuAtStart = processCpuSeconds(serverPid);
  }, options.warmupMs);

  const record = (t0: number, t1: number, result: OpResult) => {
    if (t1 < measureFrom || t1 > measureTo) return;
    if (result !== true) {
      errors++;
      const key = result.slice(0, 200);
      if (errorSamples[key] !== undefined || Object.keys(errorSamples).length < 8) errorSamples[key] = (errorSamples[key] ?? 0) + 1;
      return;
    }
    if (ops === latencies.length) {
      const grown = new Float64Array(latencies.length * 2);
      grown.set(latencies);
      latencies = grown;
    }
    latencies[ops++] = t1 - t0;
  };

  const loop = async (client: C) => {
    for (;;) {
      const t0 = performance.now();
      if (t0 >= measureTo) return;
      let result: OpResult;
      try {
        result = await op(client);
      } catch (error) {
        result = `exception: ${(error as Error).message}`;
      }
      record(t0, performance.now(), result);
    }
  };
  await Promise.all(clients.map(loop));
  clearTimeout(mark);
  const cpu = process.cpuUsage(cpuAtStart);
  const serverCpuAtEnd = processCpuSeconds(serverPid);
  const seconds = options.durationMs / 1000;
  const sorted = latencies.subarray(0, ops).sort();
  let sum = 0;
  for (const v of sorted) sum += v;
  return {
    ops,
    errors,
    seconds,
    rps: ops / seconds,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    mean: ops ? sum / ops : NaN,
    max: ops ? sorted[ops - 1] : NaN,
    errorSamples,
    clientCpu: (cpu.user + cpu.system) / 1e6 / seconds,
    serverCpu: serverCpuAtStart !== undefined && serverCpuAtEnd !== undefined ? (serverCpuAtEnd - serverCpuAtStart) / seconds : undefined,
  };
}
