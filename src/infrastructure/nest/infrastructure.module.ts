import { type DynamicModule, Global, Inject, Logger, Module, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { join } from 'node:path';
import { allProjections } from '../../../projections/index.js';
import type { TenantView } from '../../../projections/tenants.projection.js';
import { CONFIG, type Config, loadConfig, type Role } from '../../config.js';
import { ATTEMPT_COUNTERS, type AttemptCounters } from '../attempt-counters/attempt-counters.port.js';
import { SqliteAttemptCounters } from '../attempt-counters/sqlite-attempt-counters.js';
import { ClientSecrets } from '../crypto/client-secrets.js';
import { KeyEncryption } from '../crypto/key-encryption.js';
import { PasswordQueue } from '../crypto/password-queue.js';
import { KeyRing } from '../crypto/key-ring.js';
import { AggregateStore } from '../event-store/aggregate-store.js';
import { EVENT_STORE, type EventStore } from '../event-store/event-store.port.js';
import { ExpiredStreams } from '../event-store/expired-streams.js';
import { Snapshots } from '../event-store/snapshots.js';
import { SqliteEventStore } from '../event-store/sqlite-event-store.js';
import { UpcastingEventStore } from '../event-store/upcasting-event-store.js';
import { CachingReadStore } from '../read-store/caching-read-store.js';
import { CACHED_VIEWS } from '../read-store/cached-views.js';
import { ProjectionRunner } from '../read-store/projection-runner.js';
import { READ_STORE, type ReadStore } from '../read-store/read-store.port.js';
import { LEASES, type Leases } from '../read-store/lease.port.js';
import { ProjectionLeadership } from '../read-store/projection-leadership.js';
import { ViewSync } from '../read-store/view-sync.js';
import { SqliteLeases } from '../read-store/sqlite-leases.js';
import { SqliteReadStore } from '../read-store/sqlite-read-store.js';
import { OncePerMinute } from '../../shared/failure-budget.js';
import { Clock, SystemClock } from './clock.js';

/** The embedded store file: events and (by default) read models share it. */
export const storeFile = (config: Config) => join(config.dataDir, 'authserver.db');

/** The configured log, read through the upcasters (events of older shapes come out in the newest). */
export async function createEventStore(config: Config): Promise<EventStore> {
  if (config.eventStoreUrl) {
    const { EventStoreDbEventStore } = await import('../event-store/eventstoredb-event-store.js');
    return new UpcastingEventStore(new EventStoreDbEventStore(config.eventStoreUrl));
  }
  return new UpcastingEventStore(new SqliteEventStore(storeFile(config)));
}

export async function createReadStore(config: Config): Promise<ReadStore> {
  if (config.mongodbUrl) {
    const { MongoReadStore } = await import('../read-store/mongo-read-store.js');
    return new MongoReadStore(config.mongodbUrl);
  }
  return new SqliteReadStore(storeFile(config));
}

/** The shared store of attempt counters: MongoDB when read models go there (several servers), else the embedded file. */
export async function createAttemptCounters(config: Config): Promise<AttemptCounters> {
  if (config.mongodbUrl) {
    const { MongoAttemptCounters } = await import('../attempt-counters/mongo-attempt-counters.js');
    return new MongoAttemptCounters(config.mongodbUrl);
  }
  return new SqliteAttemptCounters(storeFile(config));
}

/** The shared leases: in MongoDB when read models go there (several servers), else in the embedded file. */
export async function createLeases(config: Config): Promise<Leases> {
  if (config.mongodbUrl) {
    const { MongoLeases } = await import('../read-store/mongo-leases.js');
    return new MongoLeases(config.mongodbUrl);
  }
  return new SqliteLeases(storeFile(config));
}

/** The `ROLE` whose modules this application holds (AppModule.forRole). */
const PROCESS_ROLE = Symbol('PROCESS_ROLE');

/** Storage, projections, keys and time, shared by the auth, central and edge modules. */
@Global()
@Module({
  providers: [
    { provide: CONFIG, useFactory: () => loadConfig() },
    { provide: Clock, useClass: SystemClock },
    { provide: EVENT_STORE, inject: [CONFIG], useFactory: createEventStore },
    ExpiredStreams,
    {
      provide: READ_STORE,
      inject: [CONFIG, Clock],
      useFactory: async (config: Config, clock: Clock) =>
        new CachingReadStore(await createReadStore(config), CACHED_VIEWS, () => clock.now().getTime(), config.mongodbUrl !== undefined),
    },
    {
      provide: AggregateStore,
      inject: [EVENT_STORE, READ_STORE, KeyEncryption],
      useFactory: (events: EventStore, reads: ReadStore, keys: KeyEncryption) => new AggregateStore(events, new Snapshots(reads, keys)),
    },
    {
      provide: ProjectionRunner,
      inject: [EVENT_STORE, READ_STORE],
      useFactory: (events: EventStore, reads: ReadStore) => new ProjectionRunner(events, reads, allProjections),
    },
    { provide: ATTEMPT_COUNTERS, inject: [CONFIG], useFactory: createAttemptCounters },
    { provide: LEASES, inject: [CONFIG], useFactory: createLeases },
    {
      provide: ViewSync,
      inject: [READ_STORE, Clock, CONFIG],
      useFactory: (reads: CachingReadStore, clock: Clock, config: Config) => new ViewSync(reads, () => clock.now().getTime(), config.views.syncMs),
    },
    {
      provide: ProjectionLeadership,
      inject: [LEASES, ProjectionRunner, ViewSync, Clock, CONFIG],
      useFactory: (leases: Leases, runner: ProjectionRunner, sync: ViewSync, clock: Clock, config: Config) =>
        new ProjectionLeadership(leases, runner, sync, () => clock.now().getTime(), config.views.leaseMs),
    },
    { provide: PasswordQueue, inject: [CONFIG], useFactory: (config: Config) => new PasswordQueue(config.signIn.hashConcurrency, config.signIn.hashQueue) },
    { provide: KeyEncryption, inject: [CONFIG], useFactory: (config: Config) => KeyEncryption.load(config.keyEncryptionKey, config.dataDir) },
    { provide: ClientSecrets, inject: [KeyEncryption], useFactory: (keys: KeyEncryption) => new ClientSecrets(keys) },
    {
      provide: KeyRing,
      inject: [AggregateStore, KeyEncryption, Clock],
      useFactory: (aggregates: AggregateStore, encryption: KeyEncryption, clock: Clock) => new KeyRing(aggregates, encryption, clock),
    },
  ],
  exports: [CONFIG, Clock, EVENT_STORE, READ_STORE, ATTEMPT_COUNTERS, LEASES, ViewSync, PasswordQueue, AggregateStore, ProjectionRunner, KeyEncryption, ClientSecrets, KeyRing],
})
export class InfrastructureModule implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('Storage');

  /** For an application of `role`: an edge never folds the log into the views. */
  static forRole(role: Role): DynamicModule {
    return { module: InfrastructureModule, providers: [{ provide: PROCESS_ROLE, useValue: role }] };
  }

  constructor(
    @Inject(CONFIG) private readonly config: Config,
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(ATTEMPT_COUNTERS) private readonly counters: AttemptCounters,
    @Inject(LEASES) private readonly leases: Leases,
    private readonly runner: ProjectionRunner,
    @Inject(KeyRing) private readonly keyRing: KeyRing,
    private readonly sync: ViewSync,
    private readonly leadership: ProjectionLeadership,
    @Inject(PROCESS_ROLE) private readonly role: Role,
  ) {}

  async onModuleInit(): Promise<void> {
    // A batch is retried every second while it fails (a full disk, say): one line a minute is enough.
    const failures = new OncePerMinute((line) => this.logger.warn(line));
    this.runner.logger = (message) => failures.log(message);
    this.sync.logger = (message) => failures.log(message);
    this.runner.reach = (views, position, deadline) => this.sync.reach(views, position, deadline);
    this.leadership.logger = (message) => this.logger.log(message);
    this.leadership.onVersionChanges = (changes) => {
      for (const { view, stored, version } of changes) {
        // A rollback: the view is rebuilt by the older rules, which an operator should know of.
        if (stored > version) this.logger.warn(`view ${view} was built by a newer server (version ${stored}; this one builds ${version}): rebuilding it from the log by this server's rules`);
        else this.logger.log(`view ${view}: version ${stored} stored, ${version} here: rebuilding it from the log`);
      }
    };
    // One process per database folds the log (the `projections` lease); an edge never does.
    if (this.role === 'edge') await this.sync.follow();
    else await this.leadership.start();
    await this.checkKeyEncryptionKey();
    this.logger.log(
      `event store: ${this.config.eventStoreUrl ? 'EventStoreDB' : storeFile(this.config)}; read models: ${this.config.mongodbUrl ? 'MongoDB' : storeFile(this.config)}`,
    );
  }

  /**
   * Opens the signing keys of the first tenants with this process's key-encryption key, once
   * the tenants view has caught up with the log (a view being rebuilt, a new read store, would
   * otherwise list none). A log long enough to keep the view behind for 10 s is not held up:
   * the check is skipped, and says so.
   */
  private async checkKeyEncryptionKey(): Promise<void> {
    const head = await this.events.headPosition();
    const caughtUp = await this.runner.waitFor(['tenants'], head, 10_000).then(() => true, () => false);
    if (!caughtUp) {
      this.logger.warn('the key-encryption key was not checked against the signing keys: the tenants view is still catching up with the log');
      return;
    }
    const tenants = await this.reads.find<TenantView>('tenants', {}, { sortBy: '_position', limit: 20 });
    await this.keyRing.checkSealedKeys(tenants.map((t) => t.tenantId));
  }

  async onApplicationShutdown(): Promise<void> {
    await this.leadership.stop();
    await this.events.close();
    await this.reads.close();
    await this.counters.close();
    await this.leases.close();
  }
}
