/**
 * Deployment files: docker-compose.yml must be a valid Compose file that wires the server
 * to EventStoreDB and MongoDB, and the Dockerfile must build on a Node version that
 * package.json "engines" allows.
 *
 * Schema provenance: the Compose Specification JSON schema (`compose_spec.json`, from the
 * compose-spec project) as shipped in the npm package `docker-compose` (PDMLab), file
 * `schema/compose-spec.json`. That package is installed as a dependency of
 * `testcontainers`; it is resolved from the project root first, then from testcontainers.
 */
import { Ajv, type ErrorObject } from 'ajv';
import ajvFormats from 'ajv-formats';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));

function composeSchemaPath(): string {
  const attempts: Array<() => string> = [
    () => require.resolve('docker-compose/schema/compose-spec.json'),
    () => require.resolve('docker-compose/schema/compose-spec.json', { paths: [dirname(require.resolve('testcontainers/package.json'))] }),
  ];
  for (const attempt of attempts) {
    try {
      return attempt();
    } catch {
      // try the next location
    }
  }
  throw new Error('the Compose Specification schema was not found: install the npm package docker-compose');
}

function loadComposeSchema(): Record<string, unknown> {
  const { $schema, ...schema } = JSON.parse(readFileSync(composeSchemaPath(), 'utf8')) as Record<string, unknown>;
  // The schema declares draft-07 (as https://json-schema.org/draft-07/schema), which is
  // Ajv's default dialect; the declaration itself is dropped because Ajv only knows the
  // meta-schema by its http://...# id.
  if (typeof $schema !== 'string' || !$schema.includes('draft-07')) {
    throw new Error(`unexpected dialect for the Compose schema: ${String($schema)}`);
  }
  return schema;
}

function compileComposeValidator() {
  // Strict mode stays on (unknown keywords are errors) except for strictTypes, which the
  // upstream schema does not satisfy (e.g. `additionalProperties` in a `oneOf` branch
  // without `type: object`).
  const ajv = new Ajv({ allErrors: true, strict: true, strictTypes: false });
  // ajv-formats is CommonJS: imported from an ES module, its plugin is the `default` property.
  ajvFormats.default(ajv);
  return ajv.compile(loadComposeSchema());
}

