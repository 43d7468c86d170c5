import { EVENT_STORE, type EventStore } from '../../src/infrastructure/event-store/event-store.port.js';
import { ProjectionRunner } from '../../src/infrastructure/read-store/projection-runner.js';
import { READ_STORE, type ReadStore } from '../../src/infrastructure/read-store/read-store.port.js';
import { TokenHistories } from '../../src/central/audit/history-event.js';
import { refreshTokenKey } from '../../projections/tokens.projection.js';
import { artefactHash } from '../../src/auth/sessions/session-commands.js';
import type { TestServer } from './server.js';

/** An entry of a token history (the `token_history` view's entry with its event) as the tests read it. */
export interface HistoryEntry {
  eventId: string;
  correlationId: string;
  type: string;
  actor: string;
  sourceIp?: string;
  userAgent?: string;
  clientId?: string;
  data: { sessionId?: string; grantId?: string; clientId?: string; userId?: string; jti?: string; grants?: Array<{ grantId: string; clientId: string }> } & Record<string, unknown>;
}

/** The events of the session a code, refresh token or cookie belongs to (its first 22 characters name it), on tenant acme. */
export async function sessionEvents(server: TestServer, artefact: string) {
  return (await server.app.get<EventStore>(EVENT_STORE).readStream(`session-acme.${artefact.slice(0, 22)}`)) as unknown as Array<{
    type: string;
    data: Record<string, unknown>;
    metadata: Record<string, unknown>;
  }>;
}

/**
 * The `token_history` entries of tenant acme matching `filter` (sessionId, sub or clientId), in
 * log order, once the view has caught up with every event appended so far.
 */
export async function tokenHistory(server: TestServer, filter: Record<string, string>): Promise<HistoryEntry[]> {
  await server.app.get(ProjectionRunner).waitFor(['token_history'], await server.app.get<EventStore>(EVENT_STORE).headPosition());
  return (await server.app.get(TokenHistories).find('acme', [filter])).events as unknown as HistoryEntry[];
}

/** The `tokens` document of a refresh token of tenant acme (null when there is none), once the view has caught up. */
export async function refreshTokenDocument(server: TestServer, token: string) {
  await server.app.get(ProjectionRunner).waitFor(['tokens'], await server.app.get<EventStore>(EVENT_STORE).headPosition());
  return server.app.get<ReadStore>(READ_STORE).get('tokens', refreshTokenKey('acme', artefactHash(token)));
}
