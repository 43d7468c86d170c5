import type { DomainEvent } from '../shared/decider.js';

/**
 * A tenant's texts for one language of the edge pages, after an admin's change: the whole set
 * of the texts it overrides (keys of the built-in catalogue), and whether it is the tenant's
 * default language.
 */
export type LocaleMessagesChanged = DomainEvent<'LocaleMessagesChanged', { tenantId: string; tag: string; messages: Record<string, string>; isDefault: boolean }>;
export type LocaleMessagesDeleted = DomainEvent<'LocaleMessagesDeleted', { tenantId: string; tag: string }>;

export type LocaleEvent = LocaleMessagesChanged | LocaleMessagesDeleted;
