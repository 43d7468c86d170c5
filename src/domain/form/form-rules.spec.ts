import { describe, expect, it } from '@jest/globals';
import { checkField, checkForm, defaultForm, formFault } from './form-rules.js';

describe('form rules', () => {
  const username = { name: 'username', required: true, minLength: 3, maxLength: 5, pattern: '[a-z]+' };

  it('checks presence, length in characters (not UTF-16 units) and a whole-value pattern', () => {
    expect(checkField(username, undefined)).toEqual({ fault: 'required' });
    expect(checkField({ name: 'email', required: false }, '')).toBeUndefined();
    expect(checkField(username, 'ab')).toEqual({ fault: 'tooShort', limit: 3 });
    expect(checkField(username, 'abcdef')).toEqual({ fault: 'tooLong', limit: 5 });
    expect(checkField(username, 'abc1')).toEqual({ fault: 'pattern' });
    expect(checkField(username, 'xabcx')).toBeUndefined();
    expect(checkField({ name: 'name', required: true, maxLength: 2 }, '😀😀')).toBeUndefined();
    // The pattern is anchored as HTML's is: a partial match does not pass.
    expect(checkField({ name: 'username', required: true, pattern: 'a|b' }, 'ab')).toEqual({ fault: 'pattern' });
  });

  it('refuses fields the form cannot show, a form without a required username, bad bounds and patterns', () => {
    expect(formFault('registration', defaultForm('registration'))).toBeUndefined();
    expect(formFault('sign-in', defaultForm('sign-in'))).toBeUndefined();
    expect(formFault('sign-in', { fields: [{ name: 'username', required: true }, { name: 'email', required: true }] })).toMatch(/no field email/);
    expect(formFault('registration', { fields: [{ name: 'email', required: true }] })).toMatch(/username/);
    expect(formFault('registration', { fields: [{ ...username, pattern: '[' }] })).toMatch(/pattern/);
    expect(formFault('registration', { fields: [{ ...username, minLength: 6 }] })).toMatch(/above/);
  });

  it('names every field at fault, and fields the form does not show', () => {
    const form = { fields: [username, { name: 'email', required: true }] };
    expect(checkForm(form, { username: 'ab', name: 'X' }, ['username', 'name'])).toEqual([
      { path: 'name', detail: "not a field of this tenant's form" },
      { path: 'username', detail: 'must be at least 3 characters' },
      { path: 'email', detail: 'required' },
    ]);
  });
});
