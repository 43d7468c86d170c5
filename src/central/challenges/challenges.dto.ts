import { Type } from 'class-transformer';
import { IsIn, IsObject, IsOptional, ValidateNested } from 'class-validator';
import type { ChallengesView } from '../../../projections/challenges.projection.js';
import { challengesFault } from '../../domain/challenge/challenges.decider.js';
import { type ChallengesDefinition, FACTOR_POLICIES, type FactorPolicies } from '../../domain/challenge/challenges.events.js';
import { problems } from '../http/problem.js';
import { validated } from '../http/validation.js';

/** Each second factor's policy: `required`, `optional` or `off` (absent: off). */
export class FactorPoliciesDto {
  @IsOptional()
  @IsIn(FACTOR_POLICIES)
  totp?: string;

  @IsOptional()
  @IsIn(FACTOR_POLICIES)
  email_otp?: string;

  @IsOptional()
  @IsIn(FACTOR_POLICIES)
  webauthn?: string;
}

/** The tenant's second factors, and per client_id the policies that replace the tenant's for that client. */
export class ChallengesDto {
  @IsObject()
  @ValidateNested()
  @Type(() => FactorPoliciesDto)
  factors!: FactorPoliciesDto;

  /** client_id → policies; each factor it names overrides the tenant's for that client. */
  @IsOptional()
  @IsObject()
  clients?: Record<string, Record<string, string>>;
}

const policies = (p: object): FactorPolicies => Object.fromEntries(Object.entries(p).filter(([, v]) => v !== undefined)) as FactorPolicies;

export function challengesDefinitionOf(dto: ChallengesDto, emailAvailable: boolean): ChallengesDefinition {
  const clients: ChallengesDefinition['clients'] = {};
  for (const [clientId, p] of Object.entries(dto.clients ?? {})) {
    if (typeof p !== 'object' || p === null || Array.isArray(p)) throw problems.badRequest(`clients.${clientId} must be an object of factor policies`, [{ path: `clients.${clientId}`, detail: 'must be an object' }]);
    clients[clientId] = policies(p);
  }
  const definition = { factors: policies(dto.factors), clients };
  const fault = challengesFault(definition, emailAvailable);
  if (fault) throw problems.badRequest(fault, [{ path: fault.split(/[: ]/)[0], detail: fault }]);
  return definition;
}

/**
 * A challenges document as the admin API's PUT takes it (snake_case, `factors` and `clients`),
 * checked by the same rules: the definition, or a 400 problem naming the fields. The bootstrap
 * file's `challenges` goes through here too, so a factor added to the DTO needs nothing there.
 */
export function challengesFromDocument(document: unknown, emailAvailable: boolean): ChallengesDefinition {
  return challengesDefinitionOf(validated(ChallengesDto, document), emailAvailable);
}

export function challengesRepresentation(c: ChallengesView): Record<string, unknown> {
  return { factors: c.factors, clients: c.clients, created_at: c.createdAt, updated_at: c.updatedAt };
}
