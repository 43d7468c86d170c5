import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { edgeInstanceDecider } from '../../domain/edge-instance/edge-instance.decider.js';
import type { EdgeDefinition } from '../../domain/edge-instance/edge-instance.events.js';
import { DomainError } from '../../domain/shared/domain-error.js';
import { streams } from '../../domain/shared/stream-names.js';
import { AggregateStore } from '../../infrastructure/event-store/aggregate-store.js';
import { Clock } from '../../infrastructure/nest/clock.js';
import { Directory } from '../../shared/directory.js';
import { CommandPath, type CommandOrigin } from '../command-path.js';
import { EdgeCa } from './edge-ca.js';
import { EDGE_CERTIFICATE_SETTINGS, type EdgeCertificateSettings } from './edge-certificate-settings.js';

const VIEWS = ['edges', 'edge_certificates'];

export class SaveEdge extends Command<void> {
  constructor(
    readonly by: CommandOrigin,
    readonly definition: EdgeDefinition,
    readonly create: boolean,
  ) {
    super();
  }
}

export class DeleteEdge extends Command<void> {
  constructor(
    readonly by: CommandOrigin,
    readonly edgeId: string,
  ) {
    super();
  }
}

/** Issues or renews an edge's client certificate; the answer is its PEM chain (the certificate, then the CA's). */
export class RenewEdgeCertificate extends Command<string> {
  constructor(
    readonly by: CommandOrigin,
    readonly edgeId: string,
    readonly csrPem: string,
  ) {
    super();
  }
}

@CommandHandler(SaveEdge)
export class SaveEdgeHandler implements ICommandHandler<SaveEdge, void> {
  constructor(@Inject(CommandPath) private readonly path: CommandPath) {}

  async execute(c: SaveEdge): Promise<void> {
    const command = c.create ? { kind: 'RegisterEdge' as const, tenantId: c.by.tenantId, definition: c.definition } : { kind: 'UpdateEdge' as const, definition: c.definition };
    await this.path.run(streams.edge(c.by.tenantId, c.definition.edgeId), edgeInstanceDecider, command, c.by, VIEWS);
  }
}

/** Deleting an edge revokes its certificate in the same append. */
@CommandHandler(DeleteEdge)
export class DeleteEdgeHandler implements ICommandHandler<DeleteEdge, void> {
  constructor(@Inject(CommandPath) private readonly path: CommandPath) {}

  async execute(c: DeleteEdge): Promise<void> {
    await this.path.run(streams.edge(c.by.tenantId, c.edgeId), edgeInstanceDecider, { kind: 'DeleteEdge' }, c.by, VIEWS);
  }
}

/**
 * The edge is read from its stream, the certificate made, then recorded at the revision read:
 * an edge disabled or deleted in between makes the append fail, and the certificate made is
 * never handed out. Recording it replaces the edge's previous one.
 */
@CommandHandler(RenewEdgeCertificate)
export class RenewEdgeCertificateHandler implements ICommandHandler<RenewEdgeCertificate, string> {
  constructor(
    @Inject(CommandPath) private readonly path: CommandPath,
    @Inject(AggregateStore) private readonly aggregates: AggregateStore,
    @Inject(EdgeCa) private readonly ca: EdgeCa,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(Directory) private readonly directory: Directory,
    @Inject(EDGE_CERTIFICATE_SETTINGS) private readonly settings: EdgeCertificateSettings,
  ) {}

  async execute(c: RenewEdgeCertificate): Promise<string> {
    const stream = streams.edge(c.by.tenantId, c.edgeId);
    const { state, revision } = await this.aggregates.load(stream, edgeInstanceDecider);
    if (!state.definition) throw new DomainError('not_found', `no edge ${c.edgeId}`);
    if (state.definition.status !== 'active') throw new DomainError('in_use', `the edge ${c.edgeId} is disabled: it gets no certificate`);
    const edgeUrl = `${this.directory.issuer(c.by.tenantId)}/configuration/edges/${encodeURIComponent(c.edgeId)}`;
    const issued = await this.ca.issue(c.by, c.edgeId, edgeUrl, c.csrPem, this.clock.now(), this.settings.ttl);
    await this.path.run(stream, edgeInstanceDecider, { kind: 'RecordCertificate', certificate: issued.facts }, { ...c.by, expectedRevision: revision }, VIEWS);
    return issued.chainPem;
  }
}
