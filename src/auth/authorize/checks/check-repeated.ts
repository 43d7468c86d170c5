import { repeatedParameter } from '../../params.js';
import type { Check } from './check.js';

/** RFC 6749 §3.1: request parameters MUST NOT be included more than once. */
export const checkRepeated: Check = ({ repeated }) => {
  if (repeated.length) throw repeatedParameter(repeated[0]);
};
