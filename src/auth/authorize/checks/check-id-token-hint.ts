import { InvalidRequest } from '../../oauth-errors.js';
import type { Check } from './check.js';

/** OpenID Connect Core §3.1.2.1: an ID token of ours (expired or not) naming the user the client expects. */
export const checkIdTokenHint: Check = async (ctx, { tokens }) => {
  const hint = ctx.params.id_token_hint;
  if (hint === undefined) return;
  const sub = (await tokens.verify(ctx.tenantId, hint, 'JWT'))?.payload.sub;
  if (typeof sub !== 'string') throw new InvalidRequest('id_token_hint is not an ID token issued here');
  ctx.request.hintSubject = sub;
};
