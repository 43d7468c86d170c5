import type { CommandBus } from '@nestjs/cqrs';
import type { ChallengesView } from '../../../projections/challenges.projection.js';
import type { ChallengesDefinition } from '../../domain/challenge/challenges.events.js';
import type { ReadStore } from '../../infrastructure/read-store/read-store.port.js';
import { SaveChallenges } from '../challenges/challenges-commands.js';
import { challengesFromDocument } from '../challenges/challenges.dto.js';
import type { CommandOrigin } from '../command-path.js';
import { type CommandResult, unappliedFields } from '../commands/create-tenant.command.js';
import { Problem } from '../http/problem.js';
import type { FieldReader } from './bootstrap-access.js';

/**
 * A tenant's `challenges` in the bootstrap file: the document the admin API's
 * `PUT /configuration/challenges` takes, checked by the same function, so that a factor the
 * admin API learns is one the file takes too. A fault names its field under `path`.
 */
export function readChallenges(r: FieldReader & { emailCodes: boolean }, v: unknown, path: string): ChallengesDefinition {
  const document = r.object(v, path);
  try {
    return challengesFromDocument(document, r.emailCodes);
  } catch (e) {
    if (!(e instanceof Problem)) throw e;
    const first = e.extensions.errors?.[0];
    if (!first) r.fail(path, e.detail ?? e.title);
    // The decider's faults start with the path they name.
    const detail = first.detail.startsWith(`${first.path}`) ? first.detail.slice(first.path.length).replace(/^:?\s*/, '') : first.detail;
    r.fail(`${path}.${first.path}`, detail);
  }
}

/**
 * Applies the file's challenges as the file applies everything: set when the tenant has none
 * (through the admin API's command); otherwise left as they are, the fields that differ named.
 */
export async function applyChallenges(commands: CommandBus, reads: ReadStore, by: CommandOrigin, definition: ChallengesDefinition): Promise<CommandResult> {
  const stored = await reads.get<ChallengesView>('challenges', by.tenantId);
  if (stored) return { created: false, unapplied: unappliedFields(definition, { factors: stored.factors, clients: stored.clients }) };
  await commands.execute(new SaveChallenges(by, definition));
  return { created: true };
}
