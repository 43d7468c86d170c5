/**
 * Generators of HTTP requests for the fuzzer: a route of the table and one of its methods (or
 * another), a query and a body built from the route's parameter names and from prototype
 * names, values both valid (real clients, tokens, cookies) and broken, encoded well or badly,
 * under right and wrong content types and odd headers.
 */
import fc from 'fast-check';
import type { RawRequest } from './raw-http.js';
import type { FuzzRoute } from './route-table.js';

export const PROTOTYPE_NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__', 'prototype'];

/** Values that let a request get past the first checks: what the fuzzer's server knows. */
export interface Known {
  host: string;
  /** The first is the one most requests go to. */
  tenants: string[];
  /** Values by parameter name (client_id, redirect_uri, token, ...). */
  values: Record<string, string[]>;
  /** Valid Authorization header values (Basic of real clients, Bearer of a live token). */
  authorizations: string[];
  /** Cookie pairs of a signed-in browser (`name=value`). */
  cookies: string[];
  origins: string[];
}

const METHODS = ['GET', 'POST', 'HEAD', 'OPTIONS', 'PUT', 'DELETE', 'PATCH'];

/** Text with what breaks parsers: NUL, controls, quotes, lone surrogates, long runs. */
const nasty = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.constantFrom('', ' ', '\u0000', '%', '%00', '%zz', '%C3%28', '%ED%A0%80', '+', '&', '=', '==', ';', '"', "'", '<script>', '\r\n', 'ü', '\uD800', '..', '../..', '\\', 'null', '{}', '[]', '0', '-1', '1e309', 'NaN'),
  fc.constantFrom(...PROTOTYPE_NAMES),
  fc.nat({ max: 3_000 }).map((n) => 'A'.repeat(n)),
);

/** Now and then, beyond what the server takes (URL, header or body limits). */
const huge = fc.constantFrom(9_000, 17_000, 70_000).map((n) => 'A'.repeat(n));

/** `arb` one time in `oneIn`, else nothing: a request that fails its first check tells little about the rest. */
const often = <T>(oneIn: number, arb: fc.Arbitrary<T>) => fc.oneof({ weight: oneIn - 1, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: arb });

function valueFor(known: Known, name: string): fc.Arbitrary<string> {
  const good = Object.hasOwn(known.values, name) ? known.values[name] : [];
  const bad = fc.oneof({ weight: 30, arbitrary: nasty }, { weight: 1, arbitrary: huge });
  return good.length ? fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...good) }, { weight: 1, arbitrary: bad }) : bad;
}

/** Parameter pairs: documented names (with fitting values), prototype names, others; some repeated. */
function pairs(known: Known, names: string[]): fc.Arbitrary<Array<[string, string]>> {
  const name = fc.oneof(
    { weight: 6, arbitrary: names.length ? fc.constantFrom(...names) : fc.constant('x') },
    { weight: 2, arbitrary: fc.constantFrom(...PROTOTYPE_NAMES) },
    { weight: 1, arbitrary: nasty },
  );
  const pair = name.chain((n) => valueFor(known, n).map((v): [string, string] => [n, v]));
  // Often a full set of the documented parameters, so that requests reach past the first check.
  const full = fc.tuple(...names.map((n) => fc.option(valueFor(known, n), { freq: 4 }))).map((vs) => vs.flatMap((v, i): Array<[string, string]> => (v === null ? [] : [[names[i], v]])));
  const more = fc.oneof({ weight: 3, arbitrary: fc.constant([]) }, { weight: 1, arbitrary: fc.array(pair, { minLength: 1, maxLength: 6 }) });
  return fc.tuple(names.length ? full : fc.constant([]), more).map(([a, b]) => [...a, ...b]);
}

/** application/x-www-form-urlencoded text, well encoded or not. */
function encodeForm(list: Array<[string, string]>, style: number): Buffer {
  const enc = (s: string) => {
    try {
      return encodeURIComponent(s);
    } catch {
      return s; // a lone surrogate: sent raw
    }
  };
  switch (style) {
    case 0: // well formed
      return Buffer.from(list.map(([n, v]) => `${enc(n)}=${enc(v)}`).join('&'));
    case 1: // raw, unescaped
      return Buffer.from(list.map(([n, v]) => `${n}=${v}`).join('&'));
    case 2: // raw, latin1 bytes (not UTF-8 beyond ASCII)
      return Buffer.from(list.map(([n, v]) => `${n}=${v}`).join('&'), 'latin1');
    case 3: // every pair twice
      return Buffer.from([...list, ...list].map(([n, v]) => `${enc(n)}=${enc(v)}`).join('&'));
    default: // names without values, empty pairs, stray separators
      return Buffer.from(`&&${list.map(([n]) => enc(n)).join('&')}&=&`);
  }
}

