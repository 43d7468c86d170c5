import { assertNever, type Decider } from '../shared/decider.js';
import { DomainError } from '../shared/domain-error.js';
import type { AuthorizationRequestPushed, PushedRequestContent, PushedRequestEvent } from './pushed-request.events.js';

export type PushedRequestCommand =
  | { kind: 'Push'; tenantId: string; clientId: string; requestUriHash: string; expiresAt: number; request: PushedRequestContent }
  /** `now` in seconds. */
  | { kind: 'Use'; tenantId: string; clientId: string; requestUriHash: string; now: number };

export interface PushedRequestState {
  pushed?: AuthorizationRequestPushed['data'];
  used: boolean;
}

/**
 * One pushed authorization request (RFC 9126), on a stream of its own: pushed once, used at
 * most once (§4: single use), only by the client that pushed it and before it expires. The
 * append with the expected revision makes the use single even across server instances.
 */
export const pushedRequestDecider: Decider<PushedRequestCommand, PushedRequestEvent, PushedRequestState> = {
  initialState: { used: false },
  decide(command, state) {
    switch (command.kind) {
      case 'Push': {
        if (state.pushed) throw new DomainError('already_exists', 'this request_uri exists');
        const { tenantId, clientId, requestUriHash, expiresAt, request } = command;
        return [{ type: 'AuthorizationRequestPushed', data: { tenantId, clientId, requestUriHash, expiresAt, request } }];
      }
      case 'Use': {
        const pushed = state.pushed;
        // One answer for unknown, spent and expired, so that a guess learns nothing.
        if (!pushed || state.used || command.now >= pushed.expiresAt || pushed.tenantId !== command.tenantId) {
          throw new DomainError('not_found', 'the request_uri is unknown, expired or used');
        }
        // RFC 9126 §4: bound to the client that pushed it.
        if (pushed.clientId !== command.clientId) throw new DomainError('client_mismatch', 'the request_uri was pushed by another client');
        return [{ type: 'PushedRequestUsed', data: { tenantId: command.tenantId, clientId: command.clientId, requestUriHash: command.requestUriHash, at: command.now } }];
      }
      default:
        return assertNever(command);
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'AuthorizationRequestPushed':
        return { ...state, pushed: event.data };
      case 'PushedRequestUsed':
        return { ...state, used: true };
      default:
        return assertNever(event);
    }
  },
};
