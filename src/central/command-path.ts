import { Inject, Injectable } from '@nestjs/common';
import type { Decider, DomainEvent } from '../domain/shared/decider.js';
import { AggregateStore, type Outcome } from '../infrastructure/event-store/aggregate-store.js';
import type { RequestOrigin } from '../infrastructure/event-store/event-store.port.js';
import { Clock } from '../infrastructure/nest/clock.js';
import { ProjectionRunner } from '../infrastructure/read-store/projection-runner.js';

/** Who asks for a change, from which request, and on which revision of the item (`If-Match`). */
export interface CommandOrigin {
  tenantId: string;
  actor: string;
  origin?: RequestOrigin;
  expectedRevision?: number;
}

/**
 * The one path of every admin write: load the aggregate, decide, append with the expected
 * revision, then wait until the views the caller reads next have the change (a GET right
 * after a write sees it). Domain errors are translated at the boundary (central/http/problem.ts).
 */
@Injectable()
export class CommandPath {
  constructor(
    @Inject(AggregateStore) private readonly aggregates: AggregateStore,
    @Inject(ProjectionRunner) private readonly projections: ProjectionRunner,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async run<C, E extends DomainEvent, S>(streamId: string, decider: Decider<C, E, S>, command: C, by: CommandOrigin, views: readonly string[]): Promise<Outcome<E, S>> {
    const outcome = await this.aggregates.execute(streamId, decider, command, {
      tenantId: by.tenantId,
      actor: by.actor,
      now: this.clock.now(),
      ...by.origin,
      ...(by.expectedRevision !== undefined ? { expectedRevision: by.expectedRevision } : {}),
    });
    if (outcome.position) await this.projections.waitFor(views, outcome.position);
    return outcome;
  }
}
