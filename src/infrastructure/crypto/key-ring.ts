import { createPublicKey, type KeyObject } from 'node:crypto';
import { type KeyLifecycle, keyStatuses, signingKeyDecider, type SigningKeyState } from '../../domain/signing-key/signing-key.decider.js';
import type { SigningKeyGenerated } from '../../domain/signing-key/signing-key.events.js';
import { streams } from '../../domain/shared/stream-names.js';
import type { SigningAlg } from '../../domain/tenant/tenant.events.js';
import type { AggregateStore } from '../event-store/aggregate-store.js';
import type { RequestOrigin } from '../event-store/event-store.port.js';
import type { Clock } from '../nest/clock.js';
import { generateKeyPairJwk, type Jwk, privateKeyFromJwk, publicKeyFromJwk, thumbprint } from './jws.js';
import { type KeyEncryption, SealedValueError } from './key-encryption.js';
import { setBounded } from '../../shared/bounded-map.js';

/** Least time between two reloads of a tenant's keys for an unknown kid. */
const RELOAD_MS = 10_000;
const RELOADS_KEPT = 10_000;

export interface LoadedKey {
  kid: string;
  alg: SigningAlg;
  privateKey: KeyObject;
  publicKey: KeyObject;
  publicJwk: Jwk;
  /** ES256 signatures of this key verify only with s in the lower half (see jws.ts). */
  lowS: boolean;
}

/**
 * A tenant's keys as loaded, and what they are at this moment: the signing key of each
 * algorithm and the published ones (not retired), valid until the next step of a key's life.
 */
interface TenantKeys {
  all: LoadedKey[];
  state: SigningKeyState;
  now?: { current: Map<SigningAlg, LoadedKey>; published: LoadedKey[]; validUntil: number };
}

/**
 * Per-tenant signing keys, generated on first use and kept on the tenant's key stream with
 * the private half sealed. Keys are opened once and held in memory.
 */
export class KeyRing {
  private readonly loaded = new Map<string, Promise<TenantKeys>>();
  private readonly generating = new Map<string, Promise<void>>();
  /** When each tenant's keys were last reloaded for an unknown kid (ms). */
  private readonly reloadedAt = new Map<string, number>();

  constructor(
    private readonly aggregates: AggregateStore,
    private readonly encryption: KeyEncryption,
    private readonly clock: Clock,
  ) {}

  /** The current key of the tenant for `alg` (see keyStatuses), generated when the tenant has none. */
  async signingKey(tenantId: string, alg: SigningAlg): Promise<LoadedKey> {
    const found = this.moment(await this.keys(tenantId)).current.get(alg);
    if (found) return found;
    // Concurrent first uses share one generation.
    const pending = `${tenantId} ${alg}`;
    let first = this.generating.get(pending);
    if (!first) {
      first = this.generate(tenantId, alg, true).then(() => undefined).finally(() => this.generating.delete(pending));
      this.generating.set(pending, first);
    }
    await first;
    return this.moment(await this.keys(tenantId)).current.get(alg)!;
  }

  /**
   * Adds a new key for `alg`. With `announceSeconds`, when the algorithm has a signing key, the
   * new one is published at once and signs only once that time has passed, so that relying
   * parties that cache the key set hold it before they meet a token it signed; otherwise it
   * signs at once. Older keys stay published while tokens they signed may live.
   */
  async generate(tenantId: string, alg: SigningAlg, onlyIfNone = false, announceSeconds = 0, actor = 'system', origin?: RequestOrigin): Promise<{ kid: string; activatesAt?: number }> {
    const hasCurrent = announceSeconds > 0 && this.moment(await this.keys(tenantId)).current.has(alg);
    const activatesAt = hasCurrent ? this.clock.seconds() + announceSeconds : undefined;
    const { publicJwk, privateJwk } = await generateKeyPairJwk(alg);
    const kid = thumbprint(publicJwk);
    const key: SigningKeyGenerated['data'] = {
      tenantId,
      kid,
      alg,
      publicJwk: { ...publicJwk, kid, alg, use: 'sig' },
      encryptedPrivateKey: this.encryption.seal('signing-key', JSON.stringify(privateJwk), sealContext(tenantId, kid)),
      createdAt: this.clock.now().toISOString(),
      ...(alg === 'ES256' ? { lowS: true as const } : {}),
      ...(activatesAt !== undefined ? { activatesAt } : {}),
    };
    await this.aggregates.execute(streams.signingKeys(tenantId), signingKeyDecider, { kind: 'GenerateSigningKey', key, onlyIfNone }, { tenantId, actor, now: this.clock.now(), ...origin });
    this.loaded.delete(tenantId);
    return activatesAt !== undefined ? { kid, activatesAt } : { kid };
  }

  /** Every key of the tenant and where it stands in its life now (the admin API's key list). */
  async lifecycle(tenantId: string): Promise<Array<KeyLifecycle & { createdAt: string }>> {
    const { state } = await this.keys(tenantId);
    const created = new Map(state.keys.map((k) => [k.kid, k.createdAt]));
    return keyStatuses(state, this.clock.seconds()).map((k) => ({ ...k, createdAt: created.get(k.kid)! }));
  }

