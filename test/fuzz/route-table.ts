/**
 * What the fuzzer covers: every route the server registered, each with the parameter names its
 * OpenAPI operations name (query, headers, form fields), read from every openapi/*.yaml. A route
 * added later is fuzzed without a change here; one without an OpenAPI operation is reported.
 */
import { readdirSync } from 'node:fs';
import { loadOpenApi, OPENAPI_DIR, type Json, type JsonObject } from '../support/openapi.js';

export interface FuzzRoute {
  /** As registered, e.g. `/:tenant/token`. */
  url: string;
  methods: string[];
  /** Parameter names of its documented operations (query and form body). */
  params: string[];
}

export interface Documented {
  /** `/:tenant`-relative path template of each operation, e.g. `/token`, and its methods (upper case). */
  operations: Map<string, Set<string>>;
  params: Map<string, Set<string>>;
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'];

function isObject(v: Json | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Every operation of every document in openapi/ (each file is one group; components are not). */
export function documented(): Documented {
  const operations = new Map<string, Set<string>>();
  const params = new Map<string, Set<string>>();
  for (const file of readdirSync(OPENAPI_DIR).filter((f) => f.endsWith('.yaml'))) {
    const doc = loadOpenApi(file.replace(/\.yaml$/, ''));
    for (const [path, item] of Object.entries(isObject(doc.paths) ? doc.paths : {})) {
      if (!isObject(item)) continue;
      const methods = operations.get(path) ?? new Set<string>();
      const names = params.get(path) ?? new Set<string>();
      operations.set(path, methods);
      params.set(path, names);
      for (const m of HTTP_METHODS) {
        const op = item[m];
        if (!isObject(op)) continue;
        methods.add(m.toUpperCase());
        for (const p of [...(Array.isArray(item.parameters) ? item.parameters : []), ...(Array.isArray(op.parameters) ? op.parameters : [])]) {
          if (isObject(p) && typeof p.name === 'string' && p.in === 'query') names.add(p.name);
        }
        const content = isObject(op.requestBody) && isObject(op.requestBody.content) ? op.requestBody.content : {};
        for (const media of Object.values(content)) collectProperties(isObject(media) ? media.schema : undefined, names);
      }
    }
  }
  return { operations, params };
}

/** Property names of a schema, through allOf / oneOf / anyOf. */
function collectProperties(schema: Json | undefined, into: Set<string>): void {
  if (!isObject(schema)) return;
  if (isObject(schema.properties)) for (const k of Object.keys(schema.properties)) into.add(k);
  for (const key of ['allOf', 'oneOf', 'anyOf']) {
    const list = schema[key];
    if (Array.isArray(list)) for (const s of list) collectProperties(s, into);
  }
}

/** The OpenAPI path of a registered route: tenant-relative, `{name}` for `:name`. */
export function documentedPath(url: string): string {
  // A trailing wildcard (the edge's proxy) is the path parameter `{path}` in the documents.
  return url.replace(/^\/:tenant(?=\/)/, '').replace(/:([A-Za-z_]+)/g, '{$1}').replace(/\/\*$/, '/{path}');
}

/** The fuzz table: every registered route, with the parameter names its documentation gives. */
export function fuzzTable(registered: Array<{ url: string; methods: string[] }>, docs: Documented): FuzzRoute[] {
  return registered.map(({ url, methods }) => ({ url, methods, params: [...(docs.params.get(documentedPath(url)) ?? [])].sort() }));
}
