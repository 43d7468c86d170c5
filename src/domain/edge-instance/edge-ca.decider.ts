import { assertNever, type Decider } from '../shared/decider.js';
import type { EdgeCaCreated, EdgeCaEvent } from './edge-ca.events.js';

/** The CA made outside (key generation is randomness: it comes in with the command). */
export type EdgeCaCommand = { kind: 'CreateCa'; ca: EdgeCaCreated['data'] };

export interface EdgeCaState {
  ca?: EdgeCaCreated['data'];
}

/** One CA per tenant: the first one created stays; a second creation racing it decides nothing, and both use the first. */
export const edgeCaDecider: Decider<EdgeCaCommand, EdgeCaEvent, EdgeCaState> = {
  initialState: {},
  decide(command, state) {
    switch (command.kind) {
      case 'CreateCa':
        return state.ca ? [] : [{ type: 'EdgeCaCreated', data: command.ca }];
      default:
        return assertNever(command.kind);
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'EdgeCaCreated':
        return { ca: event.data };
      default:
        return assertNever(event.type);
    }
  },
};
