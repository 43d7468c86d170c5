import { Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { BootstrapService } from './bootstrap/bootstrap.service.js';
import { CreateClientHandler } from './commands/create-client.command.js';
import { CreateTenantHandler } from './commands/create-tenant.command.js';
import { CreateUserHandler } from './commands/create-user.command.js';

/** The admin side, so far: the commands that create tenants, clients and users, and the declarative bootstrap that issues them (the admin API comes later). */
@Module({
  imports: [CqrsModule],
  providers: [CreateTenantHandler, CreateClientHandler, CreateUserHandler, BootstrapService],
  exports: [BootstrapService],
})
export class CentralModule {}
