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
