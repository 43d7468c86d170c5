import { Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { PassportModule } from '@nestjs/passport';
import { AuthCoreModule } from '../auth/auth.module.js';
import { AuditEventsController } from './audit/audit-events.controller.js';
import { TokenHistories } from './audit/history-event.js';
import { TokenHistoriesController } from './audit/token-histories.controller.js';
import { AdminBearerStrategy } from './auth/admin-bearer.strategy.js';
import { AdminGuard } from './auth/admin.guard.js';
import { AdminTokens } from './auth/admin-tokens.js';
import { BootstrapService } from './bootstrap/bootstrap.service.js';
import { DeleteClientHandler, RotateClientSecretHandler, UpdateClientHandler } from './clients/client-commands.js';
import { ClientsController } from './clients/clients.controller.js';
import { CommandPath } from './command-path.js';
import { CreateClientHandler } from './commands/create-client.command.js';
import { CreateTenantHandler } from './commands/create-tenant.command.js';
import { CreateUserHandler } from './commands/create-user.command.js';
import { ChangeTenantSettingsHandler, DeleteTenantHandler } from './tenants/tenant-commands.js';
import { ChangeSystemSettingsHandler, SystemSettings, SystemSettingsController } from './system/system-settings.controller.js';
import { TenantSettingsController, TenantsController } from './tenants/tenants.controller.js';
import { JwksAdminController } from './jwks/jwks-admin.controller.js';
import { KeyRotation } from './jwks/key-rotation.js';
import { DeleteUserHandler, EditUserHandler } from './users/user-commands.js';
import { UsersController } from './users/users.controller.js';
import { CreatePermissionHandler, DeletePermissionHandler, UpdatePermissionHandler } from './permissions/permission-commands.js';
import { PermissionsController } from './permissions/permissions.controller.js';
import { CreateResourceHandler, DeleteResourceHandler, UpdateResourceHandler } from './resources/resource-commands.js';
import { ResourcesController } from './resources/resources.controller.js';
import { AssignRoleHandler, DeleteRoleHandler, SaveRoleHandler } from './roles/role-commands.js';
import { RolesController } from './roles/roles.controller.js';
import { ClientRolesController, UserRolesController } from './roles/user-roles.controller.js';
import { DeleteScopeHandler, SaveScopeHandler } from './scopes/scope-commands.js';
import { ScopesController } from './scopes/scopes.controller.js';
import { DeleteLocaleHandler, SaveLocaleHandler } from './locales/locale-commands.js';
import { LocalesController } from './locales/locales.controller.js';
import { DeleteThemeHandler, SaveThemeHandler } from './theme/theme-commands.js';
import { ThemeController } from './theme/theme.controller.js';
import { DeleteFormHandler, SaveFormHandler } from './forms/form-commands.js';
import { FormsController } from './forms/forms.controller.js';
import { EdgeCa } from './edges/edge-ca.js';
import { DeleteEdgeHandler, RenewEdgeCertificateHandler, SaveEdgeHandler } from './edges/edge-commands.js';
import { EDGE_CERTIFICATE_SETTINGS, edgeCertificateSettings } from './edges/edge-certificate-settings.js';
import { EdgeCertificatesController } from './edges/edge-certificates.controller.js';
import { EdgesController } from './edges/edges.controller.js';

/** Edges: registered traffic-plane instances and their client certificates. */
const edgeHandlers = [SaveEdgeHandler, DeleteEdgeHandler, RenewEdgeCertificateHandler];
const edgeControllers = [EdgesController, EdgeCertificatesController];
const edgeProviders = [EdgeCa, { provide: EDGE_CERTIFICATE_SETTINGS, useFactory: () => edgeCertificateSettings() }];
// Second factors (MFA).
import { DeleteChallengesHandler, SaveChallengesHandler } from './challenges/challenges-commands.js';
import { ResetSecondFactorsHandler, SecondFactorsAdminController } from './users/second-factors-admin.js';
import { ChallengesController } from './challenges/challenges.controller.js';

/** The edge pages' texts, theme and forms. */
const pageHandlers = [SaveLocaleHandler, DeleteLocaleHandler, SaveThemeHandler, DeleteThemeHandler, SaveFormHandler, DeleteFormHandler, SaveChallengesHandler, DeleteChallengesHandler, ResetSecondFactorsHandler];
const pageControllers = [LocalesController, ThemeController, FormsController, ChallengesController, SecondFactorsAdminController];

/** Scopes, resources, permissions, roles and role assignments. */
const rbacHandlers = [SaveScopeHandler, DeleteScopeHandler, CreateResourceHandler, UpdateResourceHandler, DeleteResourceHandler, CreatePermissionHandler, UpdatePermissionHandler, DeletePermissionHandler, SaveRoleHandler, DeleteRoleHandler, AssignRoleHandler];
const rbacControllers = [ScopesController, ResourcesController, PermissionsController, RolesController, UserRolesController, ClientRolesController];
import { RegistrationLimits } from './users/registration-limits.js';
import { RegistrationsController } from './users/registrations.controller.js';

const commandHandlers = [
  CreateTenantHandler,
  ChangeTenantSettingsHandler,
  ChangeSystemSettingsHandler,
  DeleteTenantHandler,
  CreateClientHandler,
  UpdateClientHandler,
  RotateClientSecretHandler,
  DeleteClientHandler,
  CreateUserHandler,
  EditUserHandler,
  DeleteUserHandler,
];

const providers = [...commandHandlers, ...rbacHandlers, ...pageHandlers, ...edgeHandlers, ...edgeProviders, CommandPath, SystemSettings, AdminTokens, AdminBearerStrategy, AdminGuard, BootstrapService, RegistrationLimits, TokenHistories];

/** The control plane's commands and services without the admin API's routes: what the edge's pages also run (a registration, say). */
@Module({
  imports: [CqrsModule, PassportModule, AuthCoreModule],
  providers,
  exports: providers,
})
export class CentralCoreModule {}

/** The control plane: the admin API (bearer tokens with the central:* scopes), its commands, and the declarative bootstrap. */
@Module({
  imports: [CqrsModule, AuthCoreModule, CentralCoreModule],
  controllers: [TenantsController, TenantSettingsController, SystemSettingsController, ClientsController, UsersController, JwksAdminController, AuditEventsController, TokenHistoriesController, RegistrationsController, ...rbacControllers, ...pageControllers, ...edgeControllers],
  // The timer of automatic key rotation runs where the admin API does, not on every edge.
  providers: [KeyRotation],
  exports: [CentralCoreModule],
})
export class CentralModule {}
