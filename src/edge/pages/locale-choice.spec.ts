import { describe, expect, it } from '@jest/globals';
import { acceptedLanguages, chooseLocale } from './locale-choice.js';

describe('locale choice', () => {
  const offered = ['en', 'fr', 'de-CH'];

  it('orders Accept-Language by q-value, then by position, and drops q=0 and *', () => {
    expect(acceptedLanguages('de;q=0.5, fr-CA, en;q=0.8, it;q=0, *;q=0.1')).toEqual(['fr-CA', 'en', 'de']);
    expect(acceptedLanguages(undefined)).toEqual([]);
  });

  it('ui_locales first, then Accept-Language, then the tenant default, then en', () => {
    expect(chooseLocale(offered, 'es fr', 'en')).toBe('fr');
    expect(chooseLocale(offered, 'es', 'de-CH;q=0.9, en;q=0.1')).toBe('de-CH');
    expect(chooseLocale(offered, undefined, 'es', 'fr')).toBe('fr');
    expect(chooseLocale(offered, undefined, 'es', 'pt')).toBe('en');
    expect(chooseLocale(offered, undefined, undefined)).toBe('en');
  });

  it('matches a regional tag by its language, case-insensitively', () => {
    expect(chooseLocale(offered, 'FR-ca', undefined)).toBe('fr');
    expect(chooseLocale(offered, 'de-ch', undefined)).toBe('de-CH');
    expect(chooseLocale(offered, 'de', undefined)).toBe('en');
  });
});
