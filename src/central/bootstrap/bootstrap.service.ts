import { ADMIN_SCOPES } from '../../auth/scopes.js';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONFIG, type Config } from '../../config.js';
import { DomainError } from '../../domain/shared/domain-error.js';
import { randomToken } from '../../infrastructure/crypto/hashing.js';
import { EVENT_STORE, type EventStore } from '../../infrastructure/event-store/event-store.port.js';
import { CreateClient } from '../commands/create-client.command.js';
import { type CommandResult, CreateTenant } from '../commands/create-tenant.command.js';
import { CreateUser } from '../commands/create-user.command.js';
import { type BootstrapTenant, BootstrapFileError, DEFAULT_TENANT_SETTINGS, readBootstrapFile } from './bootstrap-file.js';
import { BootstrapAccessItems } from './bootstrap-access-items.js';
import { applyChallenges } from './bootstrap-challenges.js';
import { emailCodesAvailable } from '../../edge/challenges/mail-settings.js';
import { READ_STORE, type ReadStore } from '../../infrastructure/read-store/read-store.port.js';

const ACTOR = 'system:bootstrap';


/** The tenant and admin client a first start without a bootstrap file creates for the admin API. */
const OPERATOR_TENANT = 'operator';
const OPERATOR_CLIENT = 'operator-admin';

/**
 * Applies BOOTSTRAP_FILE at start-up, idempotently: what exists already is left as it is
 * and appends nothing; a warning names the fields in which the file asks for something
 * else. With no file and an empty store, creates the `demo` tenant and the `operator` tenant
 * with an admin client (client_credentials, every admin scope).
 */
@Injectable()
export class BootstrapService {
  private readonly logger = new Logger('Bootstrap');

  constructor(
    @Inject(CONFIG) private readonly config: Config,
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(READ_STORE) private readonly reads: ReadStore,
  ) {}

  async run(): Promise<void> {
    if (this.config.bootstrapFile) {
      const file = this.config.bootstrapFile;
      const tenants = readBootstrapFile(file, this.config.signIn.passwordMinLength, emailCodesAvailable(this.config.mail));
      let created = 0;
      let existingUsers = 0;
      for (const [i, t] of tenants.entries()) {
        const applied = await this.applyTenant(t, file, `tenants[${i}]`);
        created += applied.created;
        existingUsers += applied.existingUsers;
      }
      this.logger.log(`${file}: ${tenants.length} tenant(s), ${created} item(s) created`);
      if (existingUsers) this.logger.log(`${file}: ${existingUsers} user(s) already existed; their passwords in the file are neither compared nor applied`);
    } else if ((await this.events.headPosition()) === 0) {
      await this.createDemo();
      return this.printDemoHint(true);
    }
    this.printDemoHint(false);
  }

  /** Applies one tenant of the file; `generated` holds the secrets the server generated, by client id (none for the file's clients, which name their own). */
  private async applyTenant(t: BootstrapTenant, file: string, path: string): Promise<{ created: number; existingUsers: number; generated: Map<string, string> }> {
    let created = 0;
    let existingUsers = 0;
    const generated = new Map<string, string>();
    const step = async <R extends CommandResult>(where: string, run: () => Promise<R>, user = false): Promise<R> => {
      try {
        const result = await run();
        if (result.created) created++;
        else if (user) existingUsers++;
        const unapplied = result.unapplied ?? [];
        if (unapplied.length) {
          this.logger.warn(`${file}: ${where} already exists and is left as it is; the file's ${unapplied.join(', ')} ${unapplied.length === 1 ? 'differs' : 'differ'} (the file only creates)`);
        }
        return result;
      } catch (e) {
        if (e instanceof DomainError) throw new BootstrapFileError(file, where, e.message);
        throw e;
      }
    };
    await step(path, () => this.commands.execute(new CreateTenant(t.id, t.settings, ACTOR)));
    for (const [i, c] of t.clients.entries()) {
      const { clientSecret, ...registration } = c;
      const result = await step(`${path}.clients[${i}]`, () => this.commands.execute(new CreateClient(t.id, registration, clientSecret, ACTOR)));
      if (result.clientSecret) generated.set(c.clientId, result.clientSecret);
    }
    const access = new BootstrapAccessItems(this.commands, this.reads, { tenantId: t.id, actor: ACTOR });
    for (const [i, r] of (t.resources ?? []).entries()) await step(`${path}.resources[${i}]`, () => access.resource(r));
    for (const [i, p] of (t.permissions ?? []).entries()) await step(`${path}.permissions[${i}]`, () => access.permission(p));
    for (const [i, r] of (t.roles ?? []).entries()) await step(`${path}.roles[${i}]`, () => access.role(r));
    const challenges = t.challenges;
    if (challenges) await step(`${path}.challenges`, () => applyChallenges(this.commands, this.reads, { tenantId: t.id, actor: ACTOR }, challenges));
    for (const [i, u] of t.users.entries()) {
      const where = `${path}.users[${i}]`;
      const user = await step(where, () => this.commands.execute<CreateUser, CommandResult & { userId: string }>(new CreateUser(t.id, u.username, u.password, u.claims, ACTOR)), true);
      if (u.roles?.length) await step(where, () => access.userRoles(user.userId, u.roles!, user.created));
    }
    return { created, existingUsers, generated };
  }

