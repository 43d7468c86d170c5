import { deliverySettings, retryDelay } from './delivery-settings.js';
import { DueHeap } from './due-heap.js';

describe('delivery settings', () => {
  it('defaults to a 5 s timeout, a first retry after about a second, delays up to 5 minutes, an hour of retries, 4 POSTs per receiver; webhooks paused after 5 dead letters in a row, replays of up to 10,000 events; shared delivery leases of 15 s, read every 500 ms', () => {
    expect(deliverySettings({})).toEqual({ timeoutMs: 5000, firstRetryMs: 1000, maxRetryDelayMs: 300_000, retryWindowMs: 3_600_000, perReceiver: 4, webhookPauseAfter: 5, webhookReplayMax: 10_000, leaseTtlMs: 15_000, pollMs: 500 });
  });

  it('refuses a setting that is not a whole number in range', () => {
    expect(() => deliverySettings({ DELIVERY_CONCURRENCY_PER_RECEIVER: '0' })).toThrow(/DELIVERY_CONCURRENCY_PER_RECEIVER/);
    expect(() => deliverySettings({ DELIVERY_RETRY_WINDOW: '1h' })).toThrow(/DELIVERY_RETRY_WINDOW/);
  });

  it('doubles the delay from the first retry up to the ceiling, each drawn between half and all of it', () => {
    const s = deliverySettings({});
    const ceilings = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 40].map((n) => retryDelay(s, n, 0.999999));
    expect(ceilings).toEqual([1000, 2000, 4000, 8000, 16000, 32000, 64000, 128000, 256000, 300000, 300000]);
    expect(retryDelay(s, 1, 0)).toBe(500);
    expect(retryDelay(s, 10, 0)).toBe(150_000);
    // The first attempt and five retries fall within about half a minute; a receiver back within a minute has the token within about a minute.
    const firstMinute = [1, 2, 3, 4, 5].reduce((t, n) => t + retryDelay(s, n, 0.999999), 0);
    expect(firstMinute).toBeLessThan(60_000);
  });
});

describe('DueHeap', () => {
  it('gives back the keys due by a time, earliest first, and keeps the others', () => {
    const heap = new DueHeap();
    for (const [at, key] of [[5, 'e'], [1, 'a'], [4, 'd'], [2, 'b'], [9, 'z'], [3, 'c']] as const) heap.push(at, key);
    expect(heap.popDue(4)).toEqual(['a', 'b', 'c', 'd']);
    expect(heap.size).toBe(2);
    expect(heap.popDue(8)).toEqual(['e']);
    expect(heap.popDue(100)).toEqual(['z']);
  });

  it('keeps only the keys asked for, still in order', () => {
    const heap = new DueHeap();
    for (const [at, key] of [[5, 'e'], [1, 'a'], [4, 'd'], [2, 'b'], [3, 'c']] as const) heap.push(at, key);
    heap.retain((key) => key !== 'b' && key !== 'd');
    expect(heap.size).toBe(3);
    expect(heap.popDue(100)).toEqual(['a', 'c', 'e']);
  });
});
