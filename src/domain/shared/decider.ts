/** A domain event as a decider sees it: a past-tense type and its data. */
export interface DomainEvent<T extends string = string, D = unknown> {
  type: T;
  data: D;
}

/**
 * A pure aggregate: `decide` turns a command and the current state into new events (or
 * throws a DomainError), `evolve` folds one event into the state. Time and randomness
 * arrive inside the command.
 */
export interface Decider<C, E extends DomainEvent, S> {
  initialState: S;
  decide(command: C, state: S): E[];
  evolve(state: S, event: E): S;
  /** For streams that grow long: how the folded state is saved, so that a load need not read every event again. */
  snapshot?: SnapshotCodec<S>;
  /**
   * Set when `decide` never reads the state (facts recorded as they happen: a failed sign-in,
   * say): the store then appends what it decides without loading the stream, at whatever
   * revision the stream has, as no earlier event could have changed the decision.
   */
  stateless?: true;
}

/** A decider of facts: `decide` turns each command into its events, whatever the stream holds before. */
export function factDecider<C, E extends DomainEvent>(decide: (command: C) => E[]): Decider<C, E, null> {
  return { initialState: null, decide: (command) => decide(command), evolve: (state) => state, stateless: true };
}

/**
 * A folded state as plain JSON and back. `version` names the rules that folded it: it goes up
 * whenever `evolve` or the state's shape changes, so that a state saved under other rules is
 * never used (the stream is folded from its first event instead).
 */
export interface SnapshotCodec<S> {
  version: number;
  encode(state: S): unknown;
  decode(saved: unknown): S;
}

export function fold<E extends DomainEvent, S>(decider: Pick<Decider<unknown, E, S>, 'initialState' | 'evolve'>, events: readonly E[]): S {
  return events.reduce(decider.evolve, decider.initialState);
}

export function assertNever(x: never): never {
  throw new Error(`unexpected value: ${JSON.stringify(x)}`);
}
