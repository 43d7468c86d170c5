import { type Decider, type DomainEvent, fold } from './decider.js';
import { DomainError, type DomainErrorCode } from './domain-error.js';

/**
 * Given events, when a command, then the events decided (or the DomainError it threw): how
 * every decider spec reads. Pure: it folds and decides, the spec asserts.
 */
export interface Given<C, E extends DomainEvent, S> {
  /** The events given. */
  readonly events: E[];
  /** The state folded from them. */
  readonly state: S;
  /** The events the command decides; a refusal throws its DomainError as decide does. */
  when(command: C): E[];
  /** The code of the DomainError the command is refused with, or 'no error' when it decides. */
  refused(command: C): DomainErrorCode | 'no error';
  /** The events given followed by those the command decides: the next `given`. */
  after(command: C): E[];
}

/**
 * `state` defaults to the fold of `events`; a spec that restored a state (from a snapshot, say)
 * passes it, with the events it stands for.
 */
export function given<C, E extends DomainEvent, S>(decider: Decider<C, E, S>, events: readonly E[] = [], state: S = fold(decider, events)): Given<C, E, S> {
  const when = (command: C) => decider.decide(command, state);
  return {
    events: [...events],
    state,
    when,
    refused(command) {
      try {
        when(command);
      } catch (e) {
        if (e instanceof DomainError) return e.code;
        throw e;
      }
      return 'no error';
    },
    after: (command) => [...events, ...when(command)],
  };
}

/** `given` bound to one decider, for a spec that speaks of one aggregate. */
export function givenFor<C, E extends DomainEvent, S>(decider: Decider<C, E, S>) {
  return (events: readonly E[] = [], state?: S) => given(decider, events, state);
}

/** The types of events, in order: what most assertions compare. */
export const types = (events: readonly DomainEvent[]): string[] => events.map((e) => e.type);
