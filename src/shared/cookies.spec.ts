import { parseCookies } from './cookies.js';

describe('parseCookies', () => {
  it('reads each name once, the first occurrence winning', () => {
    expect({ ...parseCookies('a=1; b = 2 ;a=3; =x; c') }).toEqual({ a: '1', b: '2' });
    expect({ ...parseCookies(undefined) }).toEqual({});
  });

  it('takes prototype property names as cookie names like any other', () => {
    const cookies = parseCookies('__proto__=p; constructor=c; toString=t; hasOwnProperty=h; sid=s');
    expect(Object.entries(cookies)).toEqual([
      ['__proto__', 'p'],
      ['constructor', 'c'],
      ['toString', 't'],
      ['hasOwnProperty', 'h'],
      ['sid', 's'],
    ]);
    expect(parseCookies('sid=s').constructor).toBeUndefined();
  });
});