  private get demoFile(): string {
    return join(this.config.dataDir, 'demo-credentials.json');
  }

  private async createDemo(): Promise<void> {
    const password = randomToken(12);
    const { generated } = await this.applyTenant(
      {
        id: 'demo',
        settings: DEFAULT_TENANT_SETTINGS,
        clients: [
          {
            clientId: 'demo-client',
            clientName: 'Demo client',
            redirectUris: ['http://127.0.0.1:9999/cb'],
            postLogoutRedirectUris: ['http://127.0.0.1:9999/'],
            grantTypes: ['authorization_code', 'refresh_token', 'client_credentials'],
            responseTypes: ['code'],
            scope: ['openid', 'profile', 'email', 'offline_access'],
            tokenEndpointAuthMethod: 'client_secret_basic',
            firstParty: true,
          },
        ],
        users: [{ username: 'demo', password, claims: { name: 'Demo User', given_name: 'Demo', family_name: 'User', email: 'demo@example.com', email_verified: true } }],
      },
      'demo',
      'tenants[0]',
    );
    // The operator tenant, whose admin client's tokens act on every tenant through the admin API.
    const operator = await this.applyTenant(
      {
        id: OPERATOR_TENANT,
        settings: { ...DEFAULT_TENANT_SETTINGS, operator: true },
        clients: [
          {
            clientId: OPERATOR_CLIENT,
            clientName: 'Operator admin client',
            redirectUris: [],
            postLogoutRedirectUris: [],
            grantTypes: ['client_credentials'],
            responseTypes: ['code'],
            scope: [...ADMIN_SCOPES],
            tokenEndpointAuthMethod: 'client_secret_basic',
            firstParty: true,
          },
        ],
        users: [],
      },
      'operator',
      'tenants[1]',
    );
    // The clients' secrets are the server's (CreateClient generates one for a confidential client without).
    const credentials = {
      client_id: 'demo-client',
      client_secret: generated.get('demo-client'),
      username: 'demo',
      password,
      admin_client_id: OPERATOR_CLIENT,
      admin_client_secret: operator.generated.get(OPERATOR_CLIENT),
    };
    writeFileSync(this.demoFile, JSON.stringify(credentials, null, 2), { mode: 0o600 });
  }

  /**
   * How to try the demo tenant. Its secrets are printed only by the start that made them:
   * a log is kept and shipped where the credentials file is not, so later starts name the file.
   */
  private printDemoHint(justCreated: boolean): void {
    if (!existsSync(this.demoFile)) return;
    const demo = JSON.parse(readFileSync(this.demoFile, 'utf8')) as Record<string, string>;
    const secret = justCreated ? demo.client_secret : '<client_secret>';
    const user = justCreated ? `user ${demo.username} / ${demo.password}` : `user ${demo.username}, password in the file`;
    const issuer = `${this.config.publicUrl}/demo`;
    const adminSecret = justCreated ? demo.admin_client_secret : '<admin_client_secret>';
    const tokenCall = `curl -s -u ${demo.admin_client_id}:${adminSecret} -d grant_type=client_credentials ${this.config.publicUrl}/${OPERATOR_TENANT}/token`;
    const readToken = `node -pe 'JSON.parse(require(\"fs\").readFileSync(0)).access_token'`;
    this.logger.log(
      [
        `demo tenant: ${issuer}/.well-known/openid-configuration (credentials in ${this.demoFile}${justCreated ? ', printed only this once' : ''})`,
        `  try: curl -s -u ${demo.client_id}:${secret} -d grant_type=client_credentials ${issuer}/token`,
        `  browser: ${issuer}/authorize?response_type=code&client_id=${demo.client_id}&redirect_uri=http://127.0.0.1:9999/cb&scope=openid%20profile&code_challenge=<S256 of a verifier>&code_challenge_method=S256  (${user})`,
        ...(demo.admin_client_id ? [`admin API (operator tenant): curl -s -H "Authorization: Bearer $(${tokenCall} | ${readToken})" ${this.config.publicUrl}/configuration/tenants`] : []),
      ].join('\n'),
    );
  }
}
