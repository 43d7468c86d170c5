import type { Config } from '../../config.js';
import type { Clock } from '../../infrastructure/nest/clock.js';
import { BrowserSessions } from './browser-session.js';
import type { SessionCommands } from './session-commands.js';

const sessions = (publicUrl: string) => new BrowserSessions({} as SessionCommands, {} as Clock, { publicUrl } as Config);

describe('browser session cookies', () => {
  it("over plain http, are scoped to the tenant's issuer path as the browser sees it, under the path of PUBLIC_URL", () => {
    expect(sessions('http://localhost:8080').cookie('acme', 'sid', 'v')).toBe('sid=v; Path=/acme; HttpOnly; SameSite=Lax');
    expect(sessions('http://localhost:8080/a/b').clear('acme', 'interaction-x')).toBe('interaction-x=; Path=/a/b/acme; HttpOnly; SameSite=Lax; Max-Age=0');
    expect(sessions('http://localhost:8080').read('acme', 'sid=1; device=2')).toEqual({ sid: '1', device: '2' });
  });

  it('behind https, are __Host- cookies named for their tenant (Secure, Path=/, no Domain), and only those are read', () => {
    const https = sessions('https://idp.example.com/auth');
    expect(https.cookie('acme', 'sid', 'v')).toBe('__Host-sid.acme=v; Path=/; HttpOnly; SameSite=Lax; Secure');
    expect(https.clear('a-b', 'interaction-x')).toBe('__Host-interaction-x.a-b=; Path=/; HttpOnly; SameSite=Lax; Secure; Max-Age=0');
    // A plain `sid` (which a sibling subdomain could plant) and another tenant's cookie are not this tenant's.
    expect(https.read('acme', 'sid=planted; __Host-sid.other=o; __Host-sid.acme=mine; __Host-logout-relay.acme=r')).toEqual({ sid: 'mine', 'logout-relay': 'r' });
  });
});
