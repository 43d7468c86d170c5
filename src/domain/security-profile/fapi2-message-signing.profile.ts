import { FAPI2_SECURITY } from './fapi2-security.profile.js';
import type { SecurityProfileRules } from './profile.js';

/** FAPI 2.0 Message Signing: the Security Profile, with signed requests and signed responses. */
export const FAPI2_MESSAGE_SIGNING: SecurityProfileRules = {
  ...FAPI2_SECURITY,
  // Signed authorization requests as signed request objects (RFC 9101), pushed.
  requireSignedRequests: true,
  // Signed authorization responses signed (JARM).
  responseModes: ['jwt', 'query.jwt', 'form_post.jwt'],
};