function describeErrors(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`).join('\n');
}

type Dict = Record<string, any>;

/** `environment` as a map, whether written as a map or as a list of KEY=VALUE. */
function environmentOf(service: Dict): Record<string, string> {
  const env = service.environment ?? {};
  if (Array.isArray(env)) {
    return Object.fromEntries(
      env.map((entry: string) => {
        const i = entry.indexOf('=');
        return i < 0 ? [entry, ''] : [entry.slice(0, i), entry.slice(i + 1)];
      }),
    );
  }
  return Object.fromEntries(Object.entries(env as Dict).map(([k, v]) => [k, v === null ? '' : String(v)]));
}

function healthcheckText(service: Dict): string {
  const test = service.healthcheck?.test;
  return Array.isArray(test) ? test.join(' ') : String(test ?? '');
}

describe('docker-compose.yml', () => {
  const text = readFileSync(join(root, 'docker-compose.yml'), 'utf8');
  const compose = parse(text) as Dict;
  const validate = compileComposeValidator();

  it('is valid against the Compose Specification schema', () => {
    const ok = validate(compose);
    expect(describeErrors(validate.errors)).toBe('');
    expect(ok).toBe(true);
  });

  it('is checked by a validator that does reject invalid files', () => {
    const broken = structuredClone(compose);
    broken.services.server.depends_on.mongo.condition = 'service_ready';
    broken.services.server.dependson = {};
    expect(validate(broken)).toBe(false);
    const paths = (validate.errors ?? []).map((e) => e.instancePath);
    expect(paths).toEqual(expect.arrayContaining(['/services/server', '/services/server/depends_on/mongo/condition']));
  });

  it('runs EventStoreDB 24.10 insecure on port 2113 with a healthcheck', () => {
    const es = compose.services.eventstore;
    expect(es.image).toBe('eventstore/eventstore:24.10');
    expect(environmentOf(es).EVENTSTORE_INSECURE).toBe('true');
    expect(es.ports).toEqual(expect.arrayContaining([expect.stringMatching(/:2113:2113$|^2113:2113$/)]));
    expect(healthcheckText(es)).toContain('2113/health/live');
  });

  it('runs mongo:7 as the single-node replica set rs0, initiated by its healthcheck', () => {
    const mongo = compose.services.mongo;
    expect(mongo.image).toBe('mongo:7');
    const command: string[] = Array.isArray(mongo.command) ? mongo.command : String(mongo.command).split(/\s+/);
    expect(command[command.indexOf('--replSet') + 1]).toBe('rs0');
    const check = healthcheckText(mongo);
    expect(check).toContain('mongosh');
    expect(check).toMatch(/rs\.initiate\(\{\s*_id:\s*'rs0',\s*members:\s*\[\{\s*_id:\s*0,\s*host:\s*'mongo:27017'\s*\}\]\s*\}\)/);
  });

  describe('server', () => {
    const server = compose.services.server as Dict;
    const env = environmentOf(server);

    it('is built from this directory and published on 8080', () => {
      const build = typeof server.build === 'string' ? { context: server.build } : server.build;
      expect(build.context).toBe('.');
      expect(String(env.PORT ?? '8080')).toBe('8080');
      expect(server.ports).toEqual(expect.arrayContaining([expect.stringMatching(/:8080$/)]));
    });

    it('uses EventStoreDB through EVENTSTORE_URL', () => {
      const url = new URL(env.EVENTSTORE_URL);
      expect(url.protocol).toBe('esdb:');
      expect(url.hostname).toBe('eventstore');
      expect(url.port).toBe('2113');
      expect(url.searchParams.get('tls')).toBe('false');
      expect(compose.services[url.hostname]).toBeDefined();
    });

    it('uses MongoDB through MONGODB_URL, on the replica set', () => {
      const url = new URL(env.MONGODB_URL);
      expect(url.protocol).toBe('mongodb:');
      expect(url.hostname).toBe('mongo');
      expect(url.port).toBe('27017');
      expect(url.pathname).toBe('/authserver');
      expect(url.searchParams.get('replicaSet')).toBe('rs0');
      expect(compose.services[url.hostname]).toBeDefined();
    });

    it('starts only once both stores are healthy', () => {
      for (const dependency of ['eventstore', 'mongo']) {
        expect(server.depends_on?.[dependency]?.condition).toBe('service_healthy');
        expect(compose.services[dependency].healthcheck?.test).toBeDefined();
        expect(compose.services[dependency].healthcheck?.disable).not.toBe(true);
      }
    });

    it('takes KEY_ENCRYPTION_KEY and PUBLIC_URL from the environment, with no key written in the file', () => {
      expect(env.KEY_ENCRYPTION_KEY).toMatch(/^\$\{KEY_ENCRYPTION_KEY:\?[^}]+\}$/);
      expect(env.PUBLIC_URL).toMatch(/^\$\{PUBLIC_URL:-http:\/\/localhost:8080\}$/);
    });
  });
});

// ---------------------------------------------------------------------------- Dockerfile

/** A version with open components: 24 stands for every 24.x.y (upper bound 24.∞.∞). */
type Version = [number, number, number];

function compare(a: Version, b: Version): number {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  return 0;
}

/** The lowest and highest version a partial version (`24`, `24.11`, `24.11.1`) stands for. */
function span(partial: string): { low: Version; high: Version } {
  const m = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(partial);
  if (!m) throw new Error(`not a version: ${partial}`);
  const parts = [m[1], m[2], m[3]].map((p) => (p === undefined ? undefined : Number(p)));
  return {
    low: parts.map((p) => p ?? 0) as Version,
    high: parts.map((p) => p ?? Infinity) as Version,
  };
}

/**
 * Whether `version` satisfies a range made of comparator sets joined by `||`, each a
 * space-separated list of `>=`, `>`, `<=`, `<`, `=` comparators (the forms `engines` uses
 * here). Any other syntax is rejected, so the check never passes by misreading.
 */
function comparatorSets(range: string): Array<Array<(v: Version) => boolean>> {
  return range.split('||').map((set) =>
    set
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map((comparator) => {
        const m = /^(>=|<=|>|<|=)?\s*(v?\d+(?:\.\d+){0,2})$/.exec(comparator);
        if (!m) throw new Error(`unsupported comparator in engines range: ${comparator}`);
        const { low, high } = span(m[2]);
        switch (m[1] ?? '=') {
          case '>=':
            return (v: Version) => compare(v, low) >= 0;
          case '>':
            return (v: Version) => compare(v, high) > 0;
          case '<=':
            return (v: Version) => compare(v, high) <= 0;
          case '<':
            return (v: Version) => compare(v, low) < 0;
          default:
            return (v: Version) => compare(v, low) >= 0 && compare(v, high) <= 0;
        }
      }),
  );
}

/** True when every version the partial version stands for lies within the range. */
function rangeCovers(range: string, partial: string): boolean {
  const { low, high } = span(partial);
  // Each comparator set is an interval, so holding both ends of the span in one set
  // means holding the whole span.
  return comparatorSets(range).some((set) => set.every((ok) => ok(low) && ok(high)));
}

interface Instruction {
  keyword: string;
  args: string;
}

function dockerfileInstructions(text: string): Instruction[] {
  const lines = text.split(/\r?\n/).filter((l) => !/^\s*#/.test(l));
  const joined = lines.join('\n').replace(/\\\n/g, ' ');
  return joined
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .map((l) => {
      const i = l.search(/\s/);
      return { keyword: l.slice(0, i).toUpperCase(), args: l.slice(i + 1).trim() };
    });
}

describe('engines range check', () => {
  it('reads ranges the way npm does for the forms it accepts', () => {
    expect(rangeCovers('>=20.19.0 <25', '24')).toBe(true);
    expect(rangeCovers('>=20.19.0 <25', '24.11.1')).toBe(true);
    expect(rangeCovers('>=20.19.0 <25', '22')).toBe(true);
    expect(rangeCovers('>=20.19.0 <25', '20')).toBe(false); // 20.0 .. 20.18 are below
    expect(rangeCovers('>=20.19.0 <25', '20.19')).toBe(true);
    expect(rangeCovers('>=20.19.0 <25', '25')).toBe(false);
    expect(rangeCovers('>=20.19.0 <25', '18')).toBe(false);
    expect(rangeCovers('<=24', '24')).toBe(true);
    expect(rangeCovers('>22', '23')).toBe(true);
    expect(rangeCovers('>22', '22.1')).toBe(false);
    expect(rangeCovers('18 || >=22', '22')).toBe(true);
    expect(() => rangeCovers('^22', '22')).toThrow(/unsupported/);
  });
});

describe('Dockerfile', () => {
  const instructions = dockerfileInstructions(readFileSync(join(root, 'Dockerfile'), 'utf8'));
  const froms = instructions.filter((i) => i.keyword === 'FROM').map((i) => i.args.split(/\s+/)[0]);
  const engines = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node;
  const runtimeStart = instructions.map((i) => i.keyword).lastIndexOf('FROM');
  const runtime = instructions.slice(runtimeStart);

  it('builds and runs on official Node images whose version package.json engines allows', () => {
    const nodeImages = froms.filter((image) => /^(docker\.io\/)?(library\/)?node:/.test(image));
    expect(nodeImages.length).toBeGreaterThanOrEqual(2);
    // The runtime stage starts from a Node image too, not from an earlier stage.
    expect(nodeImages).toContain(froms[froms.length - 1]);
    for (const image of nodeImages) {
      const tag = image.split(':')[1].split('@')[0];
      const version = /^(\d+(?:\.\d+){0,2})(?:-|$)/.exec(tag)?.[1];
      if (!version) throw new Error(`the Node image ${image} must name its version in the tag`);
      expect({ image, withinEngines: rangeCovers(engines, version) }).toEqual({ image, withinEngines: true });
    }
  });

  it('runs the compiled server as a non-root user, on port 8080, with /data as a volume', () => {
    const last = (keyword: string) => runtime.filter((i) => i.keyword === keyword).pop()?.args;
    const user = last('USER');
    expect(user).toBeDefined();
    expect(user).not.toMatch(/^(root|0)(:|$)/);
    expect(last('EXPOSE')).toBe('8080');
    expect(JSON.parse(last('CMD') ?? 'null')).toEqual(['node', 'dist/src/main.js']);
    expect(last('VOLUME')).toMatch(/\/data\b/);
    expect(runtime.some((i) => i.keyword === 'ENV' && /\bDATA_DIR=\/data\b/.test(i.args))).toBe(true);
  });
});
