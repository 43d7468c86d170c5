import { Inject, Injectable } from '@nestjs/common';
import { type ClientView, clientKey } from '../../projections/clients.projection.js';
import type { ResourceView } from '../../projections/resources.projection.js';
import type { TenantView } from '../../projections/tenants.projection.js';
import { type UserView, userKey } from '../../projections/users.projection.js';
import { CONFIG, type Config } from '../config.js';
import { NotFound } from '../auth/oauth-errors.js';
import { READ_STORE, type ReadStore } from '../infrastructure/read-store/read-store.port.js';

/** Look-ups of tenants, clients and users in their views; the issuer of every tenant. */
@Injectable()
export class Directory {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(CONFIG) private readonly config: Config,
  ) {}

  issuer(tenantId: string): string {
    return `${this.config.publicUrl}/${tenantId}`;
  }

  /** PUBLIC_URL: where the routes outside tenants are (the operator's tenant management). */
  base(): string {
    return this.config.publicUrl;
  }

  async tenant(tenantId: string): Promise<TenantView | null> {
    return this.reads.get<TenantView>('tenants', tenantId);
  }

  /** The tenant, or a 404 `not_found` error. */
  async requireTenant(tenantId: string): Promise<TenantView> {
    const t = await this.tenant(tenantId);
    if (!t) throw new NotFound(`unknown tenant`);
    return t;
  }

  async client(tenantId: string, clientId: string): Promise<ClientView | null> {
    return this.reads.get<ClientView>('clients', clientKey(tenantId, clientId));
  }

  async user(tenantId: string, userId: string): Promise<UserView | null> {
    return this.reads.get<UserView>('users', userKey(tenantId, userId));
  }

  /** The user when it exists and is not disabled: whose tokens are honoured and who may sign in. */
  async activeUser(tenantId: string, userId: string): Promise<UserView | null> {
    const u = await this.user(tenantId, userId);
    return u && !u.disabled ? u : null;
  }

  async userByUsername(tenantId: string, username: string): Promise<UserView | null> {
    const [u] = await this.reads.find<UserView>('users', { tenantId, usernameKey: username.toLowerCase() }, { limit: 1 });
    return u ?? null;
  }

  /** The tenant's resource whose identifier (the `aud` of its tokens) is `identifier`, if any (RFC 8707). */
  async resourceByIdentifier(tenantId: string, identifier: string): Promise<ResourceView | null> {
    const [r] = await this.reads.find<ResourceView>('resources', { tenantId, identifier }, { limit: 1 });
    return r ?? null;
  }
}
