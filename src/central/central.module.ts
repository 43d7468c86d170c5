import { Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { PassportModule } from '@nestjs/passport';
import { AuthModule } from '../auth/auth.module.js';
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
import { DeleteUserHandler, EditUserHandler } from './users/user-commands.js';
import { UsersController } from './users/users.controller.js';

const commandHandlers = [CreateTenantHandler, CreateClientHandler, CreateUserHandler, UpdateClientHandler, RotateClientSecretHandler, DeleteClientHandler];
const userCommandHandlers = [EditUserHandler, DeleteUserHandler];

/** The control plane: the admin API (bearer tokens with the central:* scopes), its commands, and the declarative bootstrap. */
@Module({
  imports: [CqrsModule, PassportModule, AuthModule],
  controllers: [ClientsController, UsersController],
  providers: [...commandHandlers, ...userCommandHandlers, CommandPath, AdminTokens, AdminBearerStrategy, AdminGuard, BootstrapService],
  exports: [BootstrapService],
})
export class CentralModule {}
