/** Stream names carry the artefact type and the tenant (rule 6): nothing crosses tenants. */
export const streams = {
  tenant: (tenantId: string) => `tenant-${tenantId}`,
  client: (tenantId: string, clientId: string) => `client-${tenantId}.${clientId}`,
  user: (tenantId: string, userId: string) => `user-${tenantId}.${userId}`,
  usernameReservation: (tenantId: string, username: string) => `username-${tenantId}.${username.toLowerCase()}`,
  signingKeys: (tenantId: string) => `signingkeys-${tenantId}`,
  session: (tenantId: string, sessionId: string) => `session-${tenantId}.${sessionId}`,
};
