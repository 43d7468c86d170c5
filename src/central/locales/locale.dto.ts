import { IsBoolean, IsObject, IsOptional } from 'class-validator';
import type { LocaleView } from '../../../projections/locales.projection.js';
import { MAX_MESSAGE_LENGTH } from '../../domain/locale/locale.decider.js';
import { EN } from '../../edge/pages/messages.en.js';
import { LOCALE_TAG } from '../../edge/pages/locale-choice.js';
import { type FieldError, problems } from '../http/problem.js';

/** A tenant's texts for one language: `messages` maps keys of the built-in catalogue to texts. */
export class LocaleDto {
  @IsObject()
  messages!: Record<string, unknown>;

  /** The tenant's default language (pages fall back to it when neither `ui_locales` nor `Accept-Language` names one offered). */
  @IsOptional()
  @IsBoolean()
  default?: boolean;
}

/** The tag of a path, in lower case (language tags are case-insensitive, RFC 5646 §2.1.1), or a 404 for what is no tag. */
export function localeTagOf(tag: string): string {
  if (!LOCALE_TAG.test(tag) || tag.length > 35) throw problems.notFound(`no locale ${tag}: a locale is named by a language tag such as fr or de-ch`);
  return tag.toLowerCase();
}

/** Only keys of the built-in catalogue, each a text of 1 to MAX_MESSAGE_LENGTH characters; every fault named. */
export function messagesOf(dto: LocaleDto): Record<string, string> {
  const errors: FieldError[] = [];
  const messages: Record<string, string> = {};
  for (const [key, text] of Object.entries(dto.messages)) {
    if (!Object.hasOwn(EN, key)) errors.push({ path: `messages.${key}`, detail: 'no text has this key' });
    else if (typeof text !== 'string' || text.length === 0 || text.length > MAX_MESSAGE_LENGTH) errors.push({ path: `messages.${key}`, detail: `must be a text of 1 to ${MAX_MESSAGE_LENGTH} characters` });
    else Object.defineProperty(messages, key, { value: text, enumerable: true });
  }
  if (errors.length) throw problems.badRequest('the request body is not valid', errors);
  return Object.fromEntries(Object.keys(messages).sort().map((k) => [k, messages[k]]));
}

export function localeRepresentation(l: LocaleView): Record<string, unknown> {
  return { tag: l.tag, messages: l.messages, default: l.isDefault, created_at: l.createdAt, updated_at: l.updatedAt };
}
