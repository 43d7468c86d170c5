import type { DomainEvent } from '../shared/decider.js';

/** An authorization request as its checks left it: what /authorize resumes from a pushed request. */
export interface PushedRequestContent {
  redirectUri: string;
  redirectUriOmitted?: true;
  responseMode: 'query' | 'form_post' | 'query.jwt' | 'form_post.jwt';
  state?: string;
  nonce?: string;
  scope: string[];
  codeChallenge: string;
  codeChallengeMethod: 'S256' | 'plain';
  prompt: string[];
  maxAge?: number;
  loginHint?: string;
  /** The user an `id_token_hint` named (the hint itself, a token, is not kept). */
  hintSubject?: string;
  /** RFC 8707: the identifier of the resource the request is for. */
  resource?: string;
  /** RFC 9449 §10: the DPoP key thumbprint the code is bound to. */
  dpopJkt?: string;
  /** MFA: `acr_values`, in order of preference. */
  acrValues?: string[];
}

/**
 * RFC 9126 §2.2: a client pushed an authorization request and got a `request_uri` for it. The
 * stream is named by the request_uri's SHA-256, which is all that is kept of it; `expiresAt`
 * in seconds since the epoch.
 */
export type AuthorizationRequestPushed = DomainEvent<
  'AuthorizationRequestPushed',
  { tenantId: string; clientId: string; requestUriHash: string; expiresAt: number; request: PushedRequestContent }
>;
/** RFC 9126 §4: the `request_uri` was used at the authorization endpoint (at `at`, seconds); it is spent. */
export type PushedRequestUsed = DomainEvent<'PushedRequestUsed', { tenantId: string; clientId: string; requestUriHash: string; at: number }>;

export type PushedRequestEvent = AuthorizationRequestPushed | PushedRequestUsed;
