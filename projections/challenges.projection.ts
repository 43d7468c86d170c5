import type { Projection } from './projection.js';

type Policies = Partial<Record<'totp' | 'email_otp' | 'webauthn', 'required' | 'optional' | 'off'>>;

/** A tenant's second factors and their per-client overrides, keyed by the tenant's id. */
export interface ChallengesView {
  tenantId: string;
  factors: Policies;
  clients: Record<string, Policies>;
  createdAt: string;
  updatedAt: string;
  /** The revision of the stream: its ETag in the admin API. */
  revision: number;
}

export const challengesProjection: Projection<ChallengesView> = {
  view: 'challenges',
  version: 1,
  eventTypes: ['ChallengesChanged', 'ChallengesDeleted'],
  indexes: [],
  documentId: (e) => e.data.tenantId,
  readsDocument: (e) => e.type === 'ChallengesChanged',
  apply(doc, e) {
    if (e.type === 'ChallengesDeleted') return null;
    const { tenantId, factors, clients } = e.data;
    const at = e.metadata.occurredAt;
    return { tenantId, factors, clients, createdAt: doc?.createdAt ?? at, updatedAt: at, revision: e.revision };
  },
};
