import { FailureBudget } from './failure-budget.js';

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
