/**
 * Contract checks against the OpenAPI 3.1 documents in openapi/.
 *
 * Each endpoint group has one document (openapi/<group>.yaml) whose paths are relative to the
 * tenant issuer `{PUBLIC_URL}/{tenant}`. A document is parsed once, every `$ref` (local or into
 * openapi/components/*) is inlined, and the result is cached, so all functions here are
 * synchronous.
 *
 *   expectResponseMatches('token', 'POST', '/token', { status: res.status, headers: res.headers, body: await res.json() });
 *
 * throws an Error listing every way the response departs from the document.
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';

/** The endpoint groups, one document each. */
export const OPENAPI_GROUPS = ['authorize', 'par', 'device', 'token', 'introspect', 'revoke', 'userinfo', 'logout', 'jwks', 'metadata', 'edge', 'central', 'events', 'ssf'] as const;
export type OpenApiGroup = (typeof OPENAPI_GROUPS)[number];

/** Directory holding the documents. */
export const OPENAPI_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'openapi');

/** Response headers as a fetch `Headers`, or a plain object (node / light-my-request / supertest style). */
export type HeadersLike = Headers | Record<string, string | string[] | number | undefined>;

export interface ResponseLike {
  status: number;
  headers: HeadersLike;
  /** Parsed JSON, or the raw text; `undefined`, `null` or `''` for an empty body. */
  body?: unknown;
}

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export interface MatchedOperation {
  group: string;
  method: string;
  /** The path template as written in the document, e.g. '/token'. */
  pathTemplate: string;
  operation: JsonObject;
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** A body that the response may omit although it declares content (e.g. a 401 without a token). */
const BODY_OPTIONAL = 'x-body-optional';

const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
// ajv-formats is CommonJS: under ESM its default import is module.exports, whose .default is the plugin.
ajvFormats.default(ajv);

const rawFiles = new Map<string, Json>();
const documents = new Map<string, JsonObject>();
const validators = new WeakMap<object, ValidateFunction>();

function readYaml(file: string): Json {
  let doc = rawFiles.get(file);
  if (doc === undefined) {
    doc = parseYaml(readFileSync(file, 'utf8')) as Json;
    rawFiles.set(file, doc);
  }
  return doc;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function resolvePointer(doc: Json, pointer: string, where: string): Json {
  if (pointer === '' || pointer === '/') return doc;
  if (!pointer.startsWith('/')) throw new Error(`Unsupported $ref fragment "#${pointer}" in ${where}`);
  let node: Json = doc;
  for (const raw of pointer.slice(1).split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(node) && /^\d+$/.test(key) && Number(key) < node.length) node = node[Number(key)];
    else if (isObject(node) && Object.prototype.hasOwnProperty.call(node, key)) node = node[key];
    else throw new Error(`Unresolved $ref "#${pointer}" in ${where}`);
  }
  return node;
}

/**
 * Returns a copy of `node` with every `$ref` replaced by its target. Siblings of a `$ref` that are
 * only `summary`/`description` override the target's (OpenAPI 3.1 Reference Object); any other
 * siblings (JSON Schema 2020-12 semantics) keep both: `{ ...siblings, allOf: [target] }`.
 */
function dereference(node: Json, file: string, stack: string[]): Json {
  if (Array.isArray(node)) return node.map((item) => dereference(item, file, stack));
  if (!isObject(node)) return node;
  const ref = node.$ref;
  if (typeof ref === 'string') {
    const hash = ref.indexOf('#');
    const filePart = hash === -1 ? ref : ref.slice(0, hash);
    const pointer = hash === -1 ? '' : ref.slice(hash + 1);
    const targetFile = filePart === '' ? file : path.resolve(path.dirname(file), filePart);
    const key = `${targetFile}#${pointer}`;
    if (stack.includes(key)) throw new Error(`Circular $ref "${ref}" in ${file} (not supported by this resolver)`);
    const target = dereference(resolvePointer(readYaml(targetFile), pointer, `${file} -> ${ref}`), targetFile, [...stack, key]);
    const siblings = Object.entries(node).filter(([k]) => k !== '$ref');
    if (siblings.length === 0) return target;
    const resolvedSiblings = Object.fromEntries(siblings.map(([k, v]) => [k, dereference(v, file, stack)]));
    if (siblings.every(([k]) => k === 'summary' || k === 'description') && isObject(target)) return { ...target, ...resolvedSiblings };
    return { ...resolvedSiblings, allOf: [target] };
  }
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(node)) out[k] = dereference(v, file, stack);
  return out;
}

