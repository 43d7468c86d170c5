/** Stream names carry the artefact type and the tenant (rule 6): nothing crosses tenants. */
export const streams = {
  tenant: (tenantId: string) => `tenant-${tenantId}`,
  /** Deployment-wide settings: the one stream outside every tenant. */
  systemSettings: () => 'system-settings',
  client: (tenantId: string, clientId: string) => `client-${tenantId}.${clientId}`,
  user: (tenantId: string, userId: string) => `user-${tenantId}.${userId}`,
  usernameReservation: (tenantId: string, username: string) => `username-${tenantId}.${username.toLowerCase()}`,
  signingKeys: (tenantId: string) => `signingkeys-${tenantId}`,
  /** Tokens a client obtained for itself (client_credentials), and its failed authentications. */
  clientTokens: (tenantId: string, clientId: string) => `clienttokens-${tenantId}.${clientId}`,
  loginFailures: (tenantId: string) => `loginfailures-${tenantId}`,
  session: (tenantId: string, sessionId: string) => `session-${tenantId}.${sessionId}`,
  resource: (tenantId: string, resourceId: string) => `resource-${tenantId}.${resourceId}`,
  resourceIdentifier: (tenantId: string, identifier: string) => `resourceidentifier-${tenantId}.${identifier}`,
  permission: (tenantId: string, permissionId: string) => `permission-${tenantId}.${permissionId}`,
  role: (tenantId: string, roleId: string) => `role-${tenantId}.${roleId}`,
  scope: (tenantId: string, scopeId: string) => `scope-${tenantId}.${scopeId}`,
  /** Requests the edge's proxy refused for a resource (the audit trail of denials). */
  proxyDenials: (tenantId: string, resourceId: string) => `proxydenials-${tenantId}.${resourceId}`,
  /** PAR: one pushed authorization request, named by its request_uri's SHA-256. */
  pushedRequest: (tenantId: string, requestUriHash: string) => `par-${tenantId}.${requestUriHash}`,
  /** Device grant (RFC 8628): one device authorization, named by a keyed hash of its user code. */
  deviceAuthorization: (tenantId: string, key: string) => `device-${tenantId}.${key}`,
  // Edge pages: a tenant's texts per language, its theme, its forms.
  locale: (tenantId: string, tag: string) => `locale-${tenantId}.${tag}`,
  theme: (tenantId: string) => `theme-${tenantId}`,
  form: (tenantId: string, form: string) => `form-${tenantId}.${form}`,
  // Webhooks: one subscription.
  webhook: (tenantId: string, subscriptionId: string) => `webhook-${tenantId}.${subscriptionId}`,
  // Shared Signals: a receiver's stream, and what it acknowledged of its polled SETs.
  ssfStream: (tenantId: string, streamId: string) => `ssfstream-${tenantId}.${streamId}`,
  ssfAcks: (tenantId: string, streamId: string) => `ssfacks-${tenantId}.${streamId}`,
  // Edges: a registered traffic-plane instance, and the tenant's CA of their client certificates.
  edge: (tenantId: string, edgeId: string) => `edge-${tenantId}.${edgeId}`,
  edgeCa: (tenantId: string) => `edgeca-${tenantId}`,
  // Second factors (MFA): a tenant's policy, and each user's factors.
  challenges: (tenantId: string) => `challenges-${tenantId}`,
  secondFactors: (tenantId: string, userId: string) => `secondfactors-${tenantId}.${userId}`,
};
