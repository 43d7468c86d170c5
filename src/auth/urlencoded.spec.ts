import { MALFORMED, parseQuery, parseUrlencoded } from './urlencoded.js';

describe('application/x-www-form-urlencoded', () => {
  it('decodes names and values, + as a space, and keeps the values of a repeated name in order', () => {
    const fields = parseUrlencoded('a=1&b=x+y%2Bz&&c&a=2&state=caf%C3%A9&a=3&=e');
    expect({ ...fields }).toEqual({ a: ['1', '2', '3'], b: 'x y+z', c: '', state: 'café', '': 'e' });
    expect(Object.getPrototypeOf(fields)).toBeNull();
  });

  it('takes __proto__ and constructor as parameters like any other', () => {
    const fields = parseUrlencoded('__proto__=1&constructor=2&__proto__[polluted]=x')!;
    expect(Object.keys(fields)).toEqual(['__proto__', 'constructor', '__proto__[polluted]']);
    expect(fields.__proto__).toBe('1');
    expect(Object.getPrototypeOf(fields)).toBeNull();
    expect(Object.prototype).not.toHaveProperty('polluted');
  });

  it.each(['state=%zz', 'state=%', 'state=%e9', 'caf%E9=1', 'state=%C3'])('refuses %s: not percent-encoded UTF-8', (text) => {
    expect(parseUrlencoded(text)).toBeUndefined();
  });

  it('marks a query that cannot be read, or that is not ASCII, as MALFORMED', () => {
    expect(MALFORMED in parseQuery('state=%zz')).toBe(true);
    expect(MALFORMED in parseQuery('state=caf\u00e9')).toBe(true);
    expect(MALFORMED in parseQuery('state=caf%C3%A9')).toBe(false);
    expect(parseQuery('')).toEqual({});
  });
});
