/**
 * The methods each route accepts, gathered as the routes are registered, so that a known path
 * asked with another method is answered 405 with `Allow` (RFC 9110 §15.5.6) rather than 404.
 */
export class RouteMethods {
  private readonly routes = new Map<string, { pattern: RegExp; methods: Set<string> }>();

  /** `url` as registered: `/:tenant/token`, `/.well-known/openid-configuration/:tenant`. */
  add(url: string, method: string | string[]): void {
    let route = this.routes.get(url);
    if (!route) {
      const source = url
        .split('/')
        .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
        .join('/');
      route = { pattern: new RegExp(`^${source}$`), methods: new Set() };
      this.routes.set(url, route);
    }
    for (const m of Array.isArray(method) ? method : [method]) route.methods.add(m.toUpperCase());
  }

  /** Every route as registered, with the methods it accepts (sorted). */
  list(): Array<{ url: string; methods: string[] }> {
    return [...this.routes].map(([url, route]) => ({ url, methods: [...route.methods].sort() }));
  }

  /** The methods some route accepts at `path` (no query string), sorted; empty when no route has this path. */
  allowed(path: string): string[] {
    const methods = new Set<string>();
    for (const route of this.routes.values()) if (route.pattern.test(path)) for (const m of route.methods) methods.add(m);
    return [...methods].sort();
  }
}

const ofServer = new WeakMap<object, RouteMethods>();

/** Keeps the routes of a server (its Nest application), for the tests that go over every route. */
export function recordRoutes(app: object, routes: RouteMethods): void {
  ofServer.set(app, routes);
}

/** The routes a started server registered. */
export function routesOf(app: object): RouteMethods | undefined {
  return ofServer.get(app);
}