const contentTypes = fc.constantFrom(
  'application/x-www-form-urlencoded',
  'application/x-www-form-urlencoded; charset=utf-8',
  'application/x-www-form-urlencoded; charset=ISO-8859-1',
  'APPLICATION/X-WWW-FORM-URLENCODED',
  'application/x-www-form-urlencoded;charset="utf-8"',
  'application/json',
  'application/json; charset=utf-8',
  'text/plain',
  'multipart/form-data; boundary=xyz',
  'application/jwt',
  'application/octet-stream',
  '',
  ';',
  'application/x-www-form-urlencoded, application/json',
  '*/*',
  '\u00ff/\u00fe',
);

type Body = { type?: string; bytes: Buffer };

/** How a form or query is encoded (see encodeForm): mostly well. */
const style = fc.oneof({ weight: 10, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.nat({ max: 4 }) });

function body(known: Known, names: string[]): fc.Arbitrary<Body> {
  const form = fc.tuple(pairs(known, names), style, often(6, contentTypes)).map(([list, st, type]): Body => ({ type: type ?? 'application/x-www-form-urlencoded', bytes: encodeForm(list, st) }));
  const json = fc
    .tuple(pairs(known, names), often(3, contentTypes), fc.boolean())
    .map(([list, type, proto]): Body => ({ type: type ?? 'application/json', bytes: Buffer.from(proto ? `{"__proto__":{"polluted":1},${JSON.stringify(Object.fromEntries(list)).slice(1)}` : JSON.stringify(Object.fromEntries(list))) }));
  const junk = fc.tuple(fc.uint8Array({ maxLength: 200 }), often(2, contentTypes)).map(([b, type]): Body => ({ type: type ?? undefined, bytes: Buffer.from(b) }));
  const big = fc.tuple(fc.constantFrom(60_000, 64 * 1024, 64 * 1024 + 1, 200_000), contentTypes).map(([n, type]): Body => ({ type, bytes: Buffer.alloc(n, 'a=b&') }));
  return fc.oneof({ weight: 12, arbitrary: form }, { weight: 2, arbitrary: json }, { weight: 2, arbitrary: junk }, { weight: 1, arbitrary: big }, { weight: 2, arbitrary: fc.constant<Body>({ bytes: Buffer.alloc(0) }) });
}

function pathOf(known: Known, url: string): fc.Arbitrary<string> {
  const segments = url.split('/').map((s) => {
    if (!s.startsWith(':')) return fc.constant(s);
    const wild = fc.oneof(fc.constantFrom(...PROTOTYPE_NAMES), fc.constantFrom('%00', '%zz', '%C3%28', '..', 'A'.repeat(300), '%2F', 'x%20y'), fc.stringMatching(/^[a-z0-9-]{1,12}$/));
    return s === ':tenant' ? fc.oneof({ weight: 12, arbitrary: fc.constant(known.tenants[0]) }, { weight: 2, arbitrary: fc.constantFrom(...known.tenants) }, { weight: 1, arbitrary: wild }) : wild;
  });
  const suffix = fc.oneof({ weight: 12, arbitrary: fc.constant('') }, { weight: 1, arbitrary: fc.constantFrom('/', '//', '/..', '/%2e%2e') });
  return fc.tuple(...segments, suffix).map((parts) => parts.slice(0, -1).join('/') + parts[parts.length - 1]);
}

function authorization(known: Known): fc.Arbitrary<string> {
  const b64 = (s: string | Buffer) => Buffer.from(s).toString('base64');
  return fc.oneof(
    { weight: 10, arbitrary: fc.constantFrom(...known.authorizations) },
    { weight: 3, arbitrary: fc.tuple(fc.constantFrom('Basic', 'basic', 'BASIC', 'Bearer', 'bearer', 'DPoP', 'Digest', ''), fc.constantFrom(' ', '  ', '\t', ''), nasty).map(([s, sp, v]) => `${s}${sp}${v}`) },
    { weight: 2, arbitrary: fc.tuple(nasty, nasty).map(([id, secret]) => `Basic ${b64(`${id}:${secret}`)}`) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...PROTOTYPE_NAMES), nasty).map(([id, secret]) => `Basic ${b64(`${encodeURIComponent(id)}:${secret}`)}`) },
    { weight: 1, arbitrary: fc.constantFrom(`Basic ${b64(Buffer.from([0xff, 0xfe, 0x3a, 0x80]))}`, `Basic ${b64('%zz:%C3%28')}`, `Basic ${b64('no-colon')}`, 'Basic ====', 'Basic !!!') },
  );
}

function cookie(known: Known): fc.Arbitrary<string> {
  const pair = fc.oneof(
    { weight: 3, arbitrary: known.cookies.length ? fc.constantFrom(...known.cookies) : fc.constant('a=b') },
    { weight: 2, arbitrary: fc.tuple(fc.constantFrom(...PROTOTYPE_NAMES, 'sid', '__Host-sid', 'device', ''), fc.string({ maxLength: 30 })).map(([n, v]) => `${n}=${v}`) },
    { weight: 1, arbitrary: nasty },
  );
  return fc.array(pair, { maxLength: 6 }).map((list) => list.join('; '));
}

