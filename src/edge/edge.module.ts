import { Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { CentralModule } from '../central/central.module.js';
import { RegistrationController } from './registration/registration.controller.js';
import { AuthModule } from '../auth/auth.module.js';
import { ConsentController } from './consent/consent.controller.js';
import { LoginController } from './login/login.controller.js';
import { DeviceCookies } from './login/device-cookie.js';
import { SignInLimits } from './login/sign-in-limits.js';
import { ThemeAssetsController } from './pages/theme-assets.controller.js';

/** The traffic plane: browser login and consent so far; proxy, permissions and native API come later. */
@Module({ imports: [AuthModule, CqrsModule, CentralModule], controllers: [LoginController, ConsentController, ThemeAssetsController, RegistrationController], providers: [SignInLimits, DeviceCookies] })
export class EdgeModule {}
