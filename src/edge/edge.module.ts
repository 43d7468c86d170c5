import { Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { CentralCoreModule } from '../central/central.module.js';
import { RegistrationController } from './registration/registration.controller.js';
import { AuthCoreModule } from '../auth/auth.module.js';
import { ConsentController } from './consent/consent.controller.js';
import { LoginController } from './login/login.controller.js';
import { DeviceCookies } from './login/device-cookie.js';
import { SignInLimits } from './login/sign-in-limits.js';
import { PasswordSignIn } from './login/password-sign-in.js';
import { DeviceController } from './device/device.controller.js';
import { UserCodeLimits } from './device/user-code-limits.js';
import { EdgeCallers } from './caller.js';
import { EffectivePermissions } from './permissions/effective-permissions.js';
import { PermissionsController } from './permissions/permissions.controller.js';
import { Forwarder } from './proxy/forwarder.js';
import { IdentityTokens } from './proxy/identity-token.js';
import { ProxyAccess } from './proxy/proxy-access.js';
import { ProxyMetrics } from './proxy/proxy-metrics.js';
import { PROXY_SETTINGS, proxySettings } from './proxy/proxy-settings.js';
import { ProxyHandler } from './proxy/proxy.handler.js';
import { ProxyRoute } from './proxy/proxy.route.js';
import { Upstreams } from './proxy/upstreams.js';

import { ThemeAssetsController } from './pages/theme-assets.controller.js';
// Second factors (MFA).
import { CONFIG, type Config } from '../config.js';
import { ChallengesPagesController } from './challenges/challenges.controller.js';
import { MAIL_PORT, mailPort } from './challenges/mailer.js';
import { SecondFactors } from './challenges/second-factors.js';
import { ChallengePages } from './challenges/challenge-pages.js';
import { Passkeys } from './challenges/passkeys.js';
import { PasskeysPagesController } from './challenges/passkeys.controller.js';
import { SignInCompletion } from './login/sign-in-completion.js';
import { AuthSessions } from './native/auth-sessions.js';
import { NativeController } from './native/native.controller.js';
import { NativeFlow } from './native/native-flow.js';
import { MfaSecondFactor } from './native/mfa-second-factor.js';
import { NATIVE_SECOND_FACTOR } from './native/native-second-factor.js';

/** The traffic plane: browser login, registration and consent, the tenant's theme, /permissions/me and the proxy to resources, and the native apps' sign-in (/native/authorize). */
@Module({
  imports: [AuthCoreModule, CqrsModule, CentralCoreModule],
  controllers: [LoginController, ConsentController, ThemeAssetsController, RegistrationController, PermissionsController, DeviceController, ChallengesPagesController, PasskeysPagesController, NativeController],
  providers: [
    SignInLimits,
    PasswordSignIn,
    UserCodeLimits,
    DeviceCookies,
    EdgeCallers,
    EffectivePermissions,
    { provide: PROXY_SETTINGS, useFactory: () => proxySettings() },
    Upstreams,
    ProxyMetrics,
    IdentityTokens,
    ProxyAccess,
    Forwarder,
    ProxyHandler,
    ProxyRoute,
    // Second factors (MFA).
    { provide: MAIL_PORT, useFactory: (config: Config) => mailPort(config.mail), inject: [CONFIG] },
    SecondFactors,
    SignInCompletion,
    Passkeys,
    ChallengePages,
    // Native apps (/native/authorize), with the tenant's second factors.
    AuthSessions,
    NativeFlow,
    { provide: NATIVE_SECOND_FACTOR, useClass: MfaSecondFactor },
  ],
  exports: [ProxyMetrics, SecondFactors],
})
export class EdgeModule {}
