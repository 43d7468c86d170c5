import { DevicePolls } from './device-polls.js';

describe('device polls (RFC 8628 §3.5)', () => {
  it('lets a device poll every interval, and adds 5 s to it at each poll that comes sooner', () => {
    const polls = new DevicePolls();
    expect(polls.poll('t', 'k', 100, 5, 700)).toBeUndefined();
    expect(polls.poll('t', 'k', 105, 5, 700)).toBeUndefined();
    expect(polls.poll('t', 'k', 106, 5, 700)).toBe(10);
    expect(polls.poll('t', 'k', 115, 5, 700)).toBe(15);
    expect(polls.poll('t', 'k', 130, 5, 700)).toBeUndefined();
    // Another device, or the same key at another tenant, has its own pace.
    expect(polls.poll('t', 'other', 130, 5, 700)).toBeUndefined();
    expect(polls.poll('u', 'k', 130, 5, 700)).toBeUndefined();
  });
});
