import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { RESERVED_CLIENT_IDS, reservedClientIdFault } from './client-id.js';

describe('reserved client ids', () => {
  it('are every fixed segment of the admin routes under /configuration/clients/, and the dot-segments', () => {
    const central = parse(readFileSync(fileURLToPath(new URL('../../../openapi/central.yaml', import.meta.url)), 'utf8')) as { paths: Record<string, unknown> };
    const fixed = new Set(
      Object.keys(central.paths)
        .filter((p) => p.startsWith('/configuration/clients/'))
        .map((p) => p.split('/')[3])
        .filter((segment) => !segment.startsWith('{')),
    );
    expect([...fixed].sort()).toEqual(RESERVED_CLIENT_IDS.filter((id) => !id.startsWith('.')).sort());
    expect(RESERVED_CLIENT_IDS).toEqual(expect.arrayContaining(['.', '..']));
  });

  it('says why, and takes any other id', () => {
    expect(reservedClientIdFault('edge-certificate')).toMatch(/^client_id edge-certificate is reserved/);
    for (const ok of ['edge-certificate-2', 'Edge-Certificate', '...', 'web']) expect(reservedClientIdFault(ok)).toBeUndefined();
  });
});
