import type { ClientView } from '../../../../projections/clients.projection.js';
import type { TenantView } from '../../../../projections/tenants.projection.js';
import type { Directory } from '../../../shared/directory.js';
import type { Params } from '../../params.js';
import type { RequestOrigin } from '../../../infrastructure/event-store/event-store.port.js';
import type { PushedRequests } from '../../par/pushed-requests.js';
import type { RequestObjects } from '../../request-object/request-objects.js';
import type { TokenIssuer } from '../../tokens/token-issuer.js';
import type { Jarm, ResponseMode } from '../jarm.js';
import type { AuthorizationRequest } from '../interaction.js';

/** Where an error goes once the redirect URI is trusted (RFC 6749 §4.1.2.1), with `state` and `iss` (RFC 9207). */
export interface TrustedRedirect {
  redirectUri: string;
  responseMode: ResponseMode;
  state?: string;
  iss: string;
}

/** The fields of an authorization request the checks decide; the rest is the browser's. */
export type CheckedRequest = Omit<AuthorizationRequest, 'startedAt' | 'browserNonce' | 'interactionId' | 'authenticated' | 'consented'>;

/** One authorization request as the checks see it, and what they have decided so far. */
export interface CheckContext {
  tenantId: string;
  tenant: TenantView;
  /** The request's parameters; a request object's once check-request-object has verified it. */
  params: Params;
  /** The parameters sent more than once (RFC 6749 §3.1). */
  repeated: string[];
  /** Set by check-client; the client authenticated already at an endpoint that authenticates (PAR). */
  client?: ClientView;
  /**
   * Set once, by check-redirect-uri: from then on an error may go back to the client. Before,
   * it is shown to the user (or, at an endpoint the client calls itself, answered to it).
   */
  trusted?: TrustedRedirect;
  /** What the checks have decided, field by field. */
  request: Partial<CheckedRequest>;
  /** Set when the parameters are those of a verified request object (JAR). */
  signed?: true;
  /** The HTTP request's, for the events a check appends (a pushed request's use). */
  origin: RequestOrigin;
}

/** What the checks may ask the server. */
export interface CheckServices {
  directory: Directory;
  tokens: TokenIssuer;
  pushed: PushedRequests;
  requestObjects: RequestObjects;
  jarm: Jarm;
}

/** One rule of the authorization request: throws the OAuthError it finds, or records what it decided. */
export type Check = (ctx: CheckContext, services: CheckServices) => void | Promise<void>;

/**
 * Records that errors may go back to the client from now on (RFC 6749 §4.1.2.1): called by
 * the check that establishes the redirect URI, and by nothing else.
 */
export function trustRedirect(ctx: CheckContext, services: CheckServices, redirect: Omit<TrustedRedirect, 'iss'>): void {
  ctx.trusted = { ...redirect, iss: services.directory.issuer(ctx.tenantId) };
}
