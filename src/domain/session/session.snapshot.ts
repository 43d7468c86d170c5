import type { SnapshotCodec } from '../shared/decider.js';
import { arrayToChain, chainToArray } from './chain.js';
import { packRotated, rotatedRecords } from './rotated-token-store.js';
import type { CodeState, GrantRefresh, SessionState } from './session.state.js';

/** The session state as saved: its chains as arrays, each grant's rotated tokens as their records. */
type SavedSession = Omit<SessionState, 'redeemedCodes' | 'refresh'> & { redeemedCodes: CodeState[]; refresh: Array<Omit<GrantRefresh, 'rotated'> & { rotated: string }> };

/**
 * Sessions that refresh for months fold tens of thousands of events. Version 13: the state as
 * in session.state.ts (rotated tokens packed, codes compacted, each grant's authTime, grants
 * kept past the end, a grant's DPoP key, the sign-in's amr and each grant's); raise it with any change to evolve, compaction or the state's shape.
 */
export const sessionSnapshot: SnapshotCodec<SessionState> = {
  version: 13,
  encode: (s): SavedSession => ({
    ...s,
    redeemedCodes: chainToArray(s.redeemedCodes),
    refresh: chainToArray(s.refresh).map((g) => ({ ...g, rotated: rotatedRecords(g.rotated) })),
  }),
  decode: (saved) => {
    const s = saved as SavedSession;
    return { ...s, redeemedCodes: arrayToChain(s.redeemedCodes), refresh: arrayToChain(s.refresh.map((g) => ({ ...g, rotated: packRotated(g.rotated) }))) };
  },
};
