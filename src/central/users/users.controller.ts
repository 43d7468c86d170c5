import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Patch, Post, Req, Res, UseGuards, UsePipes } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type UserView, userKey } from '../../../projections/users.projection.js';
import { CONFIG, type Config } from '../../config.js';
import { READ_STORE, type ReadStore } from '../../infrastructure/read-store/read-store.port.js';
import { Directory } from '../../shared/directory.js';
import { originOf } from '../../shared/request-origin.js';
import { actorOf, type AdminPrincipal } from '../auth/admin-principal.js';
import { AdminGuard, Principal, RequireScope } from '../auth/admin.guard.js';
import type { CommandOrigin } from '../command-path.js';
import { CreateUser } from '../commands/create-user.command.js';
import { ifMatchRevision, sendEtag } from '../http/etag.js';
import { mergePatch } from '../http/merge-patch.js';
import { pageOf, pageQuery } from '../http/paging.js';
import { problems } from '../http/problem.js';
import { adminValidation, validated } from '../http/validation.js';
import { passwordProblem, type PasswordOwner } from '../passwords/password-policy.js';
import { DeleteUser, EditUser } from './user-commands.js';
import { claimsOf, UserDto, userRepresentation } from './user.dto.js';

/** A filter of the list: one string of at most `max` characters. */
function filterOf(query: unknown, name: string, max: number): string | undefined {
  const value = (query as Record<string, unknown> | undefined)?.[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.length > max) throw problems.badRequest(`${name} must be one string of at most ${max} characters`, [{ path: name, detail: `one string of at most ${max} characters` }]);
  return value;
}

/**
 * `{issuer}/configuration/users`: the tenant's users. Reads come from the users view; every
 * change is a command on the user's stream. A username never changes and is never given to
 * another user, even once its user is deleted.
 */
@Controller(':tenant/configuration/users')
@UseGuards(AdminGuard)
@UsePipes(adminValidation)
export class UsersController {
  constructor(
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(Directory) private readonly directory: Directory,
    @Inject(CONFIG) private readonly config: Config,
  ) {}

  /**
   * Pages by user id; with `username` (a prefix, any case) by username instead, the cursor then
   * being the last username seen; `email` is an exact match. Each is a range of an index.
   */
  @Get()
  @RequireScope('central:read')
  async list(@Param('tenant') tenantId: string, @Req() req: FastifyRequest): Promise<unknown> {
    const { limit, after } = pageQuery(req.query);
    const username = filterOf(req.query, 'username', 256);
    const email = filterOf(req.query, 'email', 320);
    const filter = { tenantId, ...(email !== undefined ? { 'claims.email': email } : {}) };
    if (username !== undefined) {
      const fieldPrefix = { field: 'usernameKey', prefix: username.toLowerCase(), ...(after !== undefined ? { after } : {}) };
      const docs = await this.reads.find<UserView>('users', filter, { fieldPrefix, sortBy: 'usernameKey', limit: limit + 1 });
      return pageOf(docs, limit, (u) => u.usernameKey, userRepresentation);
    }
    const prefix = userKey(tenantId, '');
    const docs = await this.reads.find<UserView>('users', email !== undefined ? filter : {}, { idPrefix: prefix, ...(after !== undefined ? { afterId: prefix + after } : {}), sortBy: '_id', limit: limit + 1 });
    return pageOf(docs, limit, (u) => u.userId, userRepresentation);
  }

  @Post()
  @RequireScope('central:write')
  async create(@Param('tenant') tenantId: string, @Body() dto: UserDto, @Principal() p: AdminPrincipal, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<unknown> {
    if (dto.password === undefined) throw problems.badRequest('a new user needs a password', [{ path: 'password', detail: 'required' }]);
    const claims = claimsOf(dto);
    this.checkPassword(dto.password, { username: dto.username, email: claims.email });
    const result: { created: boolean; userId: string } = await this.commands.execute(new CreateUser(tenantId, dto.username, dto.password, claims, actorOf(p)));
    if (!result.created) throw problems.conflict(`the username ${dto.username} is taken, or was: a username is never given twice`);
    if (dto.disabled) await this.commands.execute(new EditUser(this.by(tenantId, p, req, undefined), result.userId, { disabled: true }, { username: dto.username }));
    const user = await this.found(tenantId, result.userId);
    reply.status(201).header('location', `${this.directory.issuer(tenantId)}/configuration/users/${encodeURIComponent(result.userId)}`);
    sendEtag(reply, user.revision);
    return userRepresentation(user);
  }

  @Get(':userId')
  @RequireScope('central:read')
  async get(@Param('tenant') tenantId: string, @Param('userId') userId: string, @Res({ passthrough: true }) reply: FastifyReply): Promise<unknown> {
    const user = await this.found(tenantId, userId);
    sendEtag(reply, user.revision);
    return userRepresentation(user);
  }

  /**
   * RFC 7396 JSON Merge Patch of the user's representation, plus a write-only `password`;
   * `username` cannot change. Disabling ends every session of the user.
   */
  @Patch(':userId')
  @RequireScope('central:write')
  async patch(
    @Param('tenant') tenantId: string,
    @Param('userId') userId: string,
    @Principal() p: AdminPrincipal,
    @Req() req: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<unknown> {
    const expectedRevision = ifMatchRevision(req);
    const current = await this.found(tenantId, userId);
    // Roles change through users/{id}/roles/{roleId}: a patch naming `roles` is refused as an unknown field.
    const { id: _i, roles: _r, created_at: _c, updated_at: _u, ...editable } = userRepresentation(current);
    const dto = validated(UserDto, mergePatch(editable, req.body));
    if (dto.username !== current.username) throw problems.badRequest('username cannot change', [{ path: 'username', detail: 'cannot change' }]);
    const claims = claimsOf(dto);
    const owner = { username: current.username, ...(claims.email ? { email: claims.email } : {}) };
    if (dto.password !== undefined) this.checkPassword(dto.password, owner);
    const change = { claims, ...(dto.password !== undefined ? { password: dto.password } : {}), ...(dto.disabled !== undefined ? { disabled: dto.disabled } : {}) };
    await this.commands.execute(new EditUser(this.by(tenantId, p, req, expectedRevision ?? current.revision), userId, change, owner));
    return this.get(tenantId, userId, reply);
  }

  /** Deletes the user and ends every session of theirs; their tokens are honoured no more. */
  @Delete(':userId')
  @RequireScope('central:write')
  @HttpCode(204)
  async remove(@Param('tenant') tenantId: string, @Param('userId') userId: string, @Principal() p: AdminPrincipal, @Req() req: FastifyRequest): Promise<void> {
    const expectedRevision = ifMatchRevision(req);
    await this.found(tenantId, userId);
    await this.commands.execute(new DeleteUser(this.by(tenantId, p, req, expectedRevision), userId));
  }

  /** The password policy's refusal named by its field (the commands apply the policy too). */
  private checkPassword(password: string, owner: PasswordOwner): void {
    const problem = passwordProblem(password, owner, this.config.signIn.passwordMinLength);
    if (problem) throw problems.badRequest(`password ${problem}`, [{ path: 'password', detail: problem }]);
  }

  private async found(tenantId: string, userId: string): Promise<UserView> {
    const user = await this.directory.user(tenantId, userId);
    if (!user) throw problems.notFound(`no user ${userId}`);
    return user;
  }

  private by(tenantId: string, p: AdminPrincipal, req: FastifyRequest, expectedRevision: number | undefined): CommandOrigin {
    return { tenantId, actor: actorOf(p), origin: originOf(req), ...(expectedRevision !== undefined ? { expectedRevision } : {}) };
  }
}
