import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { X509Certificate, webcrypto } from 'node:crypto';
import { ADMIN_BOOTSTRAP, adminCall, adminToken, type AdminAnswer } from '../support/admin.js';
import type { TestServer } from '../support/server.js';
import { endToEnd } from '../support/suite.js';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

let server: TestServer;
const contract = endToEnd(async (s) => {
  ({ server } = s);
}, ADMIN_BOOTSTRAP);

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<AdminAnswer> {
  return adminCall(server, contract, method, path, await adminToken(server, path.split('/')[1]), body, headers);
}

/** A CSR of a new EC P-256 key, as an edge makes it (the key stays with the edge). */
async function csrOf(subject = 'CN=ignored'): Promise<{ pem: string; spki: Buffer }> {
  const keys = (await webcrypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({ name: subject, keys: keys as unknown as Parameters<typeof x509.Pkcs10CertificateRequestGenerator.create>[0]["keys"], signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' } });
  return { pem: csr.toString('pem'), spki: Buffer.from(await webcrypto.subtle.exportKey('spki', keys.publicKey)) };
}

async function renew(edgeId: string, csr: string, tenant = 'acme', token?: string): Promise<{ status: number; type: string | null; text: string }> {
  const res = await contract.fetch(`${server.issuer(tenant)}/configuration/clients/edge-certificate/renew`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token ?? (await adminToken(server, tenant))}`, 'content-type': 'application/json' },
    body: JSON.stringify({ edge_id: edgeId, csr }),
  });
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
}

/** The PEM blocks of a chain, as node:crypto certificates. */
function chainOf(pem: string): X509Certificate[] {
  return (pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []).map((c) => new X509Certificate(c));
}

const serialOf = (c: X509Certificate) => c.serialNumber.toLowerCase().replace(/^0+/, '');

describe('admin API: edges', () => {
  it('registers, reads, patches (If-Match) and deletes an edge', async () => {
    const created = await call('POST', '/acme/configuration/edges', { id: 'edge-a', name: 'Edge A', allowed_hosts: ['login.acme.example', '*.acme.example'] });
    expect(created.status).toBe(201);
    expect(created.headers.get('etag')).toBe('"0"');
    expect(created.headers.get('location')).toBe(`${server.issuer('acme')}/configuration/edges/edge-a`);
    expect(created.body).toMatchObject({ id: 'edge-a', name: 'Edge A', status: 'active', allowed_hosts: ['login.acme.example', '*.acme.example'] });
    expect((await call('POST', '/acme/configuration/edges', { id: 'edge-a', name: 'again' })).status).toBe(409);
    const patched = await call('PATCH', '/acme/configuration/edges/edge-a', { description: 'eu-west' }, { 'if-match': '"0"' });
    expect(patched.status).toBe(200);
    expect(patched.body.description).toBe('eu-west');
    expect((await call('PATCH', '/acme/configuration/edges/edge-a', { name: 'stale' }, { 'if-match': '"0"' })).status).toBe(412);
    expect((await call('PATCH', '/acme/configuration/edges/edge-a', { id: 'other' })).status).toBe(400);
    expect((await call('GET', '/acme/configuration/edges')).body.items.map((e: { id: string }) => e.id)).toEqual(['edge-a']);
    expect((await call('GET', '/beta/configuration/edges/edge-a')).status).toBe(404);
    expect((await call('DELETE', '/acme/configuration/edges/edge-a')).status).toBe(204);
    expect((await call('GET', '/acme/configuration/edges/edge-a')).status).toBe(404);
  });

  it('refuses bad fields with the field named', async () => {
    for (const [body, field] of [
      [{ id: 'a b', name: 'x' }, 'id'],
      [{ id: 'e', name: '' }, 'name'],
      [{ id: 'e', name: 'x', status: 'paused' }, 'status'],
      [{ id: 'e', name: 'x', colour: 'red' }, 'colour'],
    ] as const) {
      const res = await call('POST', '/acme/configuration/edges', body);
      expect([res.status, res.body.errors?.[0]?.path]).toEqual([400, field]);
    }
    const host = await call('POST', '/acme/configuration/edges', { id: 'e', name: 'x', allowed_hosts: ['Not A Host'] });
    expect([host.status, host.body.detail]).toEqual([400, expect.stringContaining('allowed host')]);
  });
});

describe('edge client certificates', () => {
  it('issues a certificate from a CSR that verifies against the tenant CA, with the subject, SAN, lifetime and serial the view names', async () => {
    await call('POST', '/acme/configuration/edges', { id: 'edge-1', name: 'Edge 1' });
    server.clock.freeze();
    try {
      const csr = await csrOf('CN=someone-else, O=evil');
      const answer = await renew('edge-1', csr.pem);
      expect(answer.status).toBe(200);
      expect(answer.type).toMatch(/^application\/pem-certificate-chain/);
      const [leaf, ca] = chainOf(answer.text);
      expect(ca).toBeDefined();
      // The certificate is signed by the CA, which is the tenant's and the one /ca serves.
      expect(leaf.verify(ca.publicKey)).toBe(true);
      expect(leaf.checkIssued(ca)).toBe(true);
      expect(ca.ca).toBe(true);
      expect(leaf.ca).toBe(false);
      const served = await contract.fetch(`${server.issuer('acme')}/configuration/clients/edge-certificate/ca`, { headers: { authorization: `Bearer ${await adminToken(server, 'acme')}` } });
      expect(new X509Certificate(await served.text()).fingerprint256).toBe(ca.fingerprint256);
      // The CSR's subject is not used; the edge's key is.
      expect(leaf.subject).toBe('CN=edge-1\nO=acme');
      expect(leaf.subjectAltName).toBe(`URI:${server.issuer('acme')}/configuration/edges/edge-1`);
      expect(leaf.keyUsage).toEqual(['1.3.6.1.5.5.7.3.2']);
      expect(Buffer.from(leaf.publicKey.export({ type: 'spki', format: 'der' }))).toEqual(csr.spki);
      const now = Math.floor(server.clock.now().getTime() / 1000) * 1000;
      expect(new Date(leaf.validFrom).getTime()).toBe(now);
      expect(new Date(leaf.validTo).getTime() - new Date(leaf.validFrom).getTime()).toBe(86_400_000);
      const edge = await call('GET', '/acme/configuration/edges/edge-1');
      expect(edge.body.certificate).toEqual({
        serial: serialOf(leaf),
        'x5t#S256': Buffer.from(leaf.fingerprint256.replace(/:/g, ''), 'hex').toString('base64url'),
        not_before: new Date(now).toISOString(),
        not_after: new Date(now + 86_400_000).toISOString(),
      });
      expect(edge.body.last_renewal).toBe(server.clock.now().toISOString());
    } finally {
      server.clock.release();
    }
  });

  it('a renewal replaces the certificate: the old serial is listed as replaced, the new one as valid', async () => {
    await call('POST', '/acme/configuration/edges', { id: 'edge-2', name: 'Edge 2' });
    const [first] = chainOf((await renew('edge-2', (await csrOf()).pem)).text);
    const [second] = chainOf((await renew('edge-2', (await csrOf()).pem)).text);
    expect(serialOf(second)).not.toBe(serialOf(first));
    expect((await call('GET', '/acme/configuration/edges/edge-2')).body.certificate.serial).toBe(serialOf(second));
    const all = (await call('GET', '/acme/configuration/clients/edge-certificate')).body.items as Array<{ serial: string; status: string; reason?: string }>;
    expect(all.find((c) => c.serial === serialOf(first))).toMatchObject({ status: 'replaced', reason: 'renewed' });
    expect(all.find((c) => c.serial === serialOf(second))).toMatchObject({ status: 'valid', edge_id: 'edge-2' });
    const valid = (await call('GET', '/acme/configuration/clients/edge-certificate?status=valid')).body.items.map((c: { serial: string }) => c.serial);
    expect(valid).toContain(serialOf(second));
    expect(valid).not.toContain(serialOf(first));
  });

  it('a deleted edge\'s certificate is listed as revoked; a disabled edge\'s too, and it gets no other', async () => {
    await call('POST', '/acme/configuration/edges', { id: 'edge-3', name: 'Edge 3' });
    await call('POST', '/acme/configuration/edges', { id: 'edge-4', name: 'Edge 4' });
    const [three] = chainOf((await renew('edge-3', (await csrOf()).pem)).text);
    const [four] = chainOf((await renew('edge-4', (await csrOf()).pem)).text);
    expect((await call('DELETE', '/acme/configuration/edges/edge-3')).status).toBe(204);
    const disabled = await call('PATCH', '/acme/configuration/edges/edge-4', { status: 'disabled' });
    expect(disabled.body.certificate).toBeUndefined();
    const revoked = (await call('GET', '/acme/configuration/clients/edge-certificate?status=revoked')).body.items;
    expect(revoked).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ serial: serialOf(three), edge_id: 'edge-3', status: 'revoked', reason: 'edge_deleted' }),
        expect.objectContaining({ serial: serialOf(four), edge_id: 'edge-4', status: 'revoked', reason: 'edge_disabled' }),
      ]),
    );
    expect((await renew('edge-4', (await csrOf()).pem)).status).toBe(409);
    expect((await renew('edge-3', (await csrOf()).pem)).status).toBe(404);
  });

  it('refuses a CSR that is not one, or whose signature does not verify, and needs central:write', async () => {
    await call('POST', '/acme/configuration/edges', { id: 'edge-5', name: 'Edge 5' });
    expect((await renew('edge-5', 'not a csr')).status).toBe(400);
    const { pem } = await csrOf();
    const der = Buffer.from(pem.replace(/-----[^-]+-----|\s/g, ''), 'base64');
    der[der.length - 5] ^= 0xff;
    const tampered = `-----BEGIN CERTIFICATE REQUEST-----\n${der.toString('base64')}\n-----END CERTIFICATE REQUEST-----\n`;
    const refused = await renew('edge-5', tampered);
    expect([refused.status, JSON.parse(refused.text).detail]).toEqual([400, expect.stringContaining('csr')]);
    expect((await renew('edge-5', pem, 'acme', await adminToken(server, 'acme', 'central:read', 'reader'))).status).toBe(403);
    // Another tenant's edge is not found from here.
    expect((await renew('edge-5', pem, 'beta')).status).toBe(404);
  });

  it('keeps the CA key sealed in the log and withholds it from the audit routes', async () => {
    const events = await call('GET', '/acme/configuration/audit/events?type=EdgeCaCreated');
    expect(events.status).toBe(200);
    const [created] = events.body.items;
    expect(created.data.encryptedPrivateKey).toBe('[withheld]');
    expect(JSON.stringify(events.body)).not.toMatch(/PRIVATE KEY/);
  });
});
