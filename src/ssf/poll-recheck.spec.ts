import { EventEmitter } from 'node:events';
import { jest } from '@jest/globals';
import { TestClock } from '../../test/support/server.js';
import type { AggregateStore } from '../infrastructure/event-store/aggregate-store.js';
import { MAX_POLL_WAIT_MS, PollController } from './poll.controller.js';
import type { PendingSet, SetStore } from './set-store.js';
import type { SsfAccess } from './ssf-access.js';
import type { SsfFollower } from './ssf-follower.js';
import type { SsfStreams } from './ssf-streams.js';

type Page = { sets: Record<string, string>; moreAvailable: boolean };
type Paging = { page(tenantId: string, streamId: string, status: string, p: object, gone: AbortSignal): Promise<Page> };

describe('a long poll on a server that does not follow', () => {
  beforeEach(() => jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] }));
  afterEach(() => jest.useRealTimers());

  it('reads the store again every recheckMs, and answers a SET another server stored (no arrival heard here)', async () => {
    const stored: PendingSet[] = [];
    let reads = 0;
    let firstRead!: () => void;
    const readOnce = new Promise<void>((r) => (firstRead = r));
    const sets = {
      pending: async () => {
        if (++reads === 1) firstRead();
        return [...stored];
      },
    } as unknown as SetStore;
    const follower = { arrivals: new EventEmitter(), closing: new AbortController().signal, recheckMs: 10 } as unknown as SsfFollower;
    const controller = new PollController({} as SsfAccess, {} as SsfStreams, sets, follower, {} as AggregateStore, new TestClock()) as unknown as Paging;
    let answered: Page | undefined;
    const answer = controller.page('acme', 's1', 'enabled', { ack: [], errors: [], maxEvents: 10, returnImmediately: false }, new AbortController().signal);
    await readOnce;
    // Stored by another server's follower: this server's emitter says nothing.
    stored.push({ tenantId: 'acme', streamId: 's1', jti: 'j1', set: 'set-1', position: 7, createdAt: new Date(0).toISOString() });
    void answer.then((p) => (answered = p));
    // Long before the poll's own bound: only a recheck can have read it.
    await jest.advanceTimersByTimeAsync(10);
    expect(answered).toEqual({ sets: { j1: 'set-1' }, moreAvailable: false });
    await jest.advanceTimersByTimeAsync(MAX_POLL_WAIT_MS);
    await answer;
  });
});
