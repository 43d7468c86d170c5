import { readParams, readParamsNamingRepeats } from './params.js';

describe('request parameters', () => {
  it('takes parameters named like the properties of an object as parameters like any other', () => {
    expect(readParams({ constructor: 'x', toString: '1', __proto__: 'p' } as unknown as Record<string, string>)).toEqual(Object.assign(Object.create(null), { constructor: 'x', toString: '1' }));
    expect(readParams(JSON.parse('{"constructor":"x","__proto__":"p"}'))).toMatchObject({ constructor: 'x', __proto__: 'p' });
  });

  it('refuses a parameter sent twice, across sources too, and ignores an empty one', () => {
    expect(() => readParams({ scope: ['a', 'b'] })).toThrow('parameter scope is repeated');
    expect(() => readParams({ scope: 'a' }, { scope: 'b' })).toThrow('parameter scope is repeated');
    expect(readParams({ scope: 'a' }, { scope: '' })).toMatchObject({ scope: 'a' });
  });

  it('names the repeated parameters instead, keeping the first value, when asked to', () => {
    const { params, repeated } = readParamsNamingRepeats({ scope: ['a', 'b'], state: 's', constructor: 'c' }, { state: 't' });
    expect({ ...params }).toEqual({ scope: 'a', state: 's', constructor: 'c' });
    expect(repeated).toEqual(['scope', 'state']);
  });

  it('cuts a long repeated name in the error, which may go back to the client in a URL', () => {
    const name = 'n'.repeat(6000);
    expect(() => readParams({ [name]: ['a', 'b'] })).toThrow(`parameter ${'n'.repeat(40)}... is repeated`);
  });
});
