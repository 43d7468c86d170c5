import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { clientDecider } from '../../domain/client/client.decider.js';
import type { ClientRegistration } from '../../domain/client/client.events.js';
import { DomainError } from '../../domain/shared/domain-error.js';
import { streams } from '../../domain/shared/stream-names.js';
import { sha256 } from '../../infrastructure/crypto/hashing.js';
import { AggregateStore } from '../../infrastructure/event-store/aggregate-store.js';
import { Clock } from '../../infrastructure/nest/clock.js';
import { ProjectionRunner } from '../../infrastructure/read-store/projection-runner.js';
import { type CommandResult, unappliedFields } from './create-tenant.command.js';

/** Secrets shorter than this are refused: the log keeps only a fast hash, which must not be guessable. */
export const MIN_CLIENT_SECRET_LENGTH = 32;

export class CreateClient extends Command<CommandResult> {
  constructor(
    readonly tenantId: string,
    readonly registration: Omit<ClientRegistration, 'secretHash'>,
    /** The plain secret; hashed here and never stored. */
    readonly clientSecret: string | undefined,
    readonly actor: string,
  ) {
    super();
  }
}

@CommandHandler(CreateClient)
export class CreateClientHandler implements ICommandHandler<CreateClient, CommandResult> {
  constructor(
    @Inject(AggregateStore) private readonly aggregates: AggregateStore,
    @Inject(ProjectionRunner) private readonly projections: ProjectionRunner,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(c: CreateClient): Promise<CommandResult> {
    if (c.clientSecret !== undefined && c.clientSecret.length < MIN_CLIENT_SECRET_LENGTH) {
      throw new DomainError('invalid_value', `client ${c.registration.clientId}: client_secret must be at least ${MIN_CLIENT_SECRET_LENGTH} characters`);
    }
    const registration: ClientRegistration = { ...c.registration, ...(c.clientSecret ? { secretHash: sha256(c.clientSecret) } : {}) };
    const { position, state } = await this.aggregates.execute(
      streams.client(c.tenantId, registration.clientId),
      clientDecider,
      { kind: 'CreateClient', tenantId: c.tenantId, registration },
      { tenantId: c.tenantId, actor: c.actor, now: this.clock.now() },
    );
    if (position) await this.projections.waitFor(['clients'], position);
    if (position > 0 || !state.exists) return { created: position > 0 };
    const { exists: _e, tenantId: _t, ...stored } = state;
    return { created: false, unapplied: unappliedFields(registration, stored) };
  }
}
