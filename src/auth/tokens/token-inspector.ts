import { Inject, Injectable } from '@nestjs/common';
import { type SessionView, sessionKey } from '../../../projections/sessions.projection.js';
import { accessTokenKey, refreshTokenKey, type TokenView } from '../../../projections/tokens.projection.js';
import { grantOfTokenId } from '../../domain/session/session.events.js';
import { EVENT_STORE, type EventStore } from '../../infrastructure/event-store/event-store.port.js';
import { Clock } from '../../infrastructure/nest/clock.js';
import { ProjectionRunner } from '../../infrastructure/read-store/projection-runner.js';
import { READ_STORE, type ReadStore } from '../../infrastructure/read-store/read-store.port.js';
import { Directory } from '../../shared/directory.js';
import { artefactHash, sessionOf } from '../sessions/session-commands.js';
import { TokenIssuer } from './token-issuer.js';

export type TokenHint = 'access_token' | 'refresh_token';

export interface Inspection {
  token: TokenView;
  /** Refresh tokens: the reference of the presented value (`artefactHash`). */
  hash?: string;
  active: boolean;
}

const VIEWS = ['tokens', 'sessions', 'users'] as const;

/**
 * Finds a presented token in the views and says whether it is active. Before it reads, it
 * waits until the views have passed the head of the log as it was when the request came
 * in, so a revocation that happened before the request is always seen (rule 4).
 */
@Injectable()
export class TokenInspector {
  constructor(
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(ProjectionRunner) private readonly projections: ProjectionRunner,
    @Inject(TokenIssuer) private readonly issuer: TokenIssuer,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(Directory) private readonly directory: Directory,
  ) {}

  /**
   * `audience`: `issuer` (the default) finds only access tokens for this server itself (its
   * userinfo, its admin API); `any` also those for a resource (RFC 8707), for the endpoints
   * that serve resource servers or the token's client (introspection, revocation, the edge).
   */
  async inspect(tenantId: string, token: string, hint?: TokenHint, audience: 'issuer' | 'any' = 'issuer'): Promise<Inspection | undefined> {
    await this.projections.waitFor(VIEWS, await this.events.headPosition());
    const order: TokenHint[] = hint === 'refresh_token' ? ['refresh_token', 'access_token'] : ['access_token', 'refresh_token'];
    for (const kind of order) {
      const found = kind === 'access_token' ? await this.findAccess(tenantId, token) : await this.findRefresh(tenantId, token);
      if (!found) continue;
      if (kind === 'access_token' && !(await this.forAudience(tenantId, found.token.audience ?? [], audience))) return undefined;
      return { ...found, active: await this.isActive(found.token) };
    }
    return undefined;
  }

  /**
   * RFC 9068 §4: a token is taken where it is meant to be. For this server itself when the issuer
   * is among its audiences; with `any`, also for a resource of the tenant its audience names
   * (RFC 8707); an audience nothing here answers to makes it no token of ours.
   */
  private async forAudience(tenantId: string, aud: readonly string[], audience: 'issuer' | 'any'): Promise<boolean> {
    if (aud.includes(this.directory.issuer(tenantId))) return true;
    if (audience === 'issuer') return false;
    for (const a of aud) if (await this.directory.resourceByIdentifier(tenantId, a)) return true;
    return false;
  }

  private async findAccess(tenantId: string, token: string): Promise<Omit<Inspection, 'active'> | undefined> {
    const jwt = await this.issuer.verify(tenantId, token, 'at+jwt');
    const jti = jwt?.payload.jti;
    if (typeof jti !== 'string') return undefined;
    const doc = await this.reads.get<TokenView>('tokens', accessTokenKey(tenantId, jti));
    if (doc) return doc.tenantId === tenantId ? { token: doc } : undefined;
    // No document unless it was revoked (or issued before its jti named its grant): its verified JWT describes it.
    let view = described.get(jwt!.payload);
    if (!view) {
      view = tokenOf(tenantId, jti, jwt!.payload, this.clock.seconds());
      if (!view) return undefined;
      described.set(jwt!.payload, view);
    }
    return { token: view };
  }

  private async findRefresh(tenantId: string, token: string): Promise<Omit<Inspection, 'active'> | undefined> {
    if (!sessionOf(token)) return undefined;
    const hash = artefactHash(token);
    const doc = await this.reads.get<TokenView>('tokens', refreshTokenKey(tenantId, hash));
    return doc && doc.tenantId === tenantId ? { token: doc, hash } : undefined;
  }

  private async isActive(t: TokenView): Promise<boolean> {
    if (t.status !== 'active' || t.expiresAt <= this.clock.seconds()) return false;
    // A deleted client's tokens all end with it (its id is never registered again).
    if (!(await this.directory.client(t.tenantId, t.clientId))) return false;
    // A deleted or disabled user's tokens end at once, whatever their sessions' state.
    if (t.userId && !(await this.directory.activeUser(t.tenantId, t.userId))) return false;
    if (!t.sessionId) return true;
    const session = await this.reads.get<SessionView>('sessions', sessionKey(t.tenantId, t.sessionId));
    if (!session) return false;
    if (t.grantId && session.revokedGrants.includes(t.grantId)) return false;
    // A grant kept past its session's end (an offline grant at a logout) lives on.
    return !session.revoked || (t.grantId !== undefined && session.keptGrants?.includes(t.grantId) === true);
  }
}

/** Views made from verified JWTs, kept as long as the issuer remembers the JWT. */
const described = new WeakMap<object, TokenView>();

/**
 * What a verified access token says, when it says it as RFC 9068 §2.2 has it: claims of their
 * types, at least one audience (this server, or a resource: which one `inspect` decides), and
 * no `nbf` still ahead (RFC 7519 §4.1.5). Anything else is no token of ours.
 */
function tokenOf(tenantId: string, jti: string, claims: Record<string, unknown>, now: number): TokenView | undefined {
  const { client_id: clientId, sub, scope, aud, iat, exp, nbf, sid, cnf } = claims;
  const audience = typeof aud === 'string' ? [aud] : aud;
  if (typeof clientId !== 'string' || typeof sub !== 'string' || typeof iat !== 'number' || typeof exp !== 'number') return undefined;
  if ((scope !== undefined && typeof scope !== 'string') || (nbf !== undefined && (typeof nbf !== 'number' || nbf > now))) return undefined;
  if (!Array.isArray(audience) || audience.length === 0 || !audience.every((a) => typeof a === 'string')) return undefined;
  const grantId = grantOfTokenId(jti);
  if (sid !== undefined && (typeof sid !== 'string' || !grantId)) return undefined;
  const jkt = (cnf as { jkt?: unknown } | undefined)?.jkt as string | undefined;
  if (cnf !== undefined && typeof jkt !== 'string') return undefined;
  return {
    tenantId,
    kind: 'access_token',
    clientId,
    sub,
    ...(sid !== undefined ? { userId: sub, sessionId: sid, grantId } : {}),
    jti,
    scope: scope ? scope.split(' ') : [],
    audience: audience as string[],
    issuedAt: iat,
    expiresAt: exp,
    status: 'active',
    ...(jkt !== undefined ? { jkt } : {}),
  };
}
