import { Inject, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { LocaleView } from '../../../projections/locales.projection.js';
import type { ThemeView } from '../../../projections/themes.projection.js';
import { READ_STORE, type ReadStore } from '../../infrastructure/read-store/read-store.port.js';
import type { PageContext } from '../../shared/html.js';
import { BUILT_IN_LOCALES, chooseLocale } from './locale-choice.js';
import { EN, type Messages } from './messages.en.js';
import { FR } from './messages.fr.js';

const BUILT_IN: Record<string, Messages> = { en: EN, fr: FR };

/**
 * What a tenant's page is rendered in for one request: its language and texts (the built-in
 * catalogue of the language, or of its primary language, or English, overridden key by key by
 * the tenant's own texts for that tag), and the tenant's logo.
 */
@Injectable()
export class PageContexts {
  constructor(@Inject(READ_STORE) private readonly reads: ReadStore) {}

  /** The tags the tenant's pages are offered in (discovery's `ui_locales_supported`). */
  async offered(tenantId: string): Promise<string[]> {
    return offeredTags(await this.tenantLocales(tenantId));
  }

  /** `uiLocales`: the request's `ui_locales` (OIDC Core §3.1.2.1), when it carried one. */
  async context(tenantId: string, req: FastifyRequest, uiLocales?: string): Promise<PageContext> {
    const header = req.headers['accept-language'];
    return this.forLanguage(tenantId, uiLocales, typeof header === 'string' ? header : undefined);
  }

  /** The texts in the language `ui_locales`, else `Accept-Language`, chooses (where there is no page request: an e-mail sent for the native API). */
  async forLanguage(tenantId: string, uiLocales: string | undefined, acceptLanguage: string | undefined): Promise<PageContext> {
    const [own, theme] = await Promise.all([this.tenantLocales(tenantId), this.reads.get<ThemeView>('themes', tenantId)]);
    // The most recently marked default, should two be marked for a moment.
    const byDefault = own.filter((l) => l.isDefault).sort((a, b) => b.updatedAt.localeCompare(a.updatedAt))[0];
    const lang = chooseLocale(offeredTags(own), uiLocales, acceptLanguage, byDefault?.tag);
    const base = BUILT_IN[lang] ?? BUILT_IN[lang.split('-')[0]] ?? EN;
    const overrides = own.find((l) => l.tag === lang)?.messages ?? {};
    return { lang, messages: { ...base, ...overrides }, ...(theme?.logoUrl ? { logoUrl: theme.logoUrl } : {}) };
  }

  private tenantLocales(tenantId: string): Promise<LocaleView[]> {
    return this.reads.find<LocaleView>('locales', { tenantId });
  }
}

function offeredTags(own: readonly LocaleView[]): string[] {
  return [...new Set([...BUILT_IN_LOCALES, ...own.map((l) => l.tag)])];
}

/** The context of a page rendered where no tenant's texts can be read (an error page): built-in catalogues only. */
export function builtInContext(uiLocales: string | undefined, acceptLanguage: string | undefined): PageContext {
  const lang = chooseLocale(BUILT_IN_LOCALES, uiLocales, acceptLanguage);
  return { lang, messages: BUILT_IN[lang] ?? EN };
}
