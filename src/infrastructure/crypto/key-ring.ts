import type { KeyObject } from 'node:crypto';
import { signingKeyDecider } from '../../domain/signing-key/signing-key.decider.js';
import type { SigningKeyGenerated } from '../../domain/signing-key/signing-key.events.js';
import { streams } from '../../domain/shared/stream-names.js';
import type { SigningAlg } from '../../domain/tenant/tenant.events.js';
import type { AggregateStore } from '../event-store/aggregate-store.js';
import type { Clock } from '../nest/clock.js';
import { generateKeyPairJwk, type Jwk, privateKeyFromJwk, publicKeyFromJwk, thumbprint } from './jws.js';
import type { KeyEncryption } from './key-encryption.js';

export interface LoadedKey {
  kid: string;
  alg: SigningAlg;
  privateKey: KeyObject;
  publicKey: KeyObject;
  publicJwk: Jwk;
}

/**
 * Per-tenant signing keys, generated on first use and kept on the tenant's key stream with
 * the private half sealed. Keys are opened once and held in memory.
 */
export class KeyRing {
  private readonly loaded = new Map<string, Promise<LoadedKey[]>>();

  constructor(
    private readonly aggregates: AggregateStore,
    private readonly encryption: KeyEncryption,
    private readonly clock: Clock,
  ) {}

  /** The newest key of the tenant for `alg`, generated when the tenant has none. */
  async signingKey(tenantId: string, alg: SigningAlg): Promise<LoadedKey> {
    const found = newest(await this.keys(tenantId), alg);
    if (found) return found;
    await this.generate(tenantId, alg, true);
    return newest(await this.keys(tenantId), alg)!;
  }

  /** Adds a new key for `alg`, which becomes the signing key; older keys stay published for verification. */
  async generate(tenantId: string, alg: SigningAlg, onlyIfNone = false): Promise<void> {
    const { publicJwk, privateJwk } = generateKeyPairJwk(alg);
    const kid = thumbprint(publicJwk);
    const key: SigningKeyGenerated['data'] = {
      tenantId,
      kid,
      alg,
      publicJwk: { ...publicJwk, kid, alg, use: 'sig' },
      encryptedPrivateKey: this.encryption.seal(JSON.stringify(privateJwk)),
      createdAt: this.clock.now().toISOString(),
    };
    await this.aggregates.execute(streams.signingKeys(tenantId), signingKeyDecider, { kind: 'GenerateSigningKey', key, onlyIfNone }, { tenantId, actor: 'system', now: this.clock.now() });
    this.loaded.delete(tenantId);
  }

  async find(tenantId: string, kid: string): Promise<LoadedKey | undefined> {
    const hit = (await this.keys(tenantId)).find((k) => k.kid === kid);
    if (hit) return hit;
    this.loaded.delete(tenantId);
    return (await this.keys(tenantId)).find((k) => k.kid === kid);
  }

  async jwks(tenantId: string): Promise<{ keys: Jwk[] }> {
    return { keys: (await this.keys(tenantId)).map((k) => k.publicJwk) };
  }

  private keys(tenantId: string): Promise<LoadedKey[]> {
    let p = this.loaded.get(tenantId);
    if (!p) {
      p = this.aggregates.load(streams.signingKeys(tenantId), signingKeyDecider).then(({ state }) =>
        state.keys.map((k) => ({
          kid: k.kid,
          alg: k.alg,
          publicJwk: k.publicJwk as Jwk,
          publicKey: publicKeyFromJwk(k.publicJwk as Jwk),
          privateKey: privateKeyFromJwk(JSON.parse(this.encryption.open(k.encryptedPrivateKey)) as Jwk),
        })),
      );
      p.catch(() => this.loaded.delete(tenantId));
      this.loaded.set(tenantId, p);
    }
    return p;
  }
}

function newest(keys: LoadedKey[], alg: SigningAlg): LoadedKey | undefined {
  return keys.filter((k) => k.alg === alg).at(-1);
}
