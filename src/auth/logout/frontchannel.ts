import type { ClientView } from '../../../projections/clients.projection.js';
import type { SessionEvent } from '../../domain/session/session.events.js';
import { originSource } from '../authorize/flow-result.js';

/** A session that a logout ended, and the clients that had grants in it (those kept too: their session at the relying party ends all the same). */
export interface EndedSession {
  sessionId: string;
  clientIds: string[];
}

/** The sessions the events of one command ended (`SessionRevoked`). */
export function endedSessions(events: SessionEvent[]): EndedSession[] {
  return events.flatMap((e) =>
    e.type === 'SessionRevoked' ? [{ sessionId: e.data.sessionId, clientIds: [...new Set([...e.data.grants, ...(e.data.kept ?? [])].map((g) => g.clientId))] }] : [],
  );
}

/** The iframes of the signed-out page, and the CSP `frame-src` sources that allow exactly them. */
export interface FrontchannelFrames {
  frames: string[];
  frameSrc: string[];
}

/**
 * OpenID Connect Front-Channel Logout 1.0 §3: the `frontchannel_logout_uri` of each client of
 * the ended sessions that registered one, with `iss` and `sid` added to its query (which is
 * kept) when the client requires them (§2).
 */
export async function frontchannelFrames(issuer: string, ended: EndedSession[], client: (clientId: string) => Promise<ClientView | null>): Promise<FrontchannelFrames> {
  const frames = new Set<string>();
  for (const { sessionId, clientIds } of ended) {
    for (const clientId of clientIds) {
      const c = await client(clientId);
      if (!c?.frontchannelLogoutUri) continue;
      const url = new URL(c.frontchannelLogoutUri);
      if (c.frontchannelLogoutSessionRequired) {
        url.searchParams.append('iss', issuer);
        url.searchParams.append('sid', sessionId);
      }
      frames.add(url.href);
    }
  }
  return { frames: [...frames], frameSrc: [...new Set([...frames].map(originSource))] };
}
