import { EN } from '../../edge/pages/messages.en.js';
import { LOCALE_TAG } from '../../edge/pages/locale-choice.js';
import { assertNever, type Decider } from '../shared/decider.js';
import { DomainError } from '../shared/domain-error.js';
import type { LocaleEvent } from './locale.events.js';

/** The longest text a tenant may give one key. */
export const MAX_MESSAGE_LENGTH = 500;

export type LocaleCommand =
  | { kind: 'SetLocaleMessages'; tenantId: string; tag: string; messages: Record<string, string>; isDefault: boolean }
  | { kind: 'DeleteLocaleMessages' };

export interface LocaleState {
  tenantId?: string;
  tag?: string;
  messages?: Record<string, string>;
  isDefault?: boolean;
}

/** Only keys of the built-in catalogue, each a non-empty text of bounded length. */
function validate(tag: string, messages: Record<string, string>): void {
  const fail = (m: string): never => {
    throw new DomainError('invalid_value', `locale ${tag}: ${m}`);
  };
  if (!LOCALE_TAG.test(tag) || tag.length > 35) fail('the tag must be a language tag such as fr or de-CH');
  for (const [key, text] of Object.entries(messages)) {
    if (!Object.hasOwn(EN, key)) fail(`no text is named ${key}`);
    if (typeof text !== 'string' || text.length === 0 || text.length > MAX_MESSAGE_LENGTH) fail(`${key} must be a text of 1 to ${MAX_MESSAGE_LENGTH} characters`);
  }
}

export const localeDecider: Decider<LocaleCommand, LocaleEvent, LocaleState> = {
  initialState: {},
  decide(command, state) {
    switch (command.kind) {
      case 'SetLocaleMessages': {
        validate(command.tag, command.messages);
        const same = state.messages !== undefined && state.isDefault === command.isDefault && JSON.stringify(state.messages) === JSON.stringify(command.messages);
        if (same) return [];
        return [{ type: 'LocaleMessagesChanged', data: { tenantId: command.tenantId, tag: command.tag, messages: command.messages, isDefault: command.isDefault } }];
      }
      case 'DeleteLocaleMessages':
        if (!state.messages || !state.tenantId || !state.tag) throw new DomainError('not_found', 'no such locale');
        return [{ type: 'LocaleMessagesDeleted', data: { tenantId: state.tenantId, tag: state.tag } }];
      default:
        return assertNever(command);
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'LocaleMessagesChanged': {
        const { tenantId, tag, messages, isDefault } = event.data;
        return { tenantId, tag, messages, isDefault };
      }
      case 'LocaleMessagesDeleted':
        return { tenantId: state.tenantId };
      default:
        return assertNever(event);
    }
  },
};
