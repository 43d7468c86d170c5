import type { Config } from '../../config.js';
import type { Clock } from '../../infrastructure/nest/clock.js';
import { BrowserSessions } from './browser-session.js';
import type { SessionCommands } from './session-commands.js';

const sessions = (publicUrl: string) => new BrowserSessions({} as SessionCommands, {} as Clock, { publicUrl } as Config);

describe('browser session cookies', () => {
  it("are scoped to the tenant's issuer path as the browser sees it, under the path of PUBLIC_URL", () => {
    expect(sessions('http://localhost:8080').cookie('acme', 'sid', 'v')).toBe('sid=v; Path=/acme; HttpOnly; SameSite=Lax');
    expect(sessions('https://idp.example.com/auth').cookie('acme', 'sid', 'v')).toBe('sid=v; Path=/auth/acme; HttpOnly; SameSite=Lax; Secure');
    expect(sessions('https://idp.example.com/a/b').clear('acme', 'interaction-x')).toBe('interaction-x=; Path=/a/b/acme; HttpOnly; SameSite=Lax; Secure; Max-Age=0');
  });
});
