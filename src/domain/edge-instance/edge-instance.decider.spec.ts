import { givenFor, types } from '../shared/decider-spec.js';
import { edgeInstanceDecider } from './edge-instance.decider.js';
import type { EdgeInstanceEvent } from './edge-instance.events.js';

const given = givenFor(edgeInstanceDecider);
const edge = { edgeId: 'e1', name: 'Edge 1', allowedHosts: ['login.acme.example'], status: 'active' as const };
const registered: EdgeInstanceEvent = { type: 'EdgeRegistered', data: { tenantId: 't', ...edge } };
const cert = (serial: string) => ({ serial, thumbprint: 'x', notBefore: '2026-01-01T00:00:00.000Z', notAfter: '2026-01-02T00:00:00.000Z' });
const record = (serial: string) => ({ kind: 'RecordCertificate' as const, certificate: cert(serial) });

describe('edge instance decider', () => {
  it('records a certificate for an active edge, naming the one it replaces', () => {
    const first = given([registered]).after(record('aa'));
    expect(given(first).when(record('bb'))).toEqual([{ type: 'EdgeCertificateIssued', data: { tenantId: 't', edgeId: 'e1', ...cert('bb'), replaces: 'aa' } }]);
  });

  it('revokes the valid certificate when the edge is disabled or deleted, in the same decision', () => {
    const withCert = given([registered]).after(record('aa'));
    const disable = { kind: 'UpdateEdge' as const, definition: { ...edge, status: 'disabled' as const } };
    expect(given(withCert).when(disable)).toEqual([
      { type: 'EdgeUpdated', data: { tenantId: 't', ...edge, status: 'disabled' } },
      { type: 'EdgeCertificateRevoked', data: { tenantId: 't', edgeId: 'e1', serial: 'aa', reason: 'edge_disabled' } },
    ]);
    expect(types(given(withCert).when({ kind: 'DeleteEdge' }))).toEqual(['EdgeCertificateRevoked', 'EdgeDeleted']);
    expect(types(given([registered]).when({ kind: 'DeleteEdge' }))).toEqual(['EdgeDeleted']);
  });

  it('gives a disabled, deleted or unknown edge no certificate', () => {
    const disabled = given([registered]).after({ kind: 'UpdateEdge', definition: { ...edge, status: 'disabled' } });
    expect(given(disabled).refused(record('aa'))).toBe('in_use');
    expect(given([...given([registered]).after({ kind: 'DeleteEdge' })]).refused(record('aa'))).toBe('not_found');
    expect(given().refused(record('aa'))).toBe('not_found');
  });

  it('refuses bad ids and hosts, and a second registration', () => {
    expect(given().refused({ kind: 'RegisterEdge', tenantId: 't', definition: { ...edge, edgeId: 'a b' } })).toBe('invalid_value');
    expect(given().refused({ kind: 'RegisterEdge', tenantId: 't', definition: { ...edge, allowedHosts: ['Upper.example'] } })).toBe('invalid_value');
    expect(given().refused({ kind: 'RegisterEdge', tenantId: 't', definition: { ...edge, allowedHosts: ['*.acme.example'] } })).toBe('no error');
    expect(given([registered]).refused({ kind: 'RegisterEdge', tenantId: 't', definition: edge })).toBe('already_exists');
  });
});
