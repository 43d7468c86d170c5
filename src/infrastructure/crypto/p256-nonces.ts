import { hash, type KeyObject } from 'node:crypto';
import { Worker } from 'node:worker_threads';

/**
 * ES256 signatures with their expensive half made ahead of time.
 *
 * An ECDSA signature (SEC 1 §4.1.3) is (r, s) with r = x(k·G) mod n for a fresh secret nonce
 * k, and s = k⁻¹·(z + r·d) mod n, where z is the SHA-256 of the signing input and d the private
 * scalar. Everything costly depends on k alone: the point multiplication k·G (OpenSSL's
 * constant-time code, through ECDH) and the inverse of k. A background thread makes pairs
 * (r, k⁻¹) in batches, so the request thread's part of a signature is z, two products and a
 * reduction: about 4 µs, against 32 µs for OpenSSL's whole signature on this machine, where it
 * was the largest single share of issuing a token.
 *
 * Each pair is taken from the pool once and dropped (a nonce used twice gives the key away).
 * Pairs never leave this process's memory. When the pool is empty the caller signs with
 * OpenSSL instead. The inverses are made per batch with one modular inversion (Montgomery's
 * trick), of the product of the batch's nonces times a random blinding factor, so the
 * variable-time inversion learns nothing about any nonce.
 */

/** The P-256 group order. */
export const P256_N = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;
const HALF_N = P256_N >> 1n;

/** Pairs made per batch, and the pool size below which the next batch is asked for. */
const BATCH = 1024;
const LOW_WATER = 2048;

/** Thread to main: one batch, r as 64 hex digits and k⁻¹, pair by pair. */
interface Batch {
  r: string[];
  kInverse: bigint[];
}

/**
 * The thread that makes the pairs: answers each number it is sent with a batch of that many.
 * Sent to the worker as source text (like the store's writer thread), so it must stay
 * self-contained, using only `require` and the worker's data (the group order).
 */
export function nonceThread(): void {
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { parentPort, workerData } = require('node:worker_threads');
  const { createECDH, randomBytes } = require('node:crypto');
  const n: bigint = workerData.n;
  const big = (bytes: Buffer) => BigInt(`0x${bytes.toString('hex')}`);
  /** A uniform scalar in [1, n - 1], by rejection. */
  const scalar = (): { value: bigint; bytes: Buffer } => {
    for (;;) {
      const bytes = randomBytes(32);
      const value = big(bytes);
      if (value > 0n && value < n) return { value, bytes };
    }
  };
  const inverse = (a: bigint): bigint => {
    let [r0, r1, t0, t1] = [n, a, 0n, 1n];
    while (r1 !== 0n) {
      const q = r0 / r1;
      [r0, r1] = [r1, r0 - q * r1];
      [t0, t1] = [t1, t0 - q * t1];
    }
    return t0 < 0n ? t0 + n : t0;
  };
  const ecdh = createECDH('prime256v1');
  parentPort.on('message', (count: number) => {
    const k: bigint[] = [];
    const r: string[] = [];
    while (k.length < count) {
      const nonce = scalar();
      ecdh.setPrivateKey(nonce.bytes);
      const x = big(ecdh.getPublicKey().subarray(1, 33)) % n;
      if (x === 0n) continue;
      k.push(nonce.value);
      r.push(x.toString(16).padStart(64, '0'));
    }
    // prefix[i] = b·k[0]·…·k[i-1]; one inversion of b·∏k, then each k⁻¹ = prefix[i]·(b·k[0]…k[i])⁻¹.
    const prefix: bigint[] = new Array(count);
    let product = scalar().value;
    for (let i = 0; i < count; i++) {
      prefix[i] = product;
      product = (product * k[i]) % n;
    }
    let running = inverse(product);
    const kInverse: bigint[] = new Array(count);
    for (let i = count - 1; i >= 0; i--) {
      kInverse[i] = (running * prefix[i]) % n;
      running = (running * k[i]) % n;
    }
    parentPort.postMessage({ r, kInverse } satisfies Batch);
  });
}

/** The pool of pairs and the thread that fills it; one per process. */
class NoncePool {
  private worker?: Worker;
  private r: string[] = [];
  private kInverse: bigint[] = [];
  private asked = false;
  /** Set when the thread failed: from then on every signature is OpenSSL's (slower, as correct). */
  private broken = false;
  private readonly scalars = new WeakMap<KeyObject, bigint>();

  /** The base64url ES256 signature (r || s, s in the lower half) of `input`, or undefined when no pair is ready. */
  sign(input: string, key: KeyObject): string | undefined {
    if (this.r.length < LOW_WATER) this.ask();
    const r = this.r.pop();
    if (r === undefined) return undefined;
    const kInverse = this.kInverse.pop()!;
    const z = BigInt(`0x${hash('sha256', input, 'hex')}`);
    let s = (kInverse * ((z + BigInt(`0x${r}`) * this.scalarOf(key)) % P256_N)) % P256_N;
    // s = 0 happens with probability 2^-256; the caller then signs with OpenSSL.
    if (s === 0n) return undefined;
    if (s > HALF_N) s = P256_N - s;
    return Buffer.from(r + s.toString(16).padStart(64, '0'), 'hex').toString('base64url');
  }

  private scalarOf(key: KeyObject): bigint {
    let d = this.scalars.get(key);
    if (d === undefined) {
      d = BigInt(`0x${Buffer.from(key.export({ format: 'jwk' }).d!, 'base64url').toString('hex')}`);
      this.scalars.set(key, d);
    }
    return d;
  }

  private ask(): void {
    if (this.asked || this.broken) return;
    this.asked = true;
    this.started().postMessage(BATCH);
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(`(${nonceThread.toString()})()`, { eval: true, workerData: { n: P256_N } });
    worker.on('message', (batch: Batch) => {
      this.asked = false;
      for (let i = 0; i < batch.r.length; i++) {
        this.r.push(batch.r[i]);
        this.kInverse.push(batch.kInverse[i]);
      }
      if (this.r.length < LOW_WATER) this.ask();
    });
    worker.on('error', () => {
      this.broken = true;
    });
    // Never awaited: without pairs, signing falls back to OpenSSL, so the thread holds nothing open.
    worker.unref();
    this.worker = worker;
    return worker;
  }
}

export const p256Nonces = new NoncePool();
