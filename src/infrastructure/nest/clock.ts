/** The source of time; tests replace it. Deciders never read it: time enters through commands. */
export abstract class Clock {
  abstract now(): Date;
}

export class SystemClock extends Clock {
  now(): Date {
    return new Date();
  }
}
