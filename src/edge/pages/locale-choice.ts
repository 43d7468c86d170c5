/** Locales shipped with complete catalogues. */
export const BUILT_IN_LOCALES = ['en', 'fr'] as const;

/** A language tag as the admin API takes it (BCP 47 shape, RFC 5646 §2.1): `fr`, `de-CH`, `zh-Hant-TW`. */
export const LOCALE_TAG = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8}){0,3}$/;

/** The tags of an `Accept-Language` header (RFC 9110 §12.5.4), best first; `q=0` means not acceptable. */
export function acceptedLanguages(header: string | undefined): string[] {
  if (!header) return [];
  const ranges = header
    .split(',')
    .slice(0, 32)
    .map((part, index) => {
      const [tag, ...params] = part.trim().split(';');
      const q = params.map((p) => /^\s*q\s*=\s*([01](?:\.\d{0,3})?)\s*$/.exec(p)).find((m) => m !== null);
      return { tag: tag.trim(), q: q ? Number(q[1]) : 1, index };
    })
    .filter((r) => r.tag !== '' && r.tag !== '*' && r.q > 0);
  return ranges.sort((a, b) => b.q - a.q || a.index - b.index).map((r) => r.tag);
}

/**
 * The locale of a page: the first of the request's `ui_locales` (OIDC Core §3.1.2.1, a
 * space-separated preference list), then of `Accept-Language`, that the tenant offers; then the
 * tenant's default; then `en`. A tag matches an offered one exactly or by its language
 * (`fr-CA` takes `fr`), case-insensitively (RFC 5646 §2.1.1).
 */
export function chooseLocale(offered: readonly string[], uiLocales: string | undefined, acceptLanguage: string | undefined, tenantDefault?: string): string {
  const byLower = new Map(offered.map((tag) => [tag.toLowerCase(), tag]));
  const wanted = [...(uiLocales ?? '').split(' ').filter(Boolean).slice(0, 16), ...acceptedLanguages(acceptLanguage)];
  for (const tag of wanted) {
    const lower = tag.toLowerCase();
    const found = byLower.get(lower) ?? byLower.get(lower.split('-')[0]);
    if (found) return found;
  }
  return tenantDefault && byLower.has(tenantDefault.toLowerCase()) ? byLower.get(tenantDefault.toLowerCase())! : 'en';
}
