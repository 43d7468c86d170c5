import { assertNever, factDecider } from '../shared/decider.js';
import type { ClientAuthenticationFailed, TokenEndpointAuthMethod } from './client.events.js';
import type { AccessTokenIssued, RevocationRefused, TokenRevoked } from '../session/session.events.js';

/**
 * The stream of the tokens a client obtained for itself (client_credentials), and what befell
 * them: facts, each decided from its command alone (nothing on the stream changes them).
 */
export type ClientTokensEvent = AccessTokenIssued | TokenRevoked | RevocationRefused | ClientAuthenticationFailed;

export type ClientTokensCommand =
  /** `clientId` asks to revoke its own token `jti`, issued to `owner` (a client's own token: no session). */
  | { kind: 'RevokeClientToken'; tenantId: string; jti: string | undefined; clientId: string; owner: string }
  /** A client failed to authenticate at `endpoint`: with the method it should have used, or a wrong secret. */
  | { kind: 'RecordAuthenticationFailure'; tenantId: string; clientId: string; endpoint: ClientAuthenticationFailed['data']['endpoint']; method: TokenEndpointAuthMethod; wrongMethod: boolean; assertion?: 'invalid_assertion' | 'replayed_assertion'; unrecordedBefore?: number };

export const clientTokensDecider = factDecider<ClientTokensCommand, ClientTokensEvent>((c) => {
  switch (c.kind) {
    case 'RevokeClientToken':
      // RFC 7009 §2.1: only the client the token was issued to may revoke it; another's attempt is refused, and recorded.
      if (c.owner !== c.clientId) return [{ type: 'RevocationRefused', data: { tenantId: c.tenantId, clientId: c.owner, presentedBy: c.clientId, tokenType: 'access_token', jti: c.jti } }];
      return [{ type: 'TokenRevoked', data: { tenantId: c.tenantId, clientId: c.clientId, tokenType: 'access_token', jti: c.jti, reason: 'revocation_request' } }];
    case 'RecordAuthenticationFailure': {
      const data: ClientAuthenticationFailed['data'] = { tenantId: c.tenantId, clientId: c.clientId, endpoint: c.endpoint, method: c.method, reason: c.wrongMethod ? 'wrong_method' : (c.assertion ?? 'wrong_secret') };
      if (c.unrecordedBefore) data.unrecordedBefore = c.unrecordedBefore;
      return [{ type: 'ClientAuthenticationFailed', data }];
    }
    default:
      return assertNever(c);
  }
});
