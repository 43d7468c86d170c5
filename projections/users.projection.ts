import type { Projection } from './projection.js';

/** Users keyed `<tenant>/<user id>`, found by username at login; the password only as its slow hash. */
export interface UserView {
  tenantId: string;
  userId: string;
  username: string;
  usernameKey: string;
  passwordHash: string;
  claims: Record<string, unknown>;
  /** Absent or false: the user may sign in and their tokens are honoured. */
  disabled?: boolean;
  /** Ids of the roles the user holds. */
  roles: string[];
  createdAt: string;
  updatedAt: string;
  /** The revision of the user's stream this document shows: its ETag in the admin API. */
  revision: number;
}

export const userKey = (tenantId: string, userId: string) => `${tenantId}/${userId}`;

/** Events of the user's stream that change nothing shown, but move its revision (the ETag). */
const REVISION_ONLY = new Set(['ConsentGranted', 'ConsentDenied', 'LoginFailed']);

export const usersProjection: Projection<UserView> = {
  view: 'users',
  // 2: admin edits (claims, password, disabled), deletion, the stream revision, the e-mail index.
  // 3: roles.
  version: 3,
  eventTypes: ['UserCreated', 'UserUpdated', 'UserPasswordChanged', 'UserDisabled', 'UserEnabled', 'UserDeleted', 'RoleAssigned', 'RoleUnassigned', ...REVISION_ONLY],
  indexes: [{ fields: ['tenantId', 'usernameKey'], unique: true }, { fields: ['tenantId', 'claims.email'] }],
  // A failed sign-in with an unknown username is on the tenant's stream: no user's document.
  documentId: (e) => (e.data.userId === undefined ? undefined : userKey(e.data.tenantId, e.data.userId)),
  readsDocument: (e) => e.type !== 'UserCreated',
  apply(doc, e) {
    if (e.type === 'UserCreated') {
      const { tenantId, userId, username, passwordHash, claims, createdAt } = e.data;
      return { tenantId, userId, username, usernameKey: username.toLowerCase(), passwordHash, claims, roles: [], createdAt, updatedAt: createdAt, revision: e.revision };
    }
    if (!doc) return null;
    const at = { revision: e.revision };
    const changed = { ...at, updatedAt: e.metadata.occurredAt };
    switch (e.type) {
      case 'UserUpdated':
        return { ...doc, claims: e.data.claims, ...changed };
      case 'UserPasswordChanged':
        return { ...doc, passwordHash: e.data.passwordHash, ...changed };
      case 'UserDisabled':
        return { ...doc, disabled: true, ...changed };
      case 'UserEnabled':
        return { ...doc, disabled: false, ...changed };
      case 'UserDeleted':
        return null;
      case 'RoleAssigned':
        return { ...doc, roles: [...(doc.roles ?? []), e.data.roleId], ...changed };
      case 'RoleUnassigned':
        return { ...doc, roles: (doc.roles ?? []).filter((r) => r !== e.data.roleId), ...changed };
      default:
        return { ...doc, ...at };
    }
  },
};
