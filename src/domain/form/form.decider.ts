import { assertNever, type Decider } from '../shared/decider.js';
import { DomainError } from '../shared/domain-error.js';
import { formFault } from './form-rules.js';
import type { FormDefinition, FormEvent, FormName } from './form.events.js';

export type FormCommand = { kind: 'SetForm'; tenantId: string; form: FormName; definition: FormDefinition } | { kind: 'DeleteForm' };

export interface FormState {
  tenantId?: string;
  form?: FormName;
  definition?: FormDefinition;
}

export const formDecider: Decider<FormCommand, FormEvent, FormState> = {
  initialState: {},
  decide(command, state) {
    switch (command.kind) {
      case 'SetForm': {
        const fault = formFault(command.form, command.definition);
        if (fault) throw new DomainError('invalid_value', fault);
        if (state.definition && JSON.stringify(state.definition) === JSON.stringify(command.definition)) return [];
        return [{ type: 'FormChanged', data: { tenantId: command.tenantId, form: command.form, ...command.definition } }];
      }
      case 'DeleteForm':
        if (!state.definition || !state.tenantId || !state.form) throw new DomainError('not_found', 'the tenant has no form of its own here');
        return [{ type: 'FormDeleted', data: { tenantId: state.tenantId, form: state.form } }];
      default:
        return assertNever(command);
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'FormChanged': {
        const { tenantId, form, fields } = event.data;
        return { tenantId, form, definition: { fields } };
      }
      case 'FormDeleted':
        return { tenantId: state.tenantId, form: state.form };
      default:
        return assertNever(event);
    }
  },
};
