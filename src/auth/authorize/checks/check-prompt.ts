import { InvalidRequest } from '../../oauth-errors.js';
import { scopeList } from '../../params.js';
import type { Check } from './check.js';

const PROMPTS = new Set(['none', 'login', 'consent']);

/**
 * OpenID Connect Core §3.1.2.1: `prompt` values, `none` only alone; `max_age` a number of
 * seconds.
 */
export const checkPrompt: Check = (ctx) => {
  const prompt = scopeList(ctx.params.prompt) ?? [];
  if (prompt.some((p) => !PROMPTS.has(p)) || (prompt.includes('none') && prompt.length > 1)) throw new InvalidRequest('prompt must be none, or any of login and consent');
  ctx.request.prompt = prompt;
  const maxAge = ctx.params.max_age;
  if (maxAge === undefined) return;
  if (!/^\d{1,10}$/.test(maxAge)) throw new InvalidRequest('max_age must be a non-negative integer');
  ctx.request.maxAge = Number(maxAge);
};
