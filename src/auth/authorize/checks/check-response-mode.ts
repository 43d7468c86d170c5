import { InvalidRequest } from '../../oauth-errors.js';
import type { Check } from './check.js';

/** OAuth 2.0 Multiple Response Type Encoding Practices §2.1 and OAuth 2.0 Form Post Response Mode §2: the modes answered here. */
export const checkResponseMode: Check = (ctx) => {
  const mode = ctx.params.response_mode ?? 'query';
  if (mode !== 'query' && mode !== 'form_post') throw new InvalidRequest('response_mode must be query or form_post');
  ctx.request.responseMode = mode;
};
