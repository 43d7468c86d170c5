import { assertNever, type Decider } from '../shared/decider.js';
import { DomainError } from '../shared/domain-error.js';
import { type ChallengesDefinition, type ChallengesEvent, FACTOR_POLICIES, FACTORS, type FactorPolicies } from './challenges.events.js';

/** Client overrides one tenant may keep. */
export const MAX_CLIENT_OVERRIDES = 256;

export type ChallengesCommand = { kind: 'SetChallenges'; tenantId: string; definition: ChallengesDefinition; emailAvailable: boolean } | { kind: 'DeleteChallenges' };

export interface ChallengesState {
  tenantId?: string;
  definition?: ChallengesDefinition;
}

function policiesFault(path: string, policies: FactorPolicies): string | undefined {
  for (const [factor, policy] of Object.entries(policies)) {
    if (!(FACTORS as readonly string[]).includes(factor)) return `${path}.${factor}: no factor is named so (factors: ${FACTORS.join(', ')})`;
    if (!(FACTOR_POLICIES as readonly string[]).includes(policy as string)) return `${path}.${factor} must be one of ${FACTOR_POLICIES.join(', ')}`;
  }
  return undefined;
}

/**
 * Why `definition` cannot be taken, or undefined. `emailAvailable`: whether the server can
 * send mail (or, in development, log the codes): without it e-mail codes cannot be turned on.
 */
export function challengesFault(definition: ChallengesDefinition, emailAvailable: boolean): string | undefined {
  const clients = Object.entries(definition.clients);
  if (clients.length > MAX_CLIENT_OVERRIDES) return `clients: at most ${MAX_CLIENT_OVERRIDES} client overrides`;
  const all = [['factors', definition.factors] as const, ...clients.map(([id, p]) => [`clients.${id}`, p] as const)];
  for (const [path, policies] of all) {
    const fault = policiesFault(path, policies);
    if (fault) return fault;
  }
  const emailOn = all.some(([, p]) => p.email_otp !== undefined && p.email_otp !== 'off');
  if (emailOn && !emailAvailable) return 'email_otp cannot be enabled: this server has no SMTP_URL to send the codes with';
  return undefined;
}

export const challengesDecider: Decider<ChallengesCommand, ChallengesEvent, ChallengesState> = {
  initialState: {},
  decide(command, state) {
    switch (command.kind) {
      case 'SetChallenges': {
        const fault = challengesFault(command.definition, command.emailAvailable);
        if (fault) throw new DomainError('invalid_value', fault);
        if (state.definition && JSON.stringify(state.definition) === JSON.stringify(command.definition)) return [];
        return [{ type: 'ChallengesChanged', data: { tenantId: command.tenantId, ...command.definition } }];
      }
      case 'DeleteChallenges':
        if (!state.definition || !state.tenantId) throw new DomainError('not_found', 'the tenant has no second factors');
        return [{ type: 'ChallengesDeleted', data: { tenantId: state.tenantId } }];
      default:
        return assertNever(command);
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'ChallengesChanged': {
        const { tenantId, factors, clients } = event.data;
        return { tenantId, definition: { factors, clients } };
      }
      case 'ChallengesDeleted':
        return { tenantId: state.tenantId };
      default:
        return assertNever(event);
    }
  },
};
