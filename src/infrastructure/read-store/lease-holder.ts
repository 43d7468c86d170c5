import type { LeaseGrant, Leases } from './lease.port.js';

/** What a server does while it holds a lease, and stops doing when it no longer does. */
export interface LeasedWork {
  /** Starts the work under `grant` (its fence on every write). A throw gives the lease back. */
  take(grant: LeaseGrant): Promise<void>;
  /** Stops it: `lost`, the lease passed on (or may have); `stop`, this server stops. */
  leave(why: 'lost' | 'stop'): Promise<void>;
}

/**
 * Holds one named lease for one piece of work that must run on one server at a time (the
 * projections, the Shared Signals follower). Each turn (every third of the TTL) renews the
 * lease, or takes it when it is free or expired (its holder died), and starts or stops the work
 * to match. The fence is what makes a hand-over safe: a holder that stalled past its TTL and was
 * replaced finds its next write refused by the store, and `lost` stops its work, but only for
 * the grant that write was made under (the same server may have taken the lease again since).
 * Turns and hand-overs run one at a time.
 */
export class LeaseHolder {
  private grant?: LeaseGrant;
  private timer?: NodeJS.Timeout;
  private running: Promise<unknown> = Promise.resolve();
  private closed = false;
  logger?: (message: string) => void;

  /** `now`: epoch ms on the injected clock. */
  constructor(
    private readonly leases: Leases,
    readonly name: string,
    readonly owner: string,
    private readonly ttlMs: number,
    private readonly now: () => number,
    private readonly work: LeasedWork,
  ) {}

  /** Whether this server holds the lease (and so does the work) now. */
  get holding(): boolean {
    return this.grant !== undefined;
  }

  /** The first turn now (a work that cannot start is thrown), the next ones on a timer. */
  async start(): Promise<void> {
    this.timer = setInterval(() => void this.turn().catch((e: unknown) => this.logger?.(`${this.name} lease: ${(e as Error).message}`)), Math.max(1, Math.floor(this.ttlMs / 3)));
    this.timer.unref();
    await this.turn();
  }

  /** One turn: renew or take the lease, and start or stop the work to match. */
  turn(): Promise<void> {
    return this.serially(async () => {
      if (this.closed) return;
      const now = this.now();
      let grant: LeaseGrant | null;
      try {
        grant = await this.leases.acquire(this.name, this.owner, this.ttlMs, now);
      } catch (error) {
        // The store did not answer: go on while the lease surely lasts; past that, another may hold it.
        this.logger?.(`${this.name} lease not renewed: ${(error as Error).message}`);
        if (this.grant && now >= this.grant.expiresAt) await this.leave('lost');
        return;
      }
      if (grant && grant.fence === this.grant?.fence) {
        this.grant = grant;
        return;
      }
      await this.leave('lost');
      if (!grant) return;
      this.grant = grant;
      try {
        await this.work.take(grant);
      } catch (error) {
        await this.leave('lost');
        await this.leases.release(this.name, this.owner).catch(() => undefined);
        throw error;
      }
    });
  }

  /** A write under `fence` was refused: the lease passed on, unless this server has taken it again since. */
  lost(fence: number): Promise<void> {
    return this.serially(async () => (this.grant?.fence === fence ? this.leave('lost') : undefined));
  }

  /** Stops the work and lets the lease go (`release: false` keeps it until it expires, as a server that dies does). */
  async stop(release = true): Promise<void> {
    clearInterval(this.timer);
    await this.serially(async () => {
      this.closed = true;
      const held = this.grant;
      await this.leave('stop');
      if (held && release) await this.leases.release(this.name, this.owner).catch(() => undefined);
    });
  }

  private async leave(why: 'lost' | 'stop'): Promise<void> {
    if (!this.grant) return;
    this.grant = undefined;
    await this.work.leave(why);
  }

  private serially<T>(work: () => Promise<T>): Promise<T> {
    const next = this.running.then(work, work);
    this.running = next.catch(() => undefined);
    return next;
  }
}
