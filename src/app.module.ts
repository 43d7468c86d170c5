import { Module } from '@nestjs/common';
import { AuthModule } from './auth/auth.module.js';
import { CentralModule } from './central/central.module.js';
import { DeliveryModule } from './delivery/delivery.module.js';
import { WebhooksModule } from './webhooks/webhooks.module.js';
import { EdgeModule } from './edge/edge.module.js';
import { FeedModule } from './feed/feed.module.js';
import { InfrastructureModule } from './infrastructure/nest/infrastructure.module.js';
import { SharedModule } from './shared/shared.module.js';
import { SsfModule } from './ssf/ssf.module.js';

@Module({ imports: [InfrastructureModule, SharedModule, AuthModule, CentralModule, EdgeModule, DeliveryModule, FeedModule, WebhooksModule, SsfModule] })
export class AppModule {}
