import { assertNever, type Decider } from '../shared/decider.js';
import type { SigningAlg } from '../tenant/tenant.events.js';
import type { SigningKeyEvent, SigningKeyGenerated } from './signing-key.events.js';

/**
 * How long a key that stopped signing stays published: longer than any token it signed can
 * live (access tokens live at most a day through the admin API, ID tokens as long or 10
 * minutes), so a relying party never meets a token whose key it can no longer fetch.
 */
export const RETIRE_AFTER_SECONDS = 2 * 24 * 3600;

export type SigningKeyCommand =
  | { kind: 'GenerateSigningKey'; key: SigningKeyGenerated['data']; onlyIfNone: boolean }
  /** Records the steps of the keys' lifecycle that are due at `now` (see keyStatuses). */
  | { kind: 'RecordKeySteps'; tenantId: string; now: number };

export interface SigningKeyState {
  keys: SigningKeyGenerated['data'][];
  /** Keys whose activation and retirement are on record. */
  activated: string[];
  retired: string[];
}

export type KeyStatus = 'announced' | 'current' | 'retiring' | 'retired';

export interface KeyLifecycle {
  kid: string;
  alg: SigningAlg;
  status: KeyStatus;
  /** When it signs, or signed, from (seconds). */
  activatesAt: number;
  /** When the next key of its algorithm took over, and when it leaves the key set. */
  replacedAt?: number;
  retiresAt?: number;
}

const activation = (k: SigningKeyGenerated['data']) => k.activatesAt ?? Math.floor(Date.parse(k.createdAt) / 1000);

/**
 * Each key's place at `now`, from the times alone (the events of each step record them, but a
 * late record never changes which key signs): per algorithm, the newest key whose activation
 * has come is `current`; a later one `announced` (published, not signing); an older one
 * `retiring` until RETIRE_AFTER_SECONDS after its successor took over, then `retired`.
 */
export function keyStatuses(state: SigningKeyState, now: number): KeyLifecycle[] {
  const out: KeyLifecycle[] = [];
  const algs = [...new Set(state.keys.map((k) => k.alg))];
  for (const alg of algs) {
    const keys = state.keys.filter((k) => k.alg === alg).sort((a, b) => activation(a) - activation(b));
    const live = keys.filter((k) => activation(k) <= now);
    const current = live.at(-1);
    for (const [i, k] of keys.entries()) {
      const at = activation(k);
      if (at > now) {
        out.push({ kid: k.kid, alg, status: 'announced', activatesAt: at });
        continue;
      }
      if (k === current) {
        out.push({ kid: k.kid, alg, status: 'current', activatesAt: at });
        continue;
      }
      const next = keys.slice(i + 1).find((n) => activation(n) <= now)!;
      const replacedAt = activation(next);
      const retiresAt = replacedAt + RETIRE_AFTER_SECONDS;
      out.push({ kid: k.kid, alg, status: retiresAt <= now ? 'retired' : 'retiring', activatesAt: at, replacedAt, retiresAt });
    }
  }
  return out;
}

export const signingKeyDecider: Decider<SigningKeyCommand, SigningKeyEvent, SigningKeyState> = {
  initialState: { keys: [], activated: [], retired: [] },
  decide(command, state) {
    switch (command.kind) {
      case 'GenerateSigningKey':
        if (command.onlyIfNone && state.keys.some((k) => k.alg === command.key.alg)) return [];
        return [{ type: 'SigningKeyGenerated', data: command.key }];
      case 'RecordKeySteps': {
        const events: SigningKeyEvent[] = [];
        const statuses = keyStatuses(state, command.now);
        for (const k of statuses) {
          const announcedKey = state.keys.find((x) => x.kid === k.kid)!.activatesAt !== undefined;
          if (k.status !== 'announced' && announcedKey && !state.activated.includes(k.kid)) {
            const replaced = statuses.find((o) => o.alg === k.alg && o.replacedAt === k.activatesAt)?.kid;
            events.push({ type: 'SigningKeyActivated', data: { tenantId: command.tenantId, kid: k.kid, alg: k.alg, at: k.activatesAt, ...(replaced ? { replaced } : {}) } });
          }
          if (k.status === 'retired' && !state.retired.includes(k.kid)) events.push({ type: 'SigningKeyRetired', data: { tenantId: command.tenantId, kid: k.kid, alg: k.alg, at: k.retiresAt! } });
        }
        return events;
      }
      default:
        return assertNever(command);
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'SigningKeyGenerated':
        return { ...state, keys: [...state.keys, event.data] };
      case 'SigningKeyActivated':
        return { ...state, activated: [...state.activated, event.data.kid] };
      case 'SigningKeyRetired':
        return { ...state, retired: [...state.retired, event.data.kid] };
      default:
        return assertNever(event);
    }
  },
};
