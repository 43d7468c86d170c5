import { Injectable } from '@nestjs/common';

/** RFC 8628 §3.5: the interval grows by 5 s at each `slow_down`. */
const SLOW_DOWN_STEP_SECONDS = 5;
/** Beyond this many devices polling, ended ones are swept out at the next poll. */
const SWEEP_ABOVE = 10_000;

interface Pace {
  last: number;
  interval: number;
  expiresAt: number;
}

/**
 * The pace of each pending device's polls (RFC 8628 §3.5), kept in memory: polls are not worth
 * a log event each, and a device polling two servers in turn is at worst told to slow down late.
 */
@Injectable()
export class DevicePolls {
  private readonly paces = new Map<string, Pace>();

  /** Records a poll at `now` (seconds); returns the new interval when it came too soon, else undefined. */
  poll(tenantId: string, key: string, now: number, interval: number, expiresAt: number): number | undefined {
    const id = `${tenantId}\n${key}`;
    const pace = this.paces.get(id);
    if (this.paces.size > SWEEP_ABOVE) this.sweep(now);
    if (!pace) {
      this.paces.set(id, { last: now, interval, expiresAt });
      return undefined;
    }
    const early = now - pace.last < pace.interval;
    pace.last = now;
    if (!early) return undefined;
    pace.interval += SLOW_DOWN_STEP_SECONDS;
    return pace.interval;
  }

  private sweep(now: number): void {
    for (const [id, pace] of this.paces) if (pace.expiresAt <= now) this.paces.delete(id);
  }
}
