import { InvalidRequest } from '../../oauth-errors.js';
import { MAX_STATE_LENGTH } from '../../params.js';
import type { Check } from './check.js';

/**
 * The longest free-form values accepted: the request travels sealed in the login and consent
 * links, which must stay well inside what a browser and this server take in a request line.
 */
const MAX_LENGTH = { state: MAX_STATE_LENGTH, nonce: 512, login_hint: 512, ui_locales: 256 } as const;

export const checkLengths: Check = (ctx) => {
  for (const [name, max] of Object.entries(MAX_LENGTH)) {
    if ((ctx.params[name]?.length ?? 0) > max) throw new InvalidRequest(`${name} must be at most ${max} characters`);
  }
  ctx.request.state = ctx.params.state;
  ctx.request.nonce = ctx.params.nonce;
  ctx.request.loginHint = ctx.params.login_hint;
  // OpenID Connect Core §3.1.2.1: the languages the pages are shown in (see edge/pages).
  if (ctx.params.ui_locales) ctx.request.uiLocales = ctx.params.ui_locales;
};
