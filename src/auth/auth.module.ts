import { Module } from '@nestjs/common';
import { RoleScopes } from './roles/role-scopes.js';
import { TenantScopes } from './tenant-scopes.js';
import { AssetsController } from './assets/assets.controller.js';
import { AuthorizeController } from './authorize/authorize.controller.js';
import { AuthorizeFlow } from './authorize/authorize-flow.js';
import { Interactions } from './authorize/interaction.js';
import { Jarm } from './authorize/jarm.js';
import { ClientAuthenticator } from './client-auth/client-authenticator.js';
import { ClientRequests } from './client-request/client-request.js';
import { UsedJtis } from './one-time/used-jtis.js';
import { DpopProofs } from './dpop/dpop-proofs.js';
import { IntrospectController } from './introspect/introspect.controller.js';
import { JwksController } from './jwks/jwks.controller.js';
import { LogoutController } from './logout/logout.controller.js';
import { MetadataController } from './metadata/metadata.controller.js';
import { ParController } from './par/par.controller.js';
import { PushedRequests } from './par/pushed-requests.js';
import { DeviceAuthorizationController } from './device/device-authorization.controller.js';
import { DeviceAuthorizations } from './device/device-authorizations.js';
import { DevicePolls } from './device/device-polls.js';
import { DeviceCodeGrant } from './token/grants/device-code.grant.js';
import { RequestObjects } from './request-object/request-objects.js';
import { RevokeController } from './revoke/revoke.controller.js';
import { BrowserSessions } from './sessions/browser-session.js';
import { Refusals, SessionCommands } from './sessions/session-commands.js';
import { GRANTS } from './token/grant.js';
import { AuthorizationCodeGrant } from './token/grants/authorization-code.grant.js';
import { ClientCredentialsGrant } from './token/grants/client-credentials.grant.js';
import { RefreshTokenGrant } from './token/grants/refresh-token.grant.js';
import { TokenController } from './token/token.controller.js';
import { TokenInspector } from './tokens/token-inspector.js';
import { TokenIssuer } from './tokens/token-issuer.js';
import { UserinfoController } from './userinfo/userinfo.controller.js';

const grants = [AuthorizationCodeGrant, RefreshTokenGrant, ClientCredentialsGrant, DeviceCodeGrant];

/** The public OAuth 2.1 / OpenID Connect endpoints of every tenant. */
@Module({
  controllers: [MetadataController, JwksController, AssetsController, AuthorizeController, ParController, DeviceAuthorizationController, TokenController, IntrospectController, RevokeController, UserinfoController, LogoutController],
  providers: [
    ...grants,
    { provide: GRANTS, inject: grants, useFactory: (...all: unknown[]) => all },
    AuthorizeFlow,
    RoleScopes,
    TenantScopes,
    Interactions,
    ClientAuthenticator,
    ClientRequests,
    UsedJtis,
    DpopProofs,
    BrowserSessions,
    SessionCommands,
    Refusals,
    TokenIssuer,
    TokenInspector,
    PushedRequests,
    RequestObjects,
    Jarm,
    // Device grant (RFC 8628)
    DeviceAuthorizations,
    DevicePolls,
  ],
  exports: [DeviceAuthorizations, DpopProofs, ClientRequests, UsedJtis, AuthorizeFlow, Interactions, BrowserSessions, SessionCommands, TokenInspector, RoleScopes, TenantScopes],
})
export class AuthModule {}
