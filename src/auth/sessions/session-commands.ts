import { Inject, Injectable } from '@nestjs/common';
import { type SessionCommand, sessionDecider, type SessionState } from '../../domain/session/session.decider.js';
import type { SessionEvent } from '../../domain/session/session.events.js';
import { DomainError } from '../../domain/shared/domain-error.js';
import { FailureBudget } from '../../shared/failure-budget.js';
import { streams } from '../../domain/shared/stream-names.js';
import { randomToken, sha256 } from '../../infrastructure/crypto/hashing.js';
import { AggregateStore, type Alongside, type Outcome } from '../../infrastructure/event-store/aggregate-store.js';
import type { KeyEncryption } from '../../infrastructure/crypto/key-encryption.js';
import { Clock } from '../../infrastructure/nest/clock.js';
import { InvalidGrant, InvalidRequest, InvalidScope, InvalidTarget } from '../oauth-errors.js';
import type { RequestOrigin } from '../../infrastructure/event-store/event-store.port.js';

const SESSION_ID = /^[A-Za-z0-9_-]{22}$/;
const STAMP = /^[0-9a-f]{12}$/;
/** Lengths of an artefact with and without its issue stamp (see mintArtefact). */
const STAMPED_LENGTH = 78;
const UNSTAMPED_LENGTH = 66;

/**
 * A session-bound secret (code, refresh token, cookie): `<session id>.<stamp><256 random
 * bits>`, where the stamp is the issue time in milliseconds as 12 hex digits. Only its
 * reference is kept (`artefactHash`).
 */
export interface Artefact {
  value: string;
  hash: string;
}

export function mintArtefact(sessionId: string, now = Date.now()): Artefact {
  const value = `${sessionId}.${now.toString(16).padStart(12, '0')}${randomToken()}`;
  return { value, hash: artefactHash(value) };
}

/**
 * What the log and the views keep of an artefact: its stamp, then its SHA-256. The stamp
 * leads so that refresh-token documents, keyed by it, are added at the end of their index
 * in issue order rather than at random places in it. An artefact from before stamps (66
 * characters) is kept by its SHA-256 alone.
 */
export function artefactHash(value: string): string {
  const stamp = value.length === STAMPED_LENGTH ? value.slice(23, 35) : '';
  return STAMP.test(stamp) ? `${stamp}.${sha256(value)}` : sha256(value);
}

/** The session an artefact belongs to, or undefined when it has not the shape of one. */
export function sessionOf(value: string): string | undefined {
  const dot = value.indexOf('.');
  const sessionId = value.slice(0, dot);
  return dot === 22 && SESSION_ID.test(sessionId) && (value.length === STAMPED_LENGTH || value.length === UNSTAMPED_LENGTH) ? sessionId : undefined;
}

export const newSessionId = () => randomToken(16);

/**
 * The id of the session a sign-in on a pending request starts (`browserNonce`: the request's
 * own, 128 random bits bound to its browser): the same for the same request and user, so that
 * a sign-in form posted twice signs in to one session instead of leaving a second one that no
 * browser holds. Keyed, so that it cannot be told in advance.
 */
export function sessionIdFor(keys: KeyEncryption, tenantId: string, browserNonce: string, userId: string): string {
  return keys.keyedHash('session id', `${tenantId}\n${browserNonce}\n${userId}`).slice('hmac-sha256:'.length).slice(0, 22);
}

/** The refusals a presenting client may cost the log in a minute (per server). */
const REFUSALS_RECORDED_PER_MINUTE = 10;
const REFUSAL_EVENTS: ReadonlySet<string> = new Set(['CodeRefused', 'RefreshRefused', 'RevocationRefused']);
/** The commands that may end in one of those, presented by their `clientId`. */
const REFUSABLE: ReadonlySet<SessionCommand['kind']> = new Set(['RedeemCode', 'RotateRefresh', 'RevokeAccessToken', 'RevokeRefreshToken']);

/**
 * A client presenting another's code or token (or a code with the wrong verifier) has its first
 * ten refusals of each minute recorded; the others are answered alike, unrecorded, so that a
 * leaked token presented in a loop cannot bury its owner's history.
 */
@Injectable()
export class Refusals {
  private readonly budget = new FailureBudget(REFUSALS_RECORDED_PER_MINUTE);

  /** Whether a refusal of `presenter`'s request would be recorded now. */
  open(tenantId: string, presenter: string, now: Date): boolean {
    return this.budget.open(`${tenantId}\n${presenter}`, now.getTime());
  }

  /** Counts a recorded refusal. */
  spend(tenantId: string, presenter: string, now: Date): void {
    this.budget.spend(`${tenantId}\n${presenter}`, now.getTime());
  }
}

/** Runs session commands on the session's stream and translates domain refusals into OAuth errors; refusals within Refusals. */
@Injectable()
export class SessionCommands {
  constructor(
    @Inject(AggregateStore) private readonly aggregates: AggregateStore,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(Refusals) private readonly refusals: Refusals,
  ) {}

  async load(tenantId: string, sessionId: string): Promise<SessionState> {
    return (await this.aggregates.load(streams.session(tenantId, sessionId), sessionDecider)).state;
  }

  async run<R = undefined>(
    tenantId: string,
    sessionId: string,
    command: SessionCommand,
    actor: string,
    options: { origin?: RequestOrigin; alongside?: Alongside<SessionEvent, SessionState, R> } = {},
  ): Promise<Outcome<SessionEvent, SessionState, R>> {
    const now = this.clock.now();
    const presenter = 'clientId' in command && REFUSABLE.has(command.kind) ? command.clientId : undefined;
    const refusable = presenter !== undefined && !this.refusals.open(tenantId, presenter, now) ? { ...command, unrecorded: true } : command;
    try {
      const outcome = await this.aggregates.execute(streams.session(tenantId, sessionId), sessionDecider, refusable, { tenantId, actor, now, ...options.origin }, options.alongside);
      if (presenter !== undefined && outcome.events.some((e) => REFUSAL_EVENTS.has(e.type))) this.refusals.spend(tenantId, presenter, now);
      return outcome;
    } catch (e) {
      if (!(e instanceof DomainError)) throw e;
      switch (e.code) {
        case 'code_invalid':
        case 'refresh_invalid':
        case 'session_revoked':
          throw new InvalidGrant(e.message);
        case 'invalid_value':
          throw command.kind === 'RotateRefresh' ? new InvalidScope(e.message) : new InvalidRequest(e.message);
        case 'invalid_target':
          throw new InvalidTarget(e.message);
        default:
          throw new InvalidRequest(e.message);
      }
    }
  }
}
