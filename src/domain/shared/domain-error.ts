/**
 * A rule of the domain was broken. Domain errors know nothing of HTTP; the boundary
 * translates `code` into a protocol error.
 */
export class DomainError extends Error {
  constructor(
    readonly code: DomainErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export type DomainErrorCode =
  | 'already_exists'
  /** The item is still referred to (a permission by a role, say) and cannot go. */
  | 'in_use'
  | 'not_found'
  | 'invalid_value'
  | 'code_invalid'
  | 'code_replayed'
  | 'refresh_invalid'
  | 'refresh_replayed'
  | 'session_revoked'
  | 'client_mismatch'
  /** Resource indicators (RFC 8707 §2): the resource asked for is not one the grant allows. */
  | 'invalid_target';
