import { Inject, Injectable } from '@nestjs/common';
import { constantTimeEqual } from '../../infrastructure/crypto/hashing.js';
import { KeyEncryption } from '../../infrastructure/crypto/key-encryption.js';
import { Clock } from '../../infrastructure/nest/clock.js';
import { TenantCookies } from '../../shared/cookies.js';
import { CONFIG, type Config } from '../../config.js';
import { INTERACTION_COOKIE } from '../sessions/browser-session.js';
import type { ResponseMode } from './jarm.js';

/** A validated authorization request, carried through login and consent. */
export interface AuthorizationRequest {
  tenantId: string;
  clientId: string;
  redirectUri: string;
  /** Set when the request left `redirect_uri` out (the client's only one is used): the token request may leave it out too. */
  redirectUriOmitted?: true;
  /** How the answer travels; `.jwt`: as a signed JWT (JARM). */
  responseMode: ResponseMode;
  state?: string;
  nonce?: string;
  scope: string[];
  codeChallenge: string;
  codeChallengeMethod: 'S256' | 'plain';
  prompt: string[];
  maxAge?: number;
  loginHint?: string;
  /** OIDC Core §3.1.2.1 `ui_locales`: the languages the pages of this request are shown in, by preference. */
  uiLocales?: string;
  /** The user an `id_token_hint` names: only that user's session may answer the request. */
  hintSubject?: string;
  /** RFC 8707: the identifier of the resource the request is for. */
  resource?: string;
  /** RFC 9449 §10: the DPoP key thumbprint the code is bound to. */
  dpopJkt?: string;
  /** MFA: OpenID Connect Core §3.1.2.1 `acr_values`, in order of preference. */
  acrValues?: string[];
  /** Seconds; when the request arrived (prompt=login asks for an authentication after it). */
  startedAt: number;
  /** Binds the pending request to the browser that started it: the value of its own cookie, `interaction-<interactionId>`. */
  browserNonce: string;
  /** Names the request's cookie, so that a browser may have several requests pending (tabs); absent in requests sealed before. */
  interactionId?: string;
  /** Set once the user has signed in on the login page in this interaction. */
  authenticated?: boolean;
  /** Set once the user has answered the consent page in this interaction. */
  consented?: boolean;
  /**
   * MFA: set once the password was right and a second factor is due: the user who typed it, the
   * factors they may answer with, and the sealed secret of an authenticator app being set up.
   * Passkeys: `enrolWebauthn` when one is to be registered, and the WebAuthn challenge the page
   * last asked the authenticator to sign (single use, until `expiresAt`, in seconds).
   * `thenEnrol`: a required app or passkey to set up once one of `factors` is proved; `proved`:
   * the `amr` of that proof, carried to the enrolment that completes the sign-in.
   */
  secondFactor?: {
    userId: string;
    factors: Array<'totp' | 'email_otp' | 'webauthn'>;
    enrolTotp?: string;
    emailSent?: true;
    enrolWebauthn?: true;
    passkeyChallenge?: { value: string; expiresAt: number };
    thenEnrol?: 'totp' | 'webauthn';
    proved?: string[];
  };
  /** Device grant (RFC 8628): set on the user-code page's interactions, with the key of the device authorization once a code names one. */
  device?: { key?: string };
}

const LIFETIME_SECONDS = 600;

/** The name of the cookie that binds `request` to its browser. */
export const interactionCookie = (request: Pick<AuthorizationRequest, 'interactionId'>) =>
  request.interactionId ? `${INTERACTION_COOKIE}-${request.interactionId}` : INTERACTION_COOKIE;

/**
 * Pending authorization requests travel sealed (AES-256-GCM) in the login and consent URLs:
 * nothing to store, nothing a browser can read or alter, valid for ten minutes, and honoured
 * only in the browser that started them (each request's own `interaction-<id>` cookie, cleared
 * when it completes).
 */
@Injectable()
export class Interactions {
  private readonly cookies: TenantCookies;

  constructor(
    @Inject(KeyEncryption) private readonly encryption: KeyEncryption,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(CONFIG) config: Config,
  ) {
    this.cookies = new TenantCookies(config.publicUrl);
  }

  seal(request: AuthorizationRequest): string {
    return this.encryption.seal('interaction', JSON.stringify(request), request.tenantId);
  }

  /** The request, or undefined when the value is forged, altered, for another tenant, too old, or from another browser. */
  open(tenantId: string, sealed: string | undefined, cookieHeader: string | undefined): AuthorizationRequest | undefined {
    if (!sealed) return undefined;
    let r: AuthorizationRequest;
    try {
      r = JSON.parse(this.encryption.open('interaction', sealed, tenantId)) as AuthorizationRequest;
    } catch {
      return undefined;
    }
    const nonce = this.cookies.read(tenantId, cookieHeader)[interactionCookie(r)];
    const fresh = r.tenantId === tenantId && this.clock.seconds() - r.startedAt <= LIFETIME_SECONDS;
    return fresh && nonce !== undefined && constantTimeEqual(nonce, r.browserNonce) ? r : undefined;
  }
}
