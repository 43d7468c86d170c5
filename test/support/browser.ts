/**
 * A minimal cookie-keeping browser over fetch: follows nothing by itself, so each redirect
 * of the authorization flow can be looked at, and submits the HTML login and consent forms
 * the way a browser without JavaScript would.
 */
export class Browser {
  /** What this browser says it is (a browser always sends a `User-Agent`). */
  static readonly USER_AGENT = 'Mozilla/5.0 (X11; Linux x86_64) TestBrowser/1.0';
  private readonly jar = new Map<string, string>();

  /** `fetchImpl` lets a test see every response, e.g. `new Browser(contract.fetch)` checks them against the OpenAPI files. */
  constructor(private readonly fetchImpl: (input: string, init: RequestInit) => Promise<Response> = fetch) {}

  async get(url: string): Promise<Response> {
    return this.request(url, { method: 'GET' });
  }

  /** A form POST from a page of the target's own origin, which a browser names in `Origin`. */
  async post(url: string, form: Record<string, string>, origin = new URL(url).origin): Promise<Response> {
    return this.request(url, { method: 'POST', body: new URLSearchParams(form), headers: { 'content-type': 'application/x-www-form-urlencoded', origin } });
  }

  cookie(name: string): string | undefined {
    return this.jar.get(name);
  }

  /** The jar's cookies as `name=value` pairs. */
  cookies(): string[] {
    return [...this.jar].map(([k, v]) => `${k}=${v}`);
  }

  /** Puts a cookie in the jar, as another page of the site could. */
  setCookie(name: string, value: string): void {
    this.jar.set(name, value);
  }

  private async request(url: string, init: RequestInit): Promise<Response> {
    const cookie = [...this.jar].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await this.fetchImpl(url, { ...init, redirect: 'manual', headers: { 'user-agent': Browser.USER_AGENT, ...(init.headers as Record<string, string>), ...(cookie ? { cookie } : {}) } });
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (attrs.some((a) => a.trim().toLowerCase() === 'max-age=0') || value === '') this.jar.delete(name);
      else this.jar.set(name, value);
    }
    return res;
  }

  /** Follows redirects within the server until one leaves it (to the client) or a page is shown. */
  async follow(url: string, serverBase: string): Promise<Response> {
    let res = await this.get(url);
    while (res.status === 302 || res.status === 303) {
      const next = new URL(res.headers.get('location')!, url).href;
      if (!next.startsWith(serverBase)) return res;
      url = next;
      res = await this.get(url);
    }
    return res;
  }

  /** Reads the first form of an HTML page: its action and its hidden fields. */
  static form(html: string): { action: string; fields: Record<string, string> } {
    const action = /<form[^>]*action="([^"]*)"/.exec(html)?.[1] ?? '';
    const fields: Record<string, string> = {};
    for (const m of html.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) fields[unescape(m[1])] = unescape(m[2]);
    return { action: unescape(action), fields };
  }
}

function unescape(s: string): string {
  return s.replace(/&#(\d+);/g, (_, n) => String.fromCharCode(Number(n))).replace(/&amp;/g, '&');
}
