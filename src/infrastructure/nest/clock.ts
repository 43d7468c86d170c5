/** The source of time; tests replace it. Deciders never read it: time enters through commands. */
export abstract class Clock {
  abstract now(): Date;

  /** Whole seconds since the epoch, as JWTs and OAuth lifetimes count them. */
  seconds(): number {
    return Math.floor(this.now().getTime() / 1000);
  }
}

export class SystemClock extends Clock {
  now(): Date {
    return new Date();
  }
}
