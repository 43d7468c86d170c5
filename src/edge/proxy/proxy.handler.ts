import { Inject, Injectable, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type ResourceView, resourceKey } from '../../../projections/resources.projection.js';
import type { TenantView } from '../../../projections/tenants.projection.js';
import { BearerRequired, DpopChallenge, InsufficientScope, InvalidBearerRequest, InvalidRequest, InvalidToken, NotFound, type OAuthError, storeError, UseDpopNonce } from '../../auth/oauth-errors.js';
import { CONFIG, type Config } from '../../config.js';
import { type DenialReason, proxyDenialDecider } from '../../domain/edge/proxy-denial.js';
import { DEFAULT_IDENTITY_HEADER } from '../../domain/resource/resource-routes.js';
import { streams } from '../../domain/shared/stream-names.js';
import { AggregateStore } from '../../infrastructure/event-store/aggregate-store.js';
import { Clock } from '../../infrastructure/nest/clock.js';
import { READ_STORE, type ReadStore } from '../../infrastructure/read-store/read-store.port.js';
import { Directory } from '../../shared/directory.js';
import { originOf } from '../../shared/request-origin.js';
import type { EdgeCaller } from '../caller.js';
import { IdentityTokens } from './identity-token.js';
import { ProxyAccess, Refused } from './proxy-access.js';
import { ProxyMetrics } from './proxy-metrics.js';
import { parseProxyTarget, upstreamPath } from './proxy-path.js';
import { Forwarder } from './forwarder.js';

const PATH_IN_EVENT = 256;

/**
 * `{issuer}/resources/{resourceId}/{path}`: finds the resource, admits the request (ProxyAccess)
 * or refuses it (recorded as a ProxyRequestDenied event on the resource's denial stream), and
 * forwards it (Forwarder). Errors are OAuth JSON with the RFC 6750 challenge where a token is
 * concerned.
 */
@Injectable()
export class ProxyHandler {
  private readonly logger = new Logger('Proxy');
  private readonly publicUrl: URL;

  constructor(
    @Inject(Directory) private readonly directory: Directory,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(ProxyAccess) private readonly access: ProxyAccess,
    @Inject(IdentityTokens) private readonly identities: IdentityTokens,
    @Inject(Forwarder) private readonly forwarder: Forwarder,
    @Inject(AggregateStore) private readonly aggregates: AggregateStore,
    @Inject(ProxyMetrics) private readonly metrics: ProxyMetrics,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(CONFIG) config: Config,
  ) {
    this.publicUrl = new URL(config.publicUrl);
  }

  async handle(req: FastifyRequest, reply: FastifyReply): Promise<void> {
    try {
      await this.serve(req, reply);
    } catch (e) {
      const error = e instanceof Refused ? e.error : (storeError(e) ?? undefined);
      if (error) return sendError(reply, error);
      this.logger.error(e instanceof Error ? (e.stack ?? e.message) : String(e));
      if (!reply.sent) sendJson(reply, 500, { error: 'server_error' });
    }
  }

  private async serve(req: FastifyRequest, reply: FastifyReply): Promise<void> {
    const params = req.params as { tenant: string; resourceId: string };
    const tenant = await this.directory.tenant(params.tenant);
    if (!tenant) throw new Refused(new NotFound('unknown tenant'), 'no_route');
    const resource = await this.reads.get<ResourceView>('resources', resourceKey(tenant.tenantId, params.resourceId));
    if (!resource?.upstreamUrl) throw new Refused(new NotFound('no such resource'), 'no_route');
    const target = parseProxyTarget(req.raw.url ?? '');
    if (typeof target === 'string') return this.refuse(req, reply, tenant, resource, new Refused(new InvalidRequest(target), 'bad_path'));
    let admitted;
    try {
      admitted = await this.access.admit(tenant, resource, target, req);
    } catch (e) {
      if (e instanceof Refused) return this.refuse(req, reply, tenant, resource, e);
      throw e;
    }
    const { caller, permissions } = admitted;
    const identityHeader = resource.identityHeader ?? DEFAULT_IDENTITY_HEADER;
    const identity = caller ? await this.identities.of(tenant, resource.identifier, caller, permissions) : undefined;
    const upstream = new URL(resource.upstreamUrl);
    this.metrics.count(this.metrics.forwarded, `${tenant.tenantId}/${resource.resourceId}`);
    await this.forwarder.forward(req, reply, {
      origin: upstream.origin,
      path: upstreamPath(upstream.pathname, target),
      forwarding: {
        identityHeader,
        ...(identity ? { identity } : {}),
        ...(resource.forwardToken && caller?.token ? { authorization: `Bearer ${caller.token}` } : {}),
        ...(req.ip ? { clientIp: req.ip } : {}),
        host: this.publicUrl.host,
        proto: this.publicUrl.protocol.slice(0, -1),
        requestId: String(req.id),
      },
    });
  }