  /** Appends the events of the keys' steps that are due (activations, retirements); the keys in use follow the times, not these records. */
  async recordSteps(tenantId: string): Promise<number> {
    const { position } = await this.aggregates.execute(streams.signingKeys(tenantId), signingKeyDecider, { kind: 'RecordKeySteps', tenantId, now: this.clock.seconds() }, { tenantId, actor: 'system', now: this.clock.now() });
    if (position) this.loaded.delete(tenantId);
    return position;
  }

  /**
   * The key `kid` of the tenant. An unknown kid reloads the tenant's keys (another server may
   * have added one), at most once per RELOAD_MS: a stream of tokens with made-up kids costs a
   * lookup, not a reload each.
   */
  async find(tenantId: string, kid: string): Promise<LoadedKey | undefined> {
    const hit = this.moment(await this.keys(tenantId)).published.find((k) => k.kid === kid);
    if (hit) return hit;
    const now = this.clock.now().getTime();
    if (now - (this.reloadedAt.get(tenantId) ?? 0) < RELOAD_MS) return undefined;
    setBounded(this.reloadedAt, tenantId, now, RELOADS_KEPT);
    this.loaded.delete(tenantId);
    return this.moment(await this.keys(tenantId)).published.find((k) => k.kid === kid);
  }

  /**
   * Throws when this process's key-encryption key cannot open the signing keys in the log (a
   * KEY_ENCRYPTION_KEY set after keys were sealed with the generated key file, or another one):
   * the server would otherwise start and fail every signature. Opens the keys of the first of
   * `tenantIds` that has any: a sample, since every key is sealed with the one key-encryption
   * key the servers share.
   */
  async checkSealedKeys(tenantIds: readonly string[]): Promise<void> {
    for (const tenantId of tenantIds) {
      const keys = await this.keys(tenantId).catch((e: unknown) => {
        if (!(e instanceof SealedValueError)) throw e;
        throw new Error(`the signing keys of tenant ${tenantId} cannot be opened: ${e.message}; start with the key-encryption key they were sealed with (KEY_ENCRYPTION_KEY, or DATA_DIR/key-encryption.key)`, { cause: e });
      });
      if (keys.all.length) return;
    }
  }

  /** The published keys: announced, current and retiring ones; retired keys are gone from it. */
  async jwks(tenantId: string): Promise<{ keys: Jwk[] }> {
    return { keys: this.moment(await this.keys(tenantId)).published.map((k) => k.publicJwk) };
  }

  /** What the tenant's keys are now, worked out again only once the next step of a key's life has come. */
  private moment(keys: TenantKeys): NonNullable<TenantKeys['now']> {
    const now = this.clock.seconds();
    if (keys.now && now < keys.now.validUntil) return keys.now;
    const byKid = new Map(keys.all.map((k) => [k.kid, k]));
    const statuses = keyStatuses(keys.state, now);
    const current = new Map<SigningAlg, LoadedKey>();
    for (const k of statuses) if (k.status === 'current') current.set(k.alg, byKid.get(k.kid)!);
    const published = statuses.filter((k) => k.status !== 'retired').map((k) => byKid.get(k.kid)!);
    const upcoming = statuses.flatMap((k) => [k.status === 'announced' ? k.activatesAt : Infinity, k.status === 'retiring' ? k.retiresAt! : Infinity]);
    keys.now = { current, published, validUntil: Math.min(Infinity, ...upcoming) };
    return keys.now;
  }

  private keys(tenantId: string): Promise<TenantKeys> {
    let p = this.loaded.get(tenantId);
    if (!p) {
      p = this.aggregates.load(streams.signingKeys(tenantId), signingKeyDecider).then(({ state }) => ({
        state,
        all: state.keys.map((k) => ({
          kid: k.kid,
          alg: k.alg,
          publicJwk: k.publicJwk as Jwk,
          lowS: k.lowS === true,
          publicKey: publicKeyFromJwk(k.publicJwk as Jwk),
          privateKey: openPrivateKey(this.encryption, tenantId, k.kid, k.encryptedPrivateKey),
        })),
      }));
      p.catch(() => this.loaded.delete(tenantId));
      this.loaded.set(tenantId, p);
    }
    return p;
  }
}

const sealContext = (tenantId: string, kid: string) => `${tenantId}|${kid}`;

/** Opens a sealed private key, and checks that it is the half of the published key its kid names. */
function openPrivateKey(encryption: KeyEncryption, tenantId: string, kid: string, sealed: string): KeyObject {
  const privateKey = privateKeyFromJwk(JSON.parse(encryption.open('signing-key', sealed, sealContext(tenantId, kid))) as Jwk);
  if (thumbprint(createPublicKey(privateKey).export({ format: 'jwk' }) as Jwk) !== kid) throw new Error(`signing key ${kid} of tenant ${tenantId} does not match its published public key`);
  return privateKey;
}
