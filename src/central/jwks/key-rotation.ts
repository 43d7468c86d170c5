import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { TenantView } from '../../../projections/tenants.projection.js';
import type { SigningAlg } from '../../domain/tenant/tenant.events.js';
import { KeyRing } from '../../infrastructure/crypto/key-ring.js';
import { Clock } from '../../infrastructure/nest/clock.js';
import { READ_STORE, type ReadStore } from '../../infrastructure/read-store/read-store.port.js';

/**
 * How long a new key is published before it signs: longer than relying parties may cache the
 * key set (the JWKS answer's max-age is 300 s), so none meets a token whose key it could not
 * have fetched.
 */
export const ANNOUNCE_SECONDS = 900;
/** How often the steps of the keys' lives are looked at. */
const TICK_MS = 60_000;

/**
 * The keys' lives over time: every minute, for every tenant, starts the rotation its
 * `key_rotation_period` asks for (a new key of its signing algorithm, announced) and records
 * the activations and retirements that came due. Which key signs follows the times alone
 * (see keyStatuses), so a late tick only records late. Several servers may tick: each step is
 * decided on the keys' stream, once.
 */
@Injectable()
export class KeyRotation implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Keys');
  private timer?: NodeJS.Timeout;

  constructor(
    @Inject(KeyRing) private readonly keys: KeyRing,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => this.tick().catch((e: unknown) => this.logger.warn(`key rotation: ${e instanceof Error ? e.message : String(e)}`)), TICK_MS).unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /** One pass over every tenant. */
  async tick(): Promise<void> {
    let after: string | undefined;
    for (;;) {
      const tenants = await this.reads.find<TenantView>('tenants', {}, { sortBy: '_id', limit: 100, ...(after !== undefined ? { afterId: after } : {}) });
      for (const t of tenants) await this.tenantTick(t);
      if (tenants.length < 100) return;
      after = tenants.at(-1)!.tenantId;
    }
  }

  private async tenantTick(t: TenantView): Promise<void> {
    if (t.keyRotationPeriod) {
      const alg = t.signingAlg as SigningAlg;
      const keys = (await this.keys.lifecycle(t.tenantId)).filter((k) => k.alg === alg);
      const current = keys.find((k) => k.status === 'current');
      const announced = keys.some((k) => k.status === 'announced');
      if (current && !announced && this.clock.seconds() - current.activatesAt >= t.keyRotationPeriod) {
        const { kid } = await this.keys.generate(t.tenantId, alg, false, ANNOUNCE_SECONDS);
        this.logger.log(`tenant ${t.tenantId}: key ${kid} announced (rotation every ${t.keyRotationPeriod} s)`);
      }
    }
    await this.keys.recordSteps(t.tenantId);
  }
}
