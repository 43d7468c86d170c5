import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module.js';
import { ConsentController } from './consent/consent.controller.js';
import { LoginController } from './login/login.controller.js';
import { DeviceCookies } from './login/device-cookie.js';
import { SignInLimits } from './login/sign-in-limits.js';
import { EdgeCallers } from './caller.js';
import { EffectivePermissions } from './permissions/effective-permissions.js';
import { PermissionsController } from './permissions/permissions.controller.js';

/** The traffic plane: browser login and consent, /permissions/me and the proxy to resources; the native API comes later. */
@Module({ imports: [AuthModule], controllers: [LoginController, ConsentController, PermissionsController], providers: [SignInLimits, DeviceCookies, EdgeCallers, EffectivePermissions] })
export class EdgeModule {}
