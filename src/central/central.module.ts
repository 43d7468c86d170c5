import { Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { BootstrapService } from './bootstrap/bootstrap.service.js';
import { CreateClientHandler } from './commands/create-client.command.js';
import { CreateTenantHandler } from './commands/create-tenant.command.js';
import { CreateUserHandler } from './commands/create-user.command.js';

/** The admin control plane: commands over tenants, clients and users, and the declarative bootstrap. */
@Module({
  imports: [CqrsModule],
  providers: [CreateTenantHandler, CreateClientHandler, CreateUserHandler, BootstrapService],
  exports: [BootstrapService],
})
export class CentralModule {}
