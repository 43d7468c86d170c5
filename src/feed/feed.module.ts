import { type BeforeApplicationShutdown, Inject, Module, type OnApplicationBootstrap } from '@nestjs/common';
import { AuthCoreModule } from '../auth/auth.module.js';
import { AdminTokens } from '../central/auth/admin-tokens.js';
import { EventFeed } from './event-feed.js';
import { EventsController } from './events.controller.js';
import { FeedAccess } from './feed-access.js';

/** The event feed: the tenant's integration events (CloudEvents) as JSON pages and Server-Sent Events. */
@Module({
  imports: [AuthCoreModule],
  controllers: [EventsController],
  providers: [EventFeed, FeedAccess, AdminTokens],
})
export class FeedModule implements OnApplicationBootstrap, BeforeApplicationShutdown {
  constructor(@Inject(EventFeed) private readonly feed: EventFeed) {}

  onApplicationBootstrap(): Promise<void> {
    return this.feed.start();
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.feed.stop();
  }
}
