import { Inject, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { ResourceView } from '../../../projections/resources.projection.js';
import type { TenantView } from '../../../projections/tenants.projection.js';
import { BearerRequired, DpopChallenge, InsufficientScope, InvalidBearerRequest, InvalidToken, type OAuthError, UseDpopNonce } from '../../auth/oauth-errors.js';
import type { DenialReason } from '../../domain/edge/proxy-denial.js';
import { type ResourceRoute, routeFor } from '../../domain/resource/resource-routes.js';
import { EdgeCallers, type EdgeCaller } from '../caller.js';
import { EffectivePermissions } from '../permissions/effective-permissions.js';
import type { ProxyTarget } from './proxy-path.js';

/** A request the proxy may forward: its route, and its caller with the permissions it holds on the resource (none on a public route). */
export interface Admitted {
  route: ResourceRoute;
  caller?: EdgeCaller;
  permissions: string[];
}

/** A request refused before the upstream saw it: the error the client gets, why, and the caller when it was known. */
export class Refused extends Error {
  constructor(
    readonly error: OAuthError,
    readonly reason: DenialReason,
    readonly caller?: EdgeCaller,
    readonly missing?: string[],
  ) {
    super(error.description);
  }
}

/** RFC 9110 §9.2.1: the methods that change nothing; only they are taken on the edge session cookie (no cross-site writes). */
const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Whether a request may pass: the first route that covers it decides. A public route passes
 * anyone. Otherwise the caller must be authenticated (an access token of the tenant whose
 * `aud` names the resource's identifier, or for a safe method the edge session cookie) and
 * hold every permission the route lists, through its roles as they are now. A request no
 * route covers is refused once its caller is known (403), so that the routes of a resource are
 * not told to strangers.
 */
@Injectable()
export class ProxyAccess {
  constructor(
    @Inject(EdgeCallers) private readonly callers: EdgeCallers,
    @Inject(EffectivePermissions) private readonly effective: EffectivePermissions,
  ) {}

  async admit(tenant: TenantView, resource: ResourceView, target: ProxyTarget, req: FastifyRequest): Promise<Admitted> {
    const route = routeFor(resource.routes ?? [], req.method, target.segments);
    if (route?.public) return { route, permissions: [] };
    const caller = await this.caller(tenant, resource, req);
    if (!route) throw new Refused(new InsufficientScope(`no route of resource ${resource.resourceId} allows ${req.method} on this path`), 'no_route', caller);
    const held = (await this.effective.forCaller(tenant.tenantId, caller)).permissions;
    const ids = new Set(held.map((p) => p.id));
    const missing = route.permissions.filter((p) => !ids.has(p));
    // RFC 6750 §3.1: insufficient_scope, naming what the request needs.
    if (missing.length) throw new Refused(new InsufficientScope(`this route needs the permissions ${route.permissions.join(' ')}`), 'missing_permissions', caller, missing);
    return { route, caller, permissions: held.filter((p) => p.resource === resource.resourceId).map((p) => p.id) };
  }

  private async caller(tenant: TenantView, resource: ResourceView, req: FastifyRequest): Promise<EdgeCaller> {
    let caller: EdgeCaller;
    try {
      caller = await this.callers.of(tenant, req, { cookie: SAFE.has(req.method) });
    } catch (e) {
      if (e instanceof BearerRequired) throw new Refused(e, 'no_token');
      if (e instanceof InvalidToken || e instanceof DpopChallenge || e instanceof UseDpopNonce) throw new Refused(e, 'invalid_token');
      if (e instanceof InvalidBearerRequest) throw new Refused(e, 'invalid_request');
      throw e;
    }
    // RFC 8707 §2 / RFC 9068 §4: a token is for the resources its `aud` names, and only them.
    if (caller.via !== 'cookie' && !caller.audience?.includes(resource.identifier)) {
      throw new Refused(new InvalidToken(`the access token is not for resource ${resource.resourceId}`), 'wrong_audience', caller);
    }
    return caller;
  }
}
