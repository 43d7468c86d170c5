import { UnauthorizedClient } from '../../oauth-errors.js';
import type { Check } from './check.js';

/**
 * OAuth 2.0 for First-Party Applications §5: the server verifies the client's first-partyness
 * before any sign-in; here, a client registered as a first-party native app (`first_party_native`).
 */
export const checkFirstPartyNative: Check = ({ client }) => {
  if (!client!.firstPartyNative) throw new UnauthorizedClient('the client is not registered as a first-party native app (first_party_native)');
};

/**
 * OAuth 2.0 for First-Party Applications §5.2.1, §6: the code is answered at the challenge
 * endpoint itself and the token request carries no `redirect_uri`; the code records that
 * endpoint as where it went, and that the token request leaves it out.
 */
export const checkNativeDelivery: Check = (ctx, { directory }) => {
  ctx.request.redirectUri = `${directory.issuer(ctx.tenantId)}/native/authorize`;
  ctx.request.redirectUriOmitted = true;
};
