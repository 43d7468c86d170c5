import { type DynamicModule, Module } from '@nestjs/common';
import { AuthModule } from './auth/auth.module.js';
import { CentralModule } from './central/central.module.js';
import type { Role } from './config.js';
import { DeliveryModule } from './delivery/delivery.module.js';
import { WebhooksModule } from './webhooks/webhooks.module.js';
import { EdgeModule } from './edge/edge.module.js';
import { FeedModule } from './feed/feed.module.js';
import { InfrastructureModule } from './infrastructure/nest/infrastructure.module.js';
import { SharedModule } from './shared/shared.module.js';
import { SsfModule } from './ssf/ssf.module.js';

/** The modules with routes that each role serves (`ROLE`); storage and the shared services come with every one. */
const ROLE_MODULES = {
  all: [AuthModule, CentralModule, EdgeModule, DeliveryModule, FeedModule, WebhooksModule, SsfModule],
  // The traffic plane alone: sign-in, registration, consent and device pages, the proxy, /permissions/me.
  edge: [EdgeModule],
  // Everything but the traffic plane: the OAuth endpoints, the admin API, deliveries (logout, webhooks, Shared Signals) and the event feed.
  central: [AuthModule, CentralModule, DeliveryModule, FeedModule, WebhooksModule, SsfModule],
} satisfies Record<Role, unknown[]>;

@Module({})
export class AppModule {
  static forRole(role: Role): DynamicModule {
    return { module: AppModule, imports: [InfrastructureModule.forRole(role), SharedModule, ...ROLE_MODULES[role]] };
  }
}
