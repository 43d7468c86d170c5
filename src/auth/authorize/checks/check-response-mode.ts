import { profileOf } from '../../../domain/security-profile/rules.js';
import { InvalidRequest } from '../../oauth-errors.js';
import type { ResponseMode } from '../jarm.js';
import type { Check } from './check.js';

/**
 * The modes answered here, by their request names: OAuth 2.0 Multiple Response Type Encoding
 * Practices §2.1 (`query`), OAuth 2.0 Form Post Response Mode §2 (`form_post`), and JARM §2.3
 * (`jwt` is `query.jwt` for the code flow, §2.3.4).
 */
export const RESPONSE_MODES: Readonly<Record<string, ResponseMode>> = Object.assign(Object.create(null), {
  query: 'query',
  form_post: 'form_post',
  jwt: 'query.jwt',
  'query.jwt': 'query.jwt',
  'form_post.jwt': 'form_post.jwt',
});

export const checkResponseMode: Check = (ctx) => {
  const mode = RESPONSE_MODES[ctx.params.response_mode ?? 'query'];
  if (!mode) throw new InvalidRequest('response_mode must be query, form_post, jwt, query.jwt or form_post.jwt');
  // FAPI 2.0 Message Signing: the profile may take signed responses (JARM) only.
  const allowed = profileOf(ctx.tenant).responseModes;
  if (!allowed.includes(ctx.params.response_mode ?? 'query')) throw new InvalidRequest(`this tenant answers only in the response modes ${allowed.join(', ')}`);
  ctx.request.responseMode = mode;
};
