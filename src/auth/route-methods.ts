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

  /** The methods some route accepts at `path` (no query string), sorted; empty when no route has this path. */
  allowed(path: string): string[] {
    const methods = new Set<string>();
    for (const route of this.routes.values()) if (route.pattern.test(path)) for (const m of route.methods) methods.add(m);
    return [...methods].sort();
  }
}
