import { ADMIN_SCOPES, FEED_SCOPE, SSF_SCOPE } from '../../auth/scopes.js';
import { ITEM_ID } from '../resource/resource.decider.js';
import { assertNever, type Decider } from '../shared/decider.js';
import { DomainError } from '../shared/domain-error.js';
import { builtInScope, PROTOCOL_SCOPES, RELEASABLE_CLAIMS } from './built-in-scopes.js';
import type { ScopeDefinition, ScopeEvent } from './scope.events.js';

export type ScopeCommand =
  | { kind: 'CreateScope'; tenantId: string; definition: ScopeDefinition }
  | { kind: 'UpdateScope'; tenantId: string; definition: ScopeDefinition }
  | { kind: 'DeleteScope'; scopeId: string };

export interface ScopeState {
  tenantId?: string;
  definition?: ScopeDefinition;
  /** Deleted: the id may be defined again (a scope is a name, not an identity). */
  deleted?: boolean;
}


function validate(d: ScopeDefinition): void {
  const fail = (m: string): never => {
    throw new DomainError('invalid_value', `scope ${d.scopeId}: ${m}`);
  };
  // A subset of RFC 6749 §3.3's scope-token that is also a permission's name and a URL segment as it is.
  if (!ITEM_ID.test(d.scopeId)) fail('id must be 1-128 unreserved characters or ":"');
  if ((ADMIN_SCOPES as readonly string[]).includes(d.scopeId) || d.scopeId.startsWith('central:')) fail('central:* are the admin scopes, permissions of the built-in resource central');
  if (d.scopeId === FEED_SCOPE) fail(`${FEED_SCOPE} is the event feed's own scope`);
  if (d.scopeId === SSF_SCOPE) fail(`${SSF_SCOPE} is the Shared Signals transmitter's own scope`);
  const unknown = d.claims.filter((c) => !(RELEASABLE_CLAIMS as readonly string[]).includes(c));
  if (unknown.length) fail(`claims ${unknown.join(', ')} are not kept of users (known: ${RELEASABLE_CLAIMS.join(', ')})`);
  const builtIn = builtInScope(d.scopeId);
  if (builtIn && PROTOCOL_SCOPES.has(d.scopeId) && (d.restricted !== builtIn.restricted || d.claims.join(' ') !== builtIn.claims.join(' '))) {
    fail('is a protocol scope: only its description may change');
  }
}

/**
 * A tenant's scope. The built-in ones (see built-in-scopes.ts) exist before any event of
 * theirs: their stream starts with the first change an admin makes, and they are never deleted.
 */
export const scopeDecider: Decider<ScopeCommand, ScopeEvent, ScopeState> = {
  initialState: {},
  decide(command, state) {
    switch (command.kind) {
      case 'CreateScope':
        validate(command.definition);
        if (state.definition || builtInScope(command.definition.scopeId)) throw new DomainError('already_exists', `a scope ${command.definition.scopeId} exists`);
        return [{ type: 'ScopeCreated', data: { tenantId: command.tenantId, ...command.definition } }];
      case 'UpdateScope':
        if (!state.definition && !builtInScope(command.definition.scopeId)) throw new DomainError('not_found', 'no such scope');
        validate(command.definition);
        return [{ type: 'ScopeUpdated', data: { tenantId: command.tenantId, ...command.definition } }];
      case 'DeleteScope':
        if (builtInScope(command.scopeId)) throw new DomainError('invalid_value', `${command.scopeId} is built in: change it, it cannot be deleted`);
        if (!state.definition || !state.tenantId) throw new DomainError('not_found', 'no such scope');
        return [{ type: 'ScopeDeleted', data: { tenantId: state.tenantId, scopeId: command.scopeId } }];
      default:
        return assertNever(command);
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'ScopeCreated':
      case 'ScopeUpdated': {
        const { tenantId, ...definition } = event.data;
        return { tenantId, definition };
      }
      case 'ScopeDeleted':
        return { tenantId: state.tenantId, deleted: true };
      default:
        return assertNever(event);
    }
  },
};
