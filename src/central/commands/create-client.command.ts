import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { clientDecider } from '../../domain/client/client.decider.js';
import { type ClientRegistration, SECRET_METHODS } from '../../domain/client/client.events.js';
import { hmacKeyFits } from '../../domain/client/client-secret-jwt.js';
import { clientConflict } from '../../domain/security-profile/rules.js';
import { DomainError } from '../../domain/shared/domain-error.js';
import { streams } from '../../domain/shared/stream-names.js';
import { ClientSecrets } from '../../infrastructure/crypto/client-secrets.js';
import { AggregateStore } from '../../infrastructure/event-store/aggregate-store.js';
import type { RequestOrigin } from '../../infrastructure/event-store/event-store.port.js';
import { Clock } from '../../infrastructure/nest/clock.js';
import { ProjectionRunner } from '../../infrastructure/read-store/projection-runner.js';
import { Directory } from '../../shared/directory.js';
import { type CommandResult, unappliedFields } from './create-tenant.command.js';

/** Secrets shorter than this are refused: the log keeps only a fast (if keyed) hash, which must not be guessable. */
export const MIN_CLIENT_SECRET_LENGTH = 32;

export interface CreateClientResult extends CommandResult {
  /** The secret the server generated for a confidential client registered without one: shown once, kept only as a digest. */
  clientSecret?: string;
}

export class CreateClient extends Command<CreateClientResult> {
  constructor(
    readonly tenantId: string,
    readonly registration: Omit<ClientRegistration, 'secretDigest'>,
    /** The plain secret; digested here and never stored. Absent for a confidential client: the server generates one. */
    readonly clientSecret: string | undefined,
    readonly actor: string,
    /** The admin request it comes from, when one. */
    readonly origin?: RequestOrigin,
  ) {
    super();
  }
}

@CommandHandler(CreateClient)
export class CreateClientHandler implements ICommandHandler<CreateClient, CreateClientResult> {
  constructor(
    @Inject(AggregateStore) private readonly aggregates: AggregateStore,
    @Inject(ProjectionRunner) private readonly projections: ProjectionRunner,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(ClientSecrets) private readonly secrets: ClientSecrets,
    @Inject(Directory) private readonly directory: Directory,
  ) {}

  async execute(c: CreateClient): Promise<CreateClientResult> {
    const { tenantId, registration: asked } = c;
    await requireProfileFits(this.directory, tenantId, asked);
    if (c.clientSecret !== undefined && c.clientSecret.length < MIN_CLIENT_SECRET_LENGTH) {
      throw new DomainError('invalid_value', `client ${asked.clientId}: client_secret must be at least ${MIN_CLIENT_SECRET_LENGTH} characters`);
    }
    const generated = c.clientSecret === undefined && SECRET_METHODS.includes(asked.tokenEndpointAuthMethod) ? this.secrets.generate(asked.tokenEndpointAuthMethod) : undefined;
    const secret = c.clientSecret ?? generated;
    // client_secret_jwt: the secret is the HMAC key of the pinned alg (RFC 7518 §3.2).
    const alg = asked.tokenEndpointAuthSigningAlg;
    if (secret && asked.tokenEndpointAuthMethod === 'client_secret_jwt' && alg !== undefined && alg.startsWith('HS') && !hmacKeyFits(alg, secret)) {
      throw new DomainError('invalid_value', `client ${asked.clientId}: client_secret_jwt with ${alg} needs a client_secret of at least ${Number(alg.slice(2)) / 8} bytes (RFC 7518 §3.2)`);
    }
    const registration: ClientRegistration = { ...asked, ...(secret ? { secretDigest: this.secrets.keep(tenantId, asked.clientId, secret, asked.tokenEndpointAuthMethod) } : {}) };
    const { position, state } = await this.aggregates.execute(
      streams.client(tenantId, registration.clientId),
      clientDecider,
      { kind: 'CreateClient', tenantId, registration },
      { tenantId, actor: c.actor, now: this.clock.now(), ...c.origin },
    );
    if (position) await this.projections.waitFor(['clients'], position);
    if (position > 0) return generated ? { created: true, clientSecret: generated } : { created: true };
    if (!state.exists) return { created: false };
    const { exists: _e, tenantId: _t, secretDigest: storedDigest, ...stored } = state;
    const unapplied = unappliedFields(asked, stored);
    // The secret is compared by verifying it against the stored digest: a client kept under the
    // older SHA-256 scheme, asked for again with its own secret, differs in nothing.
    const sameSecret = c.clientSecret === undefined || (storedDigest !== undefined && this.secrets.verify(tenantId, asked.clientId, c.clientSecret, storedDigest));
    return { created: false, unapplied: sameSecret ? unapplied : [...unapplied, 'client_secret'] };
  }
}

/** Security profiles: a client the tenant's profile could never serve is refused at registration. */
export async function requireProfileFits(directory: Directory, tenantId: string, registration: Omit<ClientRegistration, 'secretDigest'>): Promise<void> {
  const tenant = await directory.tenant(tenantId);
  const conflict = tenant ? clientConflict(tenant.securityProfile, registration) : undefined;
  if (conflict) throw new DomainError('invalid_value', `client ${registration.clientId}: ${conflict}`);
}
