import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteEventStore } from '../event-store/sqlite-event-store.js';
import { SqliteReadStore } from '../read-store/sqlite-read-store.js';

const event = (id: string) => ({ id, type: 'Happened', data: { id }, metadata: { actor: 'system', correlationId: id, occurredAt: '2026-01-01T00:00:00.000Z', schemaVersion: 1 } });

/** The messages the file's writer thread is sent, by type. */
function messagesSent(store: SqliteEventStore): Array<{ type: string; views?: unknown }> {
  const worker = (store as unknown as { writer: { worker: { postMessage(m: unknown): void } } }).writer.worker;
  const sent: Array<{ type: string; views?: unknown }> = [];
  const post = worker.postMessage.bind(worker);
  worker.postMessage = (m: unknown) => {
    sent.push(m as { type: string; views?: unknown });
    post(m);
  };
  return sent;
}

describe('the embedded store writer: view commits while an append batch is out', () => {
  let dir: string;
  let events: SqliteEventStore;
  let views: SqliteReadStore;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sqlite-writer-'));
    const file = join(dir, 'store.db');
    events = new SqliteEventStore(file);
    views = new SqliteReadStore(file);
    await views.prepareView('things', 1, []);
  });

  afterEach(async () => {
    await views.close();
    await events.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('ride on the next batch, and are committed and answered after it', async () => {
    const sent = messagesSent(events);
    const first = events.append('s-1', [event('e1')], 'any');
    const committed = views.commit('things', [{ id: 'a', doc: { n: 1 }, position: 1 }], 1);
    const second = events.append('s-2', [event('e2')], 'any');
    await Promise.all([first, second, committed]);
    expect(sent.map((m) => [m.type, m.views !== undefined])).toEqual([
      ['append', false],
      ['append', true],
    ]);
    expect(await views.get('things', 'a')).toEqual({ n: 1, _id: 'a', _position: 1 });
    expect((await views.viewState('things'))?.position).toBe(1);
  });

  it('go on their own when no batch follows', async () => {
    const sent = messagesSent(events);
    const first = events.append('s-1', [event('e1')], 'any');
    const committed = views.commit('things', [{ id: 'a', doc: { n: 1 }, position: 1 }], 1);
    await Promise.all([first, committed]);
    expect(sent.map((m) => m.type)).toEqual(['append', 'views']);
    expect(await views.get('things', 'a')).toEqual({ n: 1, _id: 'a', _position: 1 });
  });

  it('fail alone: the batch they rode on is appended', async () => {
    await events.append('s-1', [event('e0')], 'any');
    const first = events.append('s-1', [event('e1')], 'any');
    const failed = views.commit('missing', [{ id: 'a', doc: { n: 1 }, position: 1 }], 1);
    const second = events.append('s-2', [event('e2')], 'any');
    await expect(failed).rejects.toThrow(/read store: .*view_missing/);
    await expect(first).resolves.toMatchObject({ nextRevision: 1 });
    await expect(second).resolves.toMatchObject({ nextRevision: 0 });
    expect((await events.readStream('s-2')).map((e) => e.id)).toEqual(['e2']);
  });
});
