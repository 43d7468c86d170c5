/**
 * Cookies of a request header, by name (first occurrence wins). Without a prototype: a cookie
 * named `__proto__` or `constructor` is a cookie like any other, and a name that was not sent
 * finds nothing.
 */
export function parseCookies(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  if (!header) return out;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim();
    if (name !== '' && !Object.hasOwn(out, name)) out[name] = part.slice(eq + 1).trim();
  }
  return out;
}

export interface CookieOptions {
  path: string;
  secure: boolean;
  maxAge?: number;
}

/** An HttpOnly, SameSite=Lax cookie; Secure whenever the server is reached over https. */
export function serializeCookie(name: string, value: string, o: CookieOptions): string {
  return [`${name}=${value}`, `Path=${o.path}`, 'HttpOnly', 'SameSite=Lax', ...(o.secure ? ['Secure'] : []), ...(o.maxAge !== undefined ? [`Max-Age=${o.maxAge}`] : [])].join('; ');
}

/**
 * How the browser flows name and scope the cookies of a tenant. Behind https (PUBLIC_URL):
 * `__Host-<name>.<tenant>`, Secure, Path=/, no Domain, which a sibling subdomain can neither
 * set nor shadow (RFC 6265bis §4.1.3.2), so it cannot plant a session of its own choosing
 * (login CSRF against the relying parties); one name per tenant stands for the path scoping.
 * Over plain http (development): `<name>`, scoped to the tenant's path as the browser sees it.
 */
export class TenantCookies {
  private readonly secure: boolean;
  /** The path of PUBLIC_URL, under which the browser sees every tenant (`/auth` for https://idp.example/auth). */
  private readonly basePath: string;

  constructor(publicUrl: string) {
    this.secure = publicUrl.startsWith('https:');
    this.basePath = new URL(publicUrl).pathname.replace(/\/+$/, '');
  }

  /** The cookie's name on the wire (tenant ids hold no '.', so the tenant is what follows the last one). */
  name(tenantId: string, name: string): string {
    return this.secure ? `__Host-${name}.${tenantId}` : name;
  }

  serialize(tenantId: string, name: string, value: string, maxAge?: number): string {
    return serializeCookie(this.name(tenantId, name), value, { path: this.secure ? '/' : `${this.basePath}/${tenantId}`, secure: this.secure, maxAge });
  }

  /** The request's cookies of this tenant, by their names in the flows (`sid`, `interaction-<id>`, ...); behind https, only `__Host-` ones. */
  read(tenantId: string, header: string | undefined): Record<string, string> {
    const all = parseCookies(header);
    if (!this.secure) return all;
    const out: Record<string, string> = {};
    const suffix = `.${tenantId}`;
    for (const [name, value] of Object.entries(all)) {
      if (name.startsWith('__Host-') && name.endsWith(suffix)) out[name.slice('__Host-'.length, -suffix.length)] = value;
    }
    return out;
  }
}
