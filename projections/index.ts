import { backchannelSessionsProjection } from './backchannel-sessions.projection.js';
import { clientsProjection } from './clients.projection.js';
import { localesProjection } from './locales.projection.js';
import { themesProjection } from './themes.projection.js';
import { formsProjection } from './forms.projection.js';
import { challengesProjection } from './challenges.projection.js';
import type { Projection } from './projection.js';
import { permissionsProjection } from './permissions.projection.js';
import { resourcesProjection } from './resources.projection.js';
import { rolesProjection } from './roles.projection.js';
import { scopesProjection } from './scopes.projection.js';
import { sessionsProjection } from './sessions.projection.js';
import { ssfStreamsProjection } from './ssf-streams.projection.js';
import { systemSettingsProjection } from './system-settings.projection.js';
import { tenantsProjection } from './tenants.projection.js';
import { tokenHistoryProjection } from './token-history.projection.js';
import { tokensProjection } from './tokens.projection.js';
import { usersProjection } from './users.projection.js';
import { webhookSubscriptionsProjection } from './webhook-subscriptions.projection.js';
import { edgesProjection } from './edges.projection.js';
import { edgeCertificatesProjection } from './edge-certificates.projection.js';

/** Every view the server keeps, in one list for the runner and for rebuilds. */
export const allProjections: readonly Projection<any>[] = [
  tenantsProjection,
  clientsProjection,
  usersProjection,
  sessionsProjection,
  tokensProjection,
  tokenHistoryProjection,
  resourcesProjection,
  permissionsProjection,
  rolesProjection,
  systemSettingsProjection,
  scopesProjection,
  // Edge pages.
  localesProjection,
  themesProjection,
  formsProjection,
  // Second factors (MFA).
  challengesProjection,
  backchannelSessionsProjection,
  // Webhooks.
  webhookSubscriptionsProjection,
  // Shared Signals transmitter.
  ssfStreamsProjection,
  // Edges: registered traffic-plane instances and their client certificates.
  edgesProjection,
  edgeCertificatesProjection,
];
