import { assertNever, type Decider } from '../shared/decider.js';
import { DomainError } from '../shared/domain-error.js';
import type { SsfStreamEvent, StreamSettings, StreamStatus, SubjectKey } from './ssf-stream.events.js';

/** Subjects one stream may hold: its state is loaded at each change. */
export const MAX_SUBJECTS = 1000;

export type SsfStreamCommand =
  | { kind: 'CreateStream'; tenantId: string; streamId: string; clientId: string; settings: StreamSettings }
  | { kind: 'UpdateStream'; clientId: string; settings: StreamSettings }
  | { kind: 'SetStatus'; clientId: string; status: StreamStatus; reason?: string }
  | { kind: 'AddSubject'; clientId: string; subject: SubjectKey }
  | { kind: 'RemoveSubject'; clientId: string; subject: SubjectKey }
  | { kind: 'RequestVerification'; clientId: string; state?: string }
  | { kind: 'DeleteStream'; clientId: string };

export interface SsfStreamState {
  tenantId?: string;
  streamId?: string;
  clientId?: string;
  settings?: StreamSettings;
  status: StreamStatus;
  reason?: string;
  subjects: SubjectKey[];
  deleted?: boolean;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export const ssfStreamDecider: Decider<SsfStreamCommand, SsfStreamEvent, SsfStreamState> = {
  initialState: { status: 'enabled', subjects: [] },
  decide(command, state) {
    if (command.kind === 'CreateStream') {
      if (state.streamId) throw new DomainError('already_exists', 'the stream exists');
      const { tenantId, streamId, clientId, settings } = command;
      return [{ type: 'SsfStreamCreated', data: { tenantId, streamId, clientId, ...settings } }];
    }
    // A stream of another receiver is as unknown as one that never was: its id tells nothing.
    if (!state.streamId || !state.tenantId || state.deleted || state.clientId !== command.clientId) throw new DomainError('not_found', 'no such stream');
    const ids = { tenantId: state.tenantId, streamId: state.streamId };
    switch (command.kind) {
      case 'UpdateStream':
        return same(command.settings, state.settings) ? [] : [{ type: 'SsfStreamUpdated', data: { ...ids, ...command.settings } }];
      case 'SetStatus':
        if (command.status === state.status && command.reason === state.reason) return [];
        return [{ type: 'SsfStreamStatusChanged', data: { ...ids, status: command.status, ...(command.reason !== undefined ? { reason: command.reason } : {}) } }];
      case 'AddSubject':
        if (state.subjects.includes(command.subject)) return [];
        if (state.subjects.length >= MAX_SUBJECTS) throw new DomainError('invalid_value', `a stream holds at most ${MAX_SUBJECTS} subjects`);
        return [{ type: 'SsfSubjectAdded', data: { ...ids, subject: command.subject } }];
      case 'RemoveSubject':
        if (!state.subjects.includes(command.subject)) throw new DomainError('not_found', 'the subject is not in the stream');
        return [{ type: 'SsfSubjectRemoved', data: { ...ids, subject: command.subject } }];
      case 'RequestVerification':
        return [{ type: 'SsfVerificationRequested', data: { ...ids, ...(command.state !== undefined ? { state: command.state } : {}) } }];
      case 'DeleteStream':
        return [{ type: 'SsfStreamDeleted', data: { ...ids, clientId: command.clientId } }];
      default:
        return assertNever(command);
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'SsfStreamCreated': {
        const { tenantId, streamId, clientId, ...settings } = event.data;
        return { tenantId, streamId, clientId, settings, status: 'enabled', subjects: [] };
      }
      case 'SsfStreamUpdated': {
        const { tenantId: _t, streamId: _s, ...settings } = event.data;
        return { ...state, settings };
      }
      case 'SsfStreamStatusChanged': {
        const { reason: _r, ...rest } = state;
        return { ...rest, status: event.data.status, ...(event.data.reason !== undefined ? { reason: event.data.reason } : {}) };
      }
      case 'SsfSubjectAdded':
        return { ...state, subjects: [...state.subjects, event.data.subject] };
      case 'SsfSubjectRemoved':
        return { ...state, subjects: state.subjects.filter((s) => s !== event.data.subject) };
      case 'SsfVerificationRequested':
        return state;
      case 'SsfStreamDeleted':
        return { ...state, deleted: true, subjects: [] };
      default:
        return assertNever(event);
    }
  },
};
