import { repeatedParameter } from '../../params.js';
import type { Check } from './check.js';

/** The parameters that decide where an answer goes. */
const ANSWER_ROUTE = new Set(['client_id', 'redirect_uri', 'response_mode']);

/**
 * RFC 6749 §3.1: a parameter sent twice is an error. When it is one that says where the
 * answer goes, the error cannot go back to the client (§4.1.2.1): it runs before any trust.
 */
export const checkAnswerRoute: Check = ({ repeated }) => {
  const unsure = repeated.find((name) => ANSWER_ROUTE.has(name));
  if (unsure) throw repeatedParameter(unsure);
};
