/** How messages are delivered (every variable is in the README's configuration table). */
export interface DeliverySettings {
  /** How long one POST may take, in milliseconds. */
  timeoutMs: number;
  /** The first retry's delay, in milliseconds; each next one doubles, with jitter. */
  firstRetryMs: number;
  /** The longest delay between two attempts, in milliseconds. */
  maxRetryDelayMs: number;
  /** How long a delivery is retried, from its first attempt, before it is dead-lettered, in milliseconds. */
  retryWindowMs: number;
  /** POSTs to one receiver (scheme, host and port) in flight at once. */
  perReceiver: number;
  /** Webhooks: dead letters in a row (none delivered between) that pause a subscription. */
  webhookPauseAfter: number;
  /** Webhooks: the most events one replay request sends again. */
  webhookReplayMax: number;
  /** Several servers on one shared store: how long a server's delivery leases last unrenewed (its work waits that long when it dies), in milliseconds. */
  leaseTtlMs: number;
  /** Several servers on one shared store: how often a server reads the deliveries other servers' followers made for its partitions, in milliseconds. */
  pollMs: number;
}

function whole(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min) throw new Error(`${name} must be a whole number of at least ${min}, got "${raw}"`);
  return Number(raw);
}

export function deliverySettings(env: NodeJS.ProcessEnv = process.env): DeliverySettings {
  return {
    timeoutMs: whole(env, 'DELIVERY_TIMEOUT_MS', 5000, 100),
    firstRetryMs: whole(env, 'DELIVERY_FIRST_RETRY_MS', 1000, 10),
    maxRetryDelayMs: whole(env, 'DELIVERY_MAX_RETRY_DELAY', 300, 1) * 1000,
    retryWindowMs: whole(env, 'DELIVERY_RETRY_WINDOW', 3600, 1) * 1000,
    perReceiver: whole(env, 'DELIVERY_CONCURRENCY_PER_RECEIVER', 4, 1),
    webhookPauseAfter: whole(env, 'WEBHOOK_PAUSE_AFTER_DEAD_LETTERS', 5, 1),
    webhookReplayMax: whole(env, 'WEBHOOK_REPLAY_MAX', 10000, 1),
    leaseTtlMs: whole(env, 'DELIVERY_LEASE_TTL', 15, 3) * 1000,
    pollMs: whole(env, 'DELIVERY_POLL_MS', 500, 50),
  };
}

/**
 * The delay before attempt `attempts + 1`: the first retry after about `firstRetryMs`, each
 * next one twice as long up to `maxRetryDelayMs`, each drawn between half and all of it so that
 * receivers coming back are not hit by every server at once. `random` in [0, 1).
 */
export function retryDelay(settings: DeliverySettings, attempts: number, random: number): number {
  const ceiling = Math.min(settings.maxRetryDelayMs, settings.firstRetryMs * 2 ** Math.min(attempts - 1, 30));
  return Math.round(ceiling / 2 + (ceiling / 2) * random);
}
