import { assertNever, type Decider } from '../shared/decider.js';
import type { SigningKeyEvent, SigningKeyGenerated } from './signing-key.events.js';

export type SigningKeyCommand = { kind: 'GenerateSigningKey'; key: SigningKeyGenerated['data']; onlyIfNone: boolean };
export interface SigningKeyState {
  keys: SigningKeyGenerated['data'][];
}

export const signingKeyDecider: Decider<SigningKeyCommand, SigningKeyEvent, SigningKeyState> = {
  initialState: { keys: [] },
  decide(command, state) {
    switch (command.kind) {
      case 'GenerateSigningKey':
        if (command.onlyIfNone && state.keys.some((k) => k.alg === command.key.alg)) return [];
        return [{ type: 'SigningKeyGenerated', data: command.key }];
      default:
        return assertNever(command.kind);
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'SigningKeyGenerated':
        return { keys: [...state.keys, event.data] };
      default:
        return assertNever(event.type);
    }
  },
};
