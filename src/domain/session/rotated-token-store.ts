import { type Chain, chainToArray } from './chain.js';

/**
 * The tokens a grant's rotations replaced, oldest first, each a record of 24 characters: the
 * last 16 characters of its hash (a hash ends with its SHA-256 in base64url: 94 bits of it,
 * where the hash's start is a time stamp anyone holding the token can read; a shorter hash is
 * led by dots) and its expiry in 8 hex digits. Records fill chunks of 16: the full ones newest
 * first, each one string, then the open one, which appends leave in parts (and each part holds
 * on to the hash it came from) until it is full. A rotated token costs the session about 28
 * bytes once its chunk is full, where an object per token cost about 220; a session that
 * rotates every few minutes keeps thousands of them until they expire.
 */
export interface Rotated {
  readonly full: Chain<string> | null;
  readonly open: string;
}

export const KEY_LENGTH = 16;
export const RECORD_LENGTH = 24;
export const CHUNK_LENGTH = 16 * RECORD_LENGTH;
export const NO_ROTATED: Rotated = { full: null, open: '' };

export function rotatedKey(hash: string): string {
  return hash.slice(-KEY_LENGTH).padStart(KEY_LENGTH, '.');
}

export function rotatedRecord(hash: string, expiresAt: number): string {
  return rotatedKey(hash) + Math.min(Math.max(expiresAt, 0), 0xffffffff).toString(16).padStart(8, '0');
}

/** A copy held in one piece: appends leave a string of many small parts, each with its own header. */
function flat(s: string): string {
  return Buffer.from(s, 'latin1').toString('latin1');
}

export function withRotated(r: Rotated, record: string): Rotated {
  const open = r.open + record;
  return open.length < CHUNK_LENGTH ? { full: r.full, open } : { full: { item: flat(open), next: r.full }, open: '' };
}

/** Records (oldest first, concatenated) packed as folding them one by one would. */
export function packRotated(records: string): Rotated {
  let full: Chain<string> | null = null;
  let at = 0;
  for (; at + CHUNK_LENGTH <= records.length; at += CHUNK_LENGTH) full = { item: records.slice(at, at + CHUNK_LENGTH), next: full };
  return { full, open: records.slice(at) };
}

/** Every record, oldest first, concatenated. */
export function rotatedRecords(r: Rotated): string {
  return [...chainToArray(r.full).reverse(), r.open].join('');
}

/** Each record's key and expiry, oldest first. */
export function* rotatedEntries(r: Rotated): Generator<{ record: string; key: string; expiresAt: number }> {
  const all = rotatedRecords(r);
  for (let i = 0; i < all.length; i += RECORD_LENGTH) {
    const record = all.slice(i, i + RECORD_LENGTH);
    yield { record, key: record.slice(0, KEY_LENGTH), expiresAt: parseInt(record.slice(KEY_LENGTH), 16) };
  }
}

/** The expiry recorded in `chunk` for the key, if a record there has it. */
function expiryIn(chunk: string, key: string): number | undefined {
  for (let i = chunk.indexOf(key); i !== -1; i = chunk.indexOf(key, i + 1)) {
    if (i % RECORD_LENGTH === 0) return parseInt(chunk.slice(i + KEY_LENGTH, i + RECORD_LENGTH), 16);
  }
  return undefined;
}

/** The expiry of the rotated token `hash`, if the grant's rotations replaced it. */
export function findRotated(r: Rotated, hash: string): number | undefined {
  const key = rotatedKey(hash);
  let found = expiryIn(r.open, key);
  for (let link = r.full; found === undefined && link; link = link.next) found = expiryIn(link.item, key);
  return found;
}