/** Header values are written as latin1: a char beyond U+00FF is replaced rather than split into bytes. */
function latin1(s: string): string {
  return s.replace(/[^\u0000-\u00ff]/g, '?');
}

/** Optional headers, now and then doubled, and the Host to send (or none, or two). */
function headers(known: Known): fc.Arbitrary<Array<[string, string]>> {
  const optional = fc.record({
    authorization: often(2, fc.oneof({ weight: 8, arbitrary: authorization(known).map((a) => [a]) }, { weight: 1, arbitrary: fc.tuple(authorization(known), authorization(known)) })),
    cookie: often(2, fc.oneof({ weight: 8, arbitrary: cookie(known).map((c) => [c]) }, { weight: 1, arbitrary: fc.tuple(cookie(known), cookie(known)) })),
    origin: often(4, fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...known.origins) }, { weight: 1, arbitrary: nasty })),
    contentEncoding: often(20, fc.constantFrom('gzip', 'identity', ' IDENTITY ', 'br, gzip', '')),
    accept: often(4, fc.constantFrom('application/json', 'text/html', '*/*', '', 'application/jwt;q=0')),
    forwarded: often(8, nasty),
    expect: often(20, fc.constantFrom('100-continue', 'x-weird')),
    extra: often(4, fc.tuple(fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,20}$/), fc.oneof({ weight: 20, arbitrary: nasty }, { weight: 1, arbitrary: huge }))),
    // Never more than the body holds: the server would rightly wait for the rest.
    contentLength: often(20, fc.constantFrom('0', '-1', '1e3', ' 0', '0, 0', '1, 2', '0x0')),
  });
  const host = fc.oneof({ weight: 30, arbitrary: fc.constant([known.host]) }, { weight: 1, arbitrary: fc.constant([]) }, { weight: 1, arbitrary: fc.constant([known.host, known.host]) }, { weight: 1, arbitrary: nasty.map((h) => [h]) });
  const controls = fc.oneof({ weight: 25, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) });
  return fc.tuple(host, optional, controls).map(([hosts, o, keepControls]) => {
    const out: Array<[string, string]> = hosts.map((h) => ['Host', h]);
    for (const a of o.authorization ?? []) out.push(['Authorization', a]);
    for (const c of o.cookie ?? []) out.push(['Cookie', c]);
    if (o.origin !== undefined) out.push(['Origin', o.origin]);
    if (o.contentEncoding !== undefined) out.push(['Content-Encoding', o.contentEncoding]);
    if (o.accept !== undefined) out.push(['Accept', o.accept]);
    if (o.forwarded !== undefined) out.push(['X-Forwarded-For', o.forwarded]);
    if (o.expect !== undefined) out.push(['Expect', o.expect]);
    if (o.extra !== undefined) out.push(o.extra);
    if (o.contentLength !== undefined) out.push(['Content-Length', o.contentLength]);
    // Node refuses control characters in a header value before any handler: sent now and then.
    // eslint-disable-next-line no-control-regex
    return out.map(([n, v]): [string, string] => [n, keepControls ? latin1(v) : latin1(v).replace(/[\u0000-\u0008\u000a-\u001f\u007f]/g, '')]);
  });
}

/** One request to `route`: mostly one of its methods, sometimes another. */
export function requestTo(known: Known, route: FuzzRoute): fc.Arbitrary<RawRequest> {
  const method = fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...route.methods) }, { weight: 1, arbitrary: fc.constantFrom(...METHODS) });
  // A POST route reads its body; parameters in its query are mostly refused there.
  const posts = !route.methods.includes('GET');
  const query = fc.oneof(
    { weight: posts ? 1 : 6, arbitrary: fc.tuple(pairs(known, route.params), style).map(([list, st]) => encodeForm(list, st).toString('latin1')) },
    { weight: posts ? 6 : 1, arbitrary: fc.constant('') },
  );
  return fc
    .record({ method, path: pathOf(known, route.url), query, headers: headers(known), body: body(known, route.params), shortBy: often(30, fc.integer({ min: 1, max: 20 })).map((n) => n ?? 0) })
    .map(({ method, path, query, headers, body, shortBy }) => {
      // The request line goes out as latin1: a char beyond U+00FF is replaced (bytes up to 0xFF stay).
      const target = `${path}${query ? `?${query}` : ''}`.replace(/[^\u0000-\u00ff]/g, '?');
      const withBody = method !== 'GET' && method !== 'HEAD' ? body : { bytes: Buffer.alloc(0) };
      const all: Array<[string, string]> = withBody.type !== undefined ? [...headers, ['Content-Type', latin1(withBody.type)]] : headers;
      return { method, target, headers: all, body: withBody.bytes, shortBy: Math.min(shortBy, withBody.bytes.length) };
    });
}

/** A request to any route of the table. */
export function anyRequest(known: Known, table: FuzzRoute[]): fc.Arbitrary<RawRequest> {
  // Built once per route (building one costs more than drawing from it).
  return fc.oneof(...table.map((route) => requestTo(known, route)));
}
