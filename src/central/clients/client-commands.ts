import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { clientDecider } from '../../domain/client/client.decider.js';
import type { ClientRegistration } from '../../domain/client/client.events.js';
import { streams } from '../../domain/shared/stream-names.js';
import { ClientSecrets } from '../../infrastructure/crypto/client-secrets.js';
import { CommandPath, type CommandOrigin } from '../command-path.js';
import { requireProfileFits } from '../commands/create-client.command.js';
import { Directory } from '../../shared/directory.js';

/** Views an admin reads right after a client changes. */
const VIEWS = ['clients'];

/** The longest grace a rotated-out secret may have: a week. */
export const MAX_SECRET_GRACE_SECONDS = 7 * 24 * 3600;

export class UpdateClient extends Command<void> {
  constructor(
    readonly by: CommandOrigin,
    readonly registration: Omit<ClientRegistration, 'secretDigest'>,
  ) {
    super();
  }
}

/** A new server-generated secret (256 bits), returned once; the old one lives on for `graceSeconds`. */
export class RotateClientSecret extends Command<{ secret: string; previousValidUntil: number }> {
  constructor(
    readonly by: CommandOrigin,
    readonly clientId: string,
    readonly graceSeconds: number,
    readonly now: number,
  ) {
    super();
  }
}

export class DeleteClient extends Command<void> {
  constructor(
    readonly by: CommandOrigin,
    readonly clientId: string,
  ) {
    super();
  }
}

@CommandHandler(UpdateClient)
export class UpdateClientHandler implements ICommandHandler<UpdateClient, void> {
  constructor(
    @Inject(CommandPath) private readonly path: CommandPath,
    @Inject(Directory) private readonly directory: Directory,
  ) {}

  async execute(c: UpdateClient): Promise<void> {
    await requireProfileFits(this.directory, c.by.tenantId, c.registration);
    await this.path.run(streams.client(c.by.tenantId, c.registration.clientId), clientDecider, { kind: 'UpdateClient', registration: c.registration }, c.by, VIEWS);
  }
}

@CommandHandler(RotateClientSecret)
export class RotateClientSecretHandler implements ICommandHandler<RotateClientSecret, { secret: string; previousValidUntil: number }> {
  constructor(
    @Inject(CommandPath) private readonly path: CommandPath,
    @Inject(ClientSecrets) private readonly secrets: ClientSecrets,
    @Inject(Directory) private readonly directory: Directory,
  ) {}

  async execute(c: RotateClientSecret): Promise<{ secret: string; previousValidUntil: number }> {
    // client_secret_jwt: its new secret is generated to its length and kept sealed (the decider drops the seal for any other client).
    const jwt = (await this.directory.client(c.by.tenantId, c.clientId))?.tokenEndpointAuthMethod === 'client_secret_jwt';
    const secret = this.secrets.generate(jwt ? 'client_secret_jwt' : undefined);
    const previousValidUntil = c.now + c.graceSeconds;
    const secretDigest = this.secrets.keep(c.by.tenantId, c.clientId, secret, 'client_secret_jwt');
    await this.path.run(streams.client(c.by.tenantId, c.clientId), clientDecider, { kind: 'RotateClientSecret', secretDigest, previousValidUntil }, c.by, VIEWS);
    return { secret, previousValidUntil };
  }
}

@CommandHandler(DeleteClient)
export class DeleteClientHandler implements ICommandHandler<DeleteClient, void> {
  constructor(@Inject(CommandPath) private readonly path: CommandPath) {}

  async execute(c: DeleteClient): Promise<void> {
    await this.path.run(streams.client(c.by.tenantId, c.clientId), clientDecider, { kind: 'DeleteClient' }, c.by, VIEWS);
  }
}
