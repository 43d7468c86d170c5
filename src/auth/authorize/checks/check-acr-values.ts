import { InvalidRequest } from '../../oauth-errors.js';
import type { Check } from './check.js';

/** OpenID Connect Core §3.1.2.1 `acr_values`: space-separated, in order of preference; kept as given (unknown values are ignored later). */
export const checkAcrValues: Check = (ctx) => {
  const raw = ctx.params.acr_values;
  if (raw === undefined || raw === '') return;
  const values = raw.split(' ').filter((v) => v !== '');
  if (values.length > 8 || values.some((v) => v.length > 255)) throw new InvalidRequest('acr_values must be at most 8 values of at most 255 characters');
  ctx.request.acrValues = values;
};