/** The document of `group` (e.g. 'token'), with every `$ref` inlined. Cached. */
export function loadOpenApi(group: OpenApiGroup | (string & {})): JsonObject {
  let doc = documents.get(group);
  if (!doc) {
    if (!/^[a-z0-9-]+$/.test(group)) throw new Error(`Invalid OpenAPI group name "${group}"`);
    const file = path.join(OPENAPI_DIR, `${group}.yaml`);
    const resolved = dereference(readYaml(file), file, []);
    if (!isObject(resolved) || typeof resolved.openapi !== 'string') throw new Error(`${file} is not an OpenAPI document`);
    doc = resolved;
    documents.set(group, doc);
  }
  return doc;
}

function templateToRegExp(template: string): RegExp {
  const source = template
    .split(/(\{[^}]+\})/)
    .map((part) => (/^\{[^}]+\}$/.test(part) ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}$`);
}

/** Finds the operation for `method` and a tenant-relative `path` (query string ignored). Throws when absent. */
export function findOperation(group: OpenApiGroup | (string & {}), method: string, requestPath: string): MatchedOperation {
  const doc = loadOpenApi(group);
  const paths = isObject(doc.paths) ? doc.paths : {};
  const wanted = requestPath.replace(/[?#].*$/, '') || '/';
  const templates = Object.keys(paths);
  const pathTemplate =
    templates.find((t) => t === wanted) ?? templates.find((t) => t.includes('{') && templateToRegExp(t).test(wanted));
  if (pathTemplate === undefined) {
    throw new Error(`openapi/${group}.yaml has no path matching "${wanted}" (paths: ${templates.join(', ')})`);
  }
  const item = paths[pathTemplate];
  const m = method.toLowerCase();
  const operation = isObject(item) && HTTP_METHODS.includes(m) ? item[m] : undefined;
  if (!isObject(operation)) {
    const declared = isObject(item) ? Object.keys(item).filter((k) => HTTP_METHODS.includes(k)) : [];
    throw new Error(`openapi/${group}.yaml has no ${method.toUpperCase()} ${pathTemplate} (methods: ${declared.join(', ').toUpperCase()})`);
  }
  return { group, method: m, pathTemplate, operation };
}

function headerMap(headers: HeadersLike): Map<string, string> {
  const out = new Map<string, string>();
  if (typeof (headers as Headers).forEach === 'function' && typeof (headers as Headers).get === 'function') {
    (headers as Headers).forEach((value, name) => out.set(name.toLowerCase(), value));
    return out;
  }
  for (const [name, value] of Object.entries(headers as Record<string, string | string[] | number | undefined>)) {
    if (value === undefined) continue;
    out.set(name.toLowerCase(), Array.isArray(value) ? value.join(', ') : String(value));
  }
  return out;
}

function mediaTypeOf(value: string): string {
  return value.split(';')[0].trim().toLowerCase();
}

function mediaTypeMatches(declared: string, actual: string): boolean {
  const d = mediaTypeOf(declared);
  if (d === '*/*' || d === actual) return true;
  if (d.endsWith('/*')) return actual.startsWith(d.slice(0, -1));
  return false;
}

function isJsonMediaType(mediaType: string): boolean {
  return mediaType === 'application/json' || mediaType.endsWith('+json');
}

function isEmptyBody(body: unknown): boolean {
  if (body === undefined || body === null || body === '') return true;
  return body instanceof Uint8Array && body.byteLength === 0;
}

function validatorFor(schema: object): ValidateFunction {
  let validate = validators.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    validators.set(schema, validate);
  }
  return validate;
}

function describeErrors(errors: ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).map((e) => {
    const where = e.instancePath === '' ? '(root)' : e.instancePath;
    const extra = e.keyword === 'additionalProperties' ? ` "${(e.params as { additionalProperty: string }).additionalProperty}"` : '';
    const allowed = e.keyword === 'enum' ? ` ${JSON.stringify((e.params as { allowedValues: unknown }).allowedValues)}` : '';
    return `${where} ${e.message ?? e.keyword}${extra}${allowed}`;
  });
}

function coerceHeader(value: string, schema: JsonObject): unknown {
  const type = schema.type;
  if ((type === 'integer' || type === 'number') && value.trim() !== '' && !Number.isNaN(Number(value))) return Number(value);
  if (type === 'boolean' && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}

function selectResponse(responses: JsonObject, status: number): { key: string; response: JsonObject } | undefined {
  const candidates = [String(status), `${Math.floor(status / 100)}XX`, `${Math.floor(status / 100)}xx`, 'default'];
  for (const key of candidates) {
    const response = responses[key];
    if (isObject(response)) return { key, response };
  }
  return undefined;
}

/**
 * Checks `res` against the response the document declares for `method` `path` and its status
 * (exact code, then `4XX`-style range, then `default`). Returns the problems found; empty when
 * the response matches. Throws only when the group, path or method is not in the document.
 *
 * Checked: the status is declared; declared `required` headers are present, and every declared
 * header that is present matches its schema; when content is declared, a body is present
 * (unless the response has `x-body-optional: true`), its Content-Type matches a declared media
 * type, and it validates against that media type's schema (JSON bodies given as text are
 * parsed); when no content is declared, the body is empty.
 */
export function validateResponse(group: OpenApiGroup | (string & {}), method: string, requestPath: string, res: ResponseLike): string[] {
  const { operation } = findOperation(group, method, requestPath);
  const responses = isObject(operation.responses) ? operation.responses : {};
  const selected = selectResponse(responses, res.status);
  if (!selected) return [`status ${res.status} is not declared (declared: ${Object.keys(responses).join(', ')})`];
  const { key, response } = selected;
  const problems: string[] = [];
  const headers = headerMap(res.headers);

  const declaredHeaders = isObject(response.headers) ? response.headers : {};
  for (const [name, header] of Object.entries(declaredHeaders)) {
    const lower = name.toLowerCase();
    if (lower === 'content-type' || !isObject(header)) continue;
    const value = headers.get(lower);
    if (value === undefined) {
      if (header.required === true) problems.push(`required header ${name} is missing`);
      continue;
    }
    if (isObject(header.schema)) {
      const validate = validatorFor(header.schema);
      if (!validate(coerceHeader(value, header.schema))) {
        problems.push(...describeErrors(validate.errors).map((e) => `header ${name}: ${JSON.stringify(value)}: ${e}`));
      }
    }
  }

  const content = isObject(response.content) ? response.content : {};
  const mediaTypes = Object.keys(content);
  const contentType = headers.get('content-type');
  if (mediaTypes.length === 0) {
    if (!isEmptyBody(res.body)) problems.push(`response ${key} declares no content but a body was received`);
    return problems;
  }
  if (isEmptyBody(res.body)) {
    if (response[BODY_OPTIONAL] !== true) problems.push(`response ${key} declares content (${mediaTypes.join(', ')}) but the body is empty`);
    return problems;
  }
  if (contentType === undefined) {
    problems.push(`Content-Type header is missing (declared: ${mediaTypes.join(', ')})`);
    return problems;
  }
  const actual = mediaTypeOf(contentType);
  const matched = mediaTypes.find((m) => mediaTypeOf(m) === actual) ?? mediaTypes.find((m) => mediaTypeMatches(m, actual));
  if (matched === undefined) {
    problems.push(`Content-Type ${contentType} does not match the declared ${mediaTypes.join(', ')}`);
    return problems;
  }
  const media = content[matched];
  let body: unknown = res.body instanceof Uint8Array ? Buffer.from(res.body).toString('utf8') : res.body;
  if (isJsonMediaType(actual) && typeof body === 'string') {
    const text = body;
    try {
      body = JSON.parse(text);
    } catch {
      problems.push(`body is not valid JSON: ${text.slice(0, 200)}`);
      return problems;
    }
  } else if (!isJsonMediaType(actual) && typeof body !== 'string') {
    problems.push(`a ${actual} body must be given as text, got ${typeof body}`);
    return problems;
  }
  if (isObject(media) && (isObject(media.schema) || typeof media.schema === 'boolean')) {
    const validate = validatorFor(isObject(media.schema) ? media.schema : media.schema ? {} : { not: {} });
    if (!validate(body)) problems.push(...describeErrors(validate.errors).map((e) => `body ${e}`));
  }
  return problems;
}

/**
 * Throws an Error listing every problem `validateResponse` finds; returns nothing when the
 * response matches openapi/<group>.yaml. `path` is relative to the tenant issuer, e.g. '/token'.
 */
export function expectResponseMatches(group: OpenApiGroup | (string & {}), method: string, requestPath: string, res: ResponseLike): void {
  const problems = validateResponse(group, method, requestPath, res);
  if (problems.length === 0) return;
  const shown = typeof res.body === 'string' ? res.body.slice(0, 500) : JSON.stringify(res.body)?.slice(0, 500);
  throw new Error(
    `${method.toUpperCase()} ${requestPath} -> ${res.status} does not match openapi/${group}.yaml:\n` +
      problems.map((p) => `  - ${p}`).join('\n') +
      `\n  body: ${shown}`,
  );
}
