import { resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import { lockStoreFile, SQLITE_DRIVER } from './open-database.js';
import { merged } from '../../domain/shared/merged.js';
import {
  COUNTERS_SCHEMA,
  EVENTS_SCHEMA,
  LEASES_SCHEMA,
  VIEW_CHANGES_SCHEMA,
  VIEW_STATE_SCHEMA,
  type WriterData,
  type WriterRequest,
  type WriterResponse,
  type WriterViewCommit,
  writerThread,
  checkpointerThread,
} from './sqlite-writer.thread.js';

/** How often the checkpointer thread copies the WAL into the main file (see checkpointerThread). */
const CHECKPOINT_EVERY_MS = 200;

type Request = WriterRequest extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;

/** View commits waiting for the next append batch, with their callers. */
interface Rider {
  commits: WriterViewCommit[];
  resolve(r: WriterResponse): void;
  reject(e: Error): void;
}

/**
 * The writer thread of one embedded store file, shared by the event store and the read
 * store of this process (so their writes never contend for SQLite's write lock), and the
 * file's checkpointer thread. While it runs, this process holds the file's lock
 * (lockStoreFile): no other process writes to the file.
 */
export class SqliteWriter {
  private static readonly open = new Map<string, { writer: SqliteWriter; users: number }>();
  private readonly worker: Worker;
  private readonly checkpointer: { worker: Worker; exited: Promise<void> };
  private readonly pending = new Map<number, { resolve(r: WriterResponse): void; reject(e: Error): void }>();
  private nextId = 1;
  /** Append batches sent and not yet answered. */
  private appendsOut = 0;
  /** View commits asked for while an append batch was out: they ride on the next one. */
  private riders: Rider[] = [];
  private failure?: Error;
  private readonly exited: Promise<void>;

  private constructor(
    private readonly file: string,
    private readonly unlock: () => void,
  ) {
    const data: WriterData = { file, schema: `${EVENTS_SCHEMA};\n${VIEW_STATE_SCHEMA};\n${COUNTERS_SCHEMA};\n${LEASES_SCHEMA};\n${VIEW_CHANGES_SCHEMA};`, driver: SQLITE_DRIVER };
    this.worker = new Worker(`(${writerThread.toString()})()`, { eval: true, workerData: data });
    this.worker.on('message', (r: WriterResponse) => {
      const p = this.pending.get(r.id);
      this.pending.delete(r.id);
      p?.resolve(r);
    });
    this.worker.on('error', (error) => {
      this.failure = error;
      for (const p of this.pending.values()) p.reject(error);
      this.pending.clear();
      for (const r of this.riders) r.reject(error);
      this.riders = [];
    });
    this.exited = new Promise((r) => this.worker.once('exit', () => r()));
    const checkpointer = new Worker(`(${checkpointerThread.toString()})()`, { eval: true, workerData: { ...data, everyMs: CHECKPOINT_EVERY_MS } });
    // Losing it costs speed, not data: the writer's own checkpoint still runs.
    checkpointer.on('error', () => undefined);
    this.checkpointer = { worker: checkpointer, exited: new Promise((r) => checkpointer.once('exit', () => r())) };
  }

  /** The writer of `file`, started on first use; throws when another process holds the file. */
  static acquire(file: string): SqliteWriter {
    const key = resolve(file);
    const entry = SqliteWriter.open.get(key) ?? { writer: SqliteWriter.start(key), users: 0 };
    entry.users++;
    SqliteWriter.open.set(key, entry);
    return entry.writer;
  }

  private static start(file: string): SqliteWriter {
    const unlock = lockStoreFile(file);
    try {
      return new SqliteWriter(file, unlock);
    } catch (e) {
      unlock();
      throw e;
    }
  }

  /** Stops the thread once its last user lets go, after every request sent has been answered. */
  async release(): Promise<void> {
    const entry = SqliteWriter.open.get(this.file);
    if (!entry || --entry.users > 0) return;
    SqliteWriter.open.delete(this.file);
    try {
      this.checkpointer.worker.postMessage('close');
      await this.checkpointer.exited;
      if (!this.failure) await this.request({ type: 'close' });
      await this.exited;
    } finally {
      this.unlock();
    }
  }

  /**
   * Sends a request to the writer thread. A view commit asked for while an append batch is out
   * rides on the next batch: the writer commits it (without fsync, as any view commit) right
   * after that batch's answer, and answers it under an id of its own. A crossing between the
   * threads costs each of them a wake-up; when no batch follows an answer at once, the waiting
   * commits go on their own.
   */
  request(request: Request): Promise<WriterResponse> {
    if (this.failure) return Promise.reject(this.failure);
    switch (request.type) {
      case 'views':
        if (this.appendsOut > 0) return new Promise((resolve, reject) => this.riders.push({ commits: request.commits, resolve, reject }));
        break;
      case 'append':
        if (this.riders.length) request.views = this.takeRiders();
        this.appendsOut++;
        return this.send(request).finally(() => {
          this.appendsOut--;
          // The caller's next batch, if any, goes from its continuation, before this check runs.
          if (this.riders.length) setImmediate(() => this.appendsOut === 0 && this.sendRiders());
        });
      case 'close':
        this.sendRiders();
        break;
    }
    return this.send(request);
  }

  /** The waiting view commits, as one commit list answered under a new id that settles all their callers. */
  private takeRiders(): { id: number; commits: WriterViewCommit[] } {
    const riders = this.riders;
    this.riders = [];
    const id = this.nextId++;
    this.pending.set(id, { resolve: (r) => riders.forEach((x) => x.resolve(r)), reject: (e) => riders.forEach((x) => x.reject(e)) });
    return { id, commits: riders.flatMap((r) => r.commits) };
  }

  /** The waiting view commits, on their own. */
  private sendRiders(): void {
    if (!this.riders.length || this.failure) return;
    const { id, commits } = this.takeRiders();
    this.worker.postMessage({ type: 'views', id, commits } satisfies WriterRequest);
  }

  private send(request: Request): Promise<WriterResponse> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage(merged(request, { id }));
    });
  }
}
