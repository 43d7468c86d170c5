import { ITEM_ID } from '../resource/resource.decider.js';
import { assertNever, type Decider } from '../shared/decider.js';
import { DomainError } from '../shared/domain-error.js';
import type { EdgeCertificateFacts, EdgeDefinition, EdgeInstanceEvent } from './edge-instance.events.js';

export type EdgeInstanceCommand =
  | { kind: 'RegisterEdge'; tenantId: string; definition: EdgeDefinition }
  | { kind: 'UpdateEdge'; definition: EdgeDefinition }
  | { kind: 'DeleteEdge' }
  /** A certificate made for the edge from its CSR; recorded only while the edge is active. */
  | { kind: 'RecordCertificate'; certificate: EdgeCertificateFacts };

export interface EdgeInstanceState {
  tenantId?: string;
  definition?: EdgeDefinition;
  /** The edge's one valid certificate, if it has one. */
  certificate?: EdgeCertificateFacts;
}

/** A host name of RFC 1123 labels, or `*.` before one. */
const HOST = /^(?:\*\.)?(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

export function validateEdge(d: EdgeDefinition): void {
  const fail = (m: string): never => {
    throw new DomainError('invalid_value', `edge ${d.edgeId}: ${m}`);
  };
  if (!ITEM_ID.test(d.edgeId)) fail('id must be 1-128 unreserved characters or ":"');
  if (d.name.trim() === '' || d.name.length > 200) fail('name must be 1-200 characters');
  for (const h of d.allowedHosts) if (!HOST.test(h)) fail(`allowed host "${h}" is not a lower-case host name (or *. and one)`);
  if (d.status !== 'active' && d.status !== 'disabled') fail('status must be active or disabled');
}

/**
 * A registered traffic-plane instance and its client certificate. Revocation is decided here,
 * on the stream (rule 4): disabling or deleting the edge withdraws its valid certificate in the
 * same append, and a certificate is recorded only at the revision at which the edge was found
 * active, so a disable racing a renewal makes the renewal fail rather than slip through.
 */
export const edgeInstanceDecider: Decider<EdgeInstanceCommand, EdgeInstanceEvent, EdgeInstanceState> = {
  initialState: {},
  decide(command, state) {
    switch (command.kind) {
      case 'RegisterEdge':
        validateEdge(command.definition);
        if (state.definition) throw new DomainError('already_exists', `an edge ${command.definition.edgeId} exists`);
        return [{ type: 'EdgeRegistered', data: { tenantId: command.tenantId, ...command.definition } }];
      case 'UpdateEdge': {
        const { tenantId, definition, certificate } = live(state);
        validateEdge(command.definition);
        const updated: EdgeInstanceEvent = { type: 'EdgeUpdated', data: { tenantId, ...command.definition } };
        if (command.definition.status === 'disabled' && definition.status === 'active' && certificate) {
          return [updated, { type: 'EdgeCertificateRevoked', data: { tenantId, edgeId: definition.edgeId, serial: certificate.serial, reason: 'edge_disabled' } }];
        }
        return [updated];
      }
      case 'DeleteEdge': {
        const { tenantId, definition, certificate } = live(state);
        const edgeId = definition.edgeId;
        const revoked: EdgeInstanceEvent[] = certificate ? [{ type: 'EdgeCertificateRevoked', data: { tenantId, edgeId, serial: certificate.serial, reason: 'edge_deleted' } }] : [];
        return [...revoked, { type: 'EdgeDeleted', data: { tenantId, edgeId } }];
      }
      case 'RecordCertificate': {
        const { tenantId, definition, certificate } = live(state);
        if (definition.status !== 'active') throw new DomainError('in_use', `the edge ${definition.edgeId} is disabled: it gets no certificate`);
        return [{ type: 'EdgeCertificateIssued', data: { tenantId, edgeId: definition.edgeId, ...command.certificate, ...(certificate ? { replaces: certificate.serial } : {}) } }];
      }
      default:
        return assertNever(command);
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'EdgeRegistered':
      case 'EdgeUpdated': {
        const { tenantId, ...definition } = event.data;
        return { ...state, tenantId, definition };
      }
      case 'EdgeCertificateIssued': {
        const { serial, thumbprint, notBefore, notAfter } = event.data;
        return { ...state, certificate: { serial, thumbprint, notBefore, notAfter } };
      }
      case 'EdgeCertificateRevoked':
        return { ...state, certificate: undefined };
      case 'EdgeDeleted':
        return { tenantId: state.tenantId };
      default:
        return assertNever(event);
    }
  },
};

function live(state: EdgeInstanceState): Required<Pick<EdgeInstanceState, 'tenantId' | 'definition'>> & EdgeInstanceState {
  if (!state.definition || !state.tenantId) throw new DomainError('not_found', 'no such edge');
  return state as Required<Pick<EdgeInstanceState, 'tenantId' | 'definition'>> & EdgeInstanceState;
}
