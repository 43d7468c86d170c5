import { FailureBudget, OncePerMinute } from './failure-budget.js';

describe('failure budget', () => {
  it('records ten failures of a key a minute, and the first recorded after a pause says how many were not', () => {
    const b = new FailureBudget(10);
    for (let i = 0; i < 10; i++) expect(b.spend('web', 1000 + i)).toEqual({ record: true, unrecordedBefore: 0 });
    for (let i = 0; i < 25; i++) expect(b.spend('web', 2000 + i)).toEqual({ record: false });
    // Another key has a budget of its own.
    expect(b.spend('service', 2000)).toEqual({ record: true, unrecordedBefore: 0 });
    expect(b.spend('web', 61_000)).toEqual({ record: true, unrecordedBefore: 25 });
    expect(b.spend('web', 61_001)).toEqual({ record: true, unrecordedBefore: 0 });
  });
});

describe('a log line once a minute', () => {
  it('writes the first, holds back the rest of the minute, and then says how many it held back', () => {
    const lines: string[] = [];
    const log = new OncePerMinute((line) => lines.push(line));
    log.log('disk full', 1000);
    log.log('disk full', 2000);
    log.log('disk full', 30_000);
    log.log('disk full', 61_000);
    log.log('disk full', 200_000);
    expect(lines).toEqual(['disk full', 'disk full (and 2 more since the last one)', 'disk full']);
  });
});
