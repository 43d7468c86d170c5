import type { Answer } from './receiver-pools.js';

/** The longest error kept from a receiver's answer (it is recorded in an event and shown in the admin API). */
const MAX_ERROR = 200;

/** The body of an answer as a JSON object, or undefined when it is none. */
function jsonObject(body: string | undefined): Record<string, unknown> | undefined {
  if (body === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(body);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** `code: description`, or the code alone, without control characters and bounded. */
function describe(code: string, description: unknown): string {
  const text = typeof description === 'string' && description !== '' ? `${code}: ${description}` : code;
  return text.replace(/[\u0000-\u001f\u007f]/g, ' ').slice(0, MAX_ERROR);
}

/**
 * RFC 8935 §2.3: a push receiver that could not parse, validate or authenticate a SET answers
 * 400 with a JSON `err` (§2.4: `invalid_request`, `invalid_key`, `invalid_issuer`,
 * `invalid_audience`, `authentication_failed`, `access_denied`) and an optional `description`.
 * It rejected that SET; the same SET again cannot succeed. Any other answer may be transient.
 */
export function setRefusal(answer: Answer): string | undefined {
  if (answer.status !== 400) return undefined;
  const body = jsonObject(answer.body);
  if (typeof body?.err !== 'string' || body.err === '') return undefined;
  return describe(body.err, body.description);
}

/**
 * OpenID Connect Back-Channel Logout 1.0 §2.8: an RP answers 400 when the logout request was
 * invalid or its logout failed, optionally with `error` and `error_description` (RFC 6749
 * §5.2). Each attempt carries the same claims (§2.4), checked by the same rules (§2.6): the RP
 * will answer the same, so the delivery is dead-lettered at once (an administrator redelivers
 * it once the RP is mended). An RP that fails for a passing reason answers 5xx, which is retried.
 */
export function logoutRefusal(answer: Answer): string | undefined {
  if (answer.status !== 400) return undefined;
  const body = jsonObject(answer.body);
  if (typeof body?.error === 'string' && body.error !== '') return describe(body.error, body.error_description);
  return 'refused (400 Bad Request)';
}
