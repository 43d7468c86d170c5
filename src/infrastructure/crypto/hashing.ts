import { hash, randomBytes, randomFillSync, scrypt, timingSafeEqual } from 'node:crypto';

const entropy = Buffer.alloc(4096);
let entropyAt = entropy.length;

/**
 * `n` fresh random bytes, from a pool that one `randomFillSync` call refills when it runs out
 * (more than the pool holds come from `randomBytes`). A 32-byte `randomBytes` call costs
 * about 1.7 µs here, nearly all of it around the call; from the pool, 0.1 µs. Every byte is
 * handed out once; callers copy what they keep.
 */
function randomSlice(n: number): Buffer {
  if (n > entropy.length) return randomBytes(n);
  if (entropyAt + n > entropy.length) {
    randomFillSync(entropy);
    entropyAt = 0;
  }
  return entropy.subarray(entropyAt, (entropyAt += n));
}

/** 256 random bits, base64url: codes, tokens, generated secrets. */
export function randomToken(bytes = 32): string {
  return randomSlice(bytes).toString('base64url');
}

/**
 * RFC 9562 §5.7 UUID version 7: 48 bits of Unix milliseconds, then 74 random bits. Ids made
 * one after another sort nearly in time order, so the view keys built from them are appended
 * at the end of their index instead of at random places in it.
 */
export function uuidV7(now = Date.now()): string {
  const b = randomSlice(16);
  b.writeUIntBE(now, 0, 6);
  b[6] = (b[6] & 0x0f) | 0x70;
  b[8] = (b[8] & 0x3f) | 0x80;
  const x = b.toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

/** SHA-256 for high-entropy, server-generated values (rule 3): `sha256:<base64url>` (one-shot `hash`: half the cost of a Hash object). */
export function sha256(value: string): string {
  return 'sha256:' + hash('sha256', value, 'base64url');
}

export function constantTimeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

const SCRYPT = { N: 1 << 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };

/** What `usePasswordHashTestCost` lowers N to: 1 MiB and a few milliseconds per hash. */
const TEST_SCRYPT_N = 1 << 10;

function scryptAsync(password: string, salt: Buffer, N: number, r: number, p: number): Promise<Buffer> {
  return new Promise((res, rej) =>
    scrypt(password, salt, 32, { N, r, p, maxmem: SCRYPT.maxmem }, (err, key) => (err ? rej(err) : res(key))),
  );
}

/** Slow password hash (scrypt), for passwords only: `scrypt$N$r$p$salt$hash`. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, SCRYPT.N, SCRYPT.r, SCRYPT.p);
  return ['scrypt', SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !hash) return false;
  const key = await scryptAsync(password, Buffer.from(salt, 'base64url'), Number(n), Number(r), Number(p));
  return timingSafeEqual(key, Buffer.from(hash, 'base64url'));
}

/** A password hash of a random value, verified against when the username is unknown (same cost either way). */
export let DUMMY_PASSWORD_HASH = hashPassword(randomToken());

/**
 * Test-only: the hashes this process makes from now on (and the dummy above) cost N = 2^10
 * instead of 2^15, so that the end-to-end suite's sign-ins do not spend most of its time in
 * scrypt. No setting or environment variable leads here, and it refuses to run outside a Jest
 * worker. A hash keeps its parameters in its text: verification is the same at any cost.
 */
export function usePasswordHashTestCost(): void {
  if (process.env.JEST_WORKER_ID === undefined) throw new Error('usePasswordHashTestCost is for the test suite only');
  if (SCRYPT.N === TEST_SCRYPT_N) return;
  SCRYPT.N = TEST_SCRYPT_N;
  DUMMY_PASSWORD_HASH = hashPassword(randomToken());
}
