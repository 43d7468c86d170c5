import type { Projection } from './projection.js';

/** Users keyed `<tenant>/<user id>`, found by username at login; the password only as its slow hash. */
export interface UserView {
  tenantId: string;
  userId: string;
  username: string;
  usernameKey: string;
  passwordHash: string;
  claims: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
}

export const userKey = (tenantId: string, userId: string) => `${tenantId}/${userId}`;

export const usersProjection: Projection<UserView> = {
  view: 'users',
  version: 1,
  eventTypes: ['UserCreated'],
  indexes: [{ fields: ['tenantId', 'usernameKey'], unique: true }],
  documentId: (e) => userKey(e.data.tenantId, e.data.userId),
  apply(_doc, e) {
    const { tenantId, userId, username, passwordHash, claims, createdAt } = e.data;
    return { tenantId, userId, username, usernameKey: username.toLowerCase(), passwordHash, claims, createdAt, updatedAt: createdAt };
  },
};