  /** Records the refusal (every denied request is in the audit trail), then answers it. */
  private async refuse(req: FastifyRequest, reply: FastifyReply, tenant: TenantView, resource: ResourceView, r: Refused): Promise<void> {
    this.metrics.count(this.metrics.denied, `${tenant.tenantId}/${resource.resourceId}`);
    const rawPath = (req.raw.url ?? '').split('?')[0];
    const below = rawPath.slice(`/${tenant.tenantId}/resources/${resource.resourceId}`.length) || '/';
    const denial = denialOf(tenant.tenantId, resource.resourceId, req.method, below, r.error.status, r.reason, r.caller, r.missing);
    try {
      await this.aggregates.execute(streams.proxyDenials(tenant.tenantId, resource.resourceId), proxyDenialDecider, { kind: 'RecordDenial', denial }, {
        tenantId: tenant.tenantId,
        actor: r.caller ? (r.caller.userId ? `user:${r.caller.userId}` : `client:${r.caller.clientId}`) : 'anonymous',
        now: this.clock.now(),
        ...originOf(req),
      });
    } catch (e) {
      // The refusal stands whether or not the store took its record.
      this.logger.error(`a proxy denial was not recorded: ${e instanceof Error ? e.message : String(e)}`);
    }
    sendError(reply, r.error);
  }
}

function denialOf(tenantId: string, resourceId: string, method: string, path: string, status: number, reason: DenialReason, caller?: EdgeCaller, missing?: string[]) {
  return {
    tenantId,
    resourceId,
    method,
    path: path.length > PATH_IN_EVENT ? path.slice(0, PATH_IN_EVENT) : path,
    status,
    reason,
    ...(caller ? { sub: caller.sub } : {}),
    ...(caller?.clientId ? { clientId: caller.clientId } : {}),
    ...(missing?.length ? { missing } : {}),
  };
}

function sendJson(reply: FastifyReply, status: number, body: Record<string, unknown>): void {
  reply.status(status).header('cache-control', 'no-store').header('content-type', 'application/json; charset=utf-8').send(JSON.stringify(body));
}

/** OAuth JSON (RFC 6749 §5.2 shape) with the RFC 6750 §3 challenge for token errors. */
export function sendError(reply: FastifyReply, error: OAuthError): void {
  if (error instanceof BearerRequired) {
    // RFC 6750 §3.1: no credentials, no error information.
    reply.status(401).header('cache-control', 'no-store').header('www-authenticate', 'Bearer').send();
    return;
  }
  if (error instanceof InvalidToken || error instanceof InsufficientScope || error instanceof InvalidBearerRequest) {
    reply.header('www-authenticate', `Bearer error="${error.code}"${error.description ? `, error_description="${error.description}"` : ''}`);
  }
  // RFC 9449 §7.1, §9: a DPoP-bound token's refusals carry the DPoP challenge, and the nonce to use next.
  if (error instanceof UseDpopNonce) reply.header('dpop-nonce', error.nonce);
  if (error instanceof DpopChallenge || (error instanceof UseDpopNonce && error.status === 401)) {
    reply.header('www-authenticate', `DPoP error="${error.code}"${error.description ? `, error_description="${error.description}"` : ''}, algs="${(error.algs ?? []).join(' ')}"`);
  }
  sendJson(reply, error.status, error.description ? { error: error.code, error_description: error.description } : { error: error.code });
}
