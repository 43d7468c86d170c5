import { Inject, Injectable } from '@nestjs/common';
import { constantTimeEqual } from '../../infrastructure/crypto/hashing.js';
import { KeyEncryption } from '../../infrastructure/crypto/key-encryption.js';
import { Clock } from '../../infrastructure/nest/clock.js';
import { parseCookies } from '../../shared/cookies.js';
import { INTERACTION_COOKIE } from '../sessions/browser-session.js';

/** A validated authorization request, carried through login and consent. */
export interface AuthorizationRequest {
  tenantId: string;
  clientId: string;
  redirectUri: string;
  /** Set when the request left `redirect_uri` out (the client's only one is used): the token request may leave it out too. */
  redirectUriOmitted?: true;
  responseMode: 'query' | 'form_post';
  state?: string;
  nonce?: string;
  scope: string[];
  codeChallenge: string;
  codeChallengeMethod: 'S256' | 'plain';
  prompt: string[];
  maxAge?: number;
  loginHint?: string;
  /** The user an `id_token_hint` names: only that user's session may answer the request. */
  hintSubject?: string;
  /** Seconds; when the request arrived (prompt=login asks for an authentication after it). */
  startedAt: number;
  /** Binds the pending request to the browser that started it (the `interaction` cookie). */
  browserNonce: string;
  /** Set once the user has signed in on the login page in this interaction. */
  authenticated?: boolean;
  /** Set once the user has answered the consent page in this interaction. */
  consented?: boolean;
}

const LIFETIME_SECONDS = 600;
/** What randomToken(16) makes: 22 base64url characters. */
const NONCE = /^[A-Za-z0-9_-]{22}$/;

/**
 * Pending authorization requests travel sealed (AES-256-GCM) in the login and consent URLs:
 * nothing to store, nothing a browser can read or alter, valid for ten minutes, and honoured
 * only in the browser that started them (the `interaction` cookie).
 */
@Injectable()
export class Interactions {
  constructor(
    @Inject(KeyEncryption) private readonly encryption: KeyEncryption,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  /** The nonce of the browser's `interaction` cookie, when it has one. */
  browserNonce(cookieHeader: string | undefined): string | undefined {
    const nonce = parseCookies(cookieHeader)[INTERACTION_COOKIE];
    return nonce && NONCE.test(nonce) ? nonce : undefined;
  }

  seal(request: AuthorizationRequest): string {
    return this.encryption.seal('interaction', JSON.stringify(request), request.tenantId);
  }

  /** The request, or undefined when the value is forged, altered, for another tenant, too old, or from another browser. */
  open(tenantId: string, sealed: string | undefined, cookieHeader: string | undefined): AuthorizationRequest | undefined {
    const nonce = parseCookies(cookieHeader)[INTERACTION_COOKIE];
    if (!sealed || !nonce) return undefined;
    let r: AuthorizationRequest;
    try {
      r = JSON.parse(this.encryption.open('interaction', sealed, tenantId)) as AuthorizationRequest;
    } catch {
      return undefined;
    }
    const fresh = r.tenantId === tenantId && this.clock.seconds() - r.startedAt <= LIFETIME_SECONDS;
    return fresh && constantTimeEqual(nonce, r.browserNonce) ? r : undefined;
  }
}
