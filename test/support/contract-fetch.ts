import { type OpenApiGroup, validateResponse } from './openapi.js';

const GROUPS: Array<[RegExp, OpenApiGroup]> = [
  [/^\/(authorize|assets\/form-post\.js)$/, 'authorize'],
  [/^\/(oauth\/)?token$/, 'token'],
  [/^\/introspect$/, 'introspect'],
  [/^\/revoke$/, 'revoke'],
  [/^\/par$/, 'par'],
  [/^\/device_authorization$/, 'device'],
  [/^\/(oauth\/)?userinfo$/, 'userinfo'],
  [/^\/(logout|assets\/logout-continue\.js)$/, 'logout'],
  [/^\/(login|consent|register|device|assets\/theme\.css)$/, 'edge'],
  [/^\/permissions\/me$/, 'edge'],
  [/^\/native\/authorize$/, 'edge'],
  // The proxy, where its path is one segment (an OpenAPI path parameter holds no "/").
  [/^\/resources\/[^/]+\/[^/]+$/, 'edge'],
  [/^\/\.well-known\/jwks\.json$/, 'jwks'],
  [/^\/\.well-known\/(openid-configuration|oauth-authorization-server)$/, 'metadata'],
  [/^\/configuration\//, 'central'],
  [/^\/users\/registrations$/, 'central'],
  [/^\/events$/, 'events'],
  [/^\/(\.well-known\/ssf-configuration|ssf\/(stream|status|subjects\/add|subjects\/remove|verify|poll\/[^/]+))$/, 'ssf'],
];

/**
 * A fetch that checks every response of an auth endpoint against its OpenAPI file and keeps
 * what departs from it in `violations` (thrown errors would be swallowed by the client
 * library under test). Paths are taken relative to the tenant (`/<tenant>/...`).
 */
export class ContractFetch {
  readonly violations: string[] = [];
  checked = 0;

  readonly fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const res = await fetch(input, init);
    await this.check(new URL(input instanceof Request ? input.url : input.toString()), (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase(), res.clone());
    return res;
  };

  /** Checks a response obtained elsewhere (e.g. by the test browser). */
  async check(url: URL, method: string, res: Response): Promise<void> {
    // RFC 8414 §3.1 places a path issuer's metadata at /.well-known/oauth-authorization-server/<tenant>.
    // The admin API's root routes (tenants, system settings) are not under a tenant.
    const root = /^\/configuration\/(tenants|system-settings)(\/|$)/.test(url.pathname);
    const rel = /^\/\.well-known\/oauth-authorization-server\/[^/]+$/.test(url.pathname)
      ? '/.well-known/oauth-authorization-server'
      : /^\/\.well-known\/ssf-configuration\/[^/]+$/.test(url.pathname)
        ? '/.well-known/ssf-configuration'
        : root
        ? url.pathname
        : url.pathname.replace(/^\/[^/]+/, '');
    const group = GROUPS.find(([re]) => re.test(rel))?.[1];
    if (!group) return;
    // A stream of Server-Sent Events does not end: its test reads and checks it itself.
    if (/^text\/event-stream/i.test(res.headers.get('content-type') ?? '')) {
      await res.body?.cancel();
      return;
    }
    const text = await res.text();
    let body: unknown = text;
    // JSON and +json bodies are parsed; others (application/x-ndjson too) are checked as text.
    if (/^application\/(?:[^;]*\+)?json\s*(?:;|$)/i.test(res.headers.get('content-type') ?? '') && text) body = JSON.parse(text);
    const problems = validateResponse(group, method, rel, { status: res.status, headers: res.headers, body });
    this.checked++;
    for (const p of problems) this.violations.push(`${method} ${rel} ${res.status}: ${p}`);
  }
}
