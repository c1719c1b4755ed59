/**
 * API key material. A key is `sk_service_` + 43 base62 characters (256 random bits). Only an
 * HMAC-SHA256 of it under the store's secret is kept, so a copy of the database alone cannot be used
 * to check guesses offline; comparison of hashes is constant-time.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const KEY_PREFIX = 'sk_service_';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** Characters of a key shown in listings (docs/decisions.md, "Auth"). */
export const SHOWN_PREFIX_LENGTH = 12;

function base62(bytes: Buffer): string {
  let n = BigInt('0x' + bytes.toString('hex'));
  let out = '';
  while (n > 0n) {
    out = BASE62[Number(n % 62n)]! + out;
    n /= 62n;
  }
  return out.padStart(Math.ceil((bytes.length * 8) / Math.log2(62)), '0');
}

export function generateKey(): string {
  return KEY_PREFIX + base62(randomBytes(32));
}

/** Whether `key` has the shape of a Tracelake key (used for the bootstrap key setting). */
export function isWellFormedKey(key: string): boolean {
  return new RegExp(`^${KEY_PREFIX}[0-9A-Za-z]{32,128}$`).test(key);
}

export function hashKey(secret: Buffer, key: string): string {
  return createHmac('sha256', secret).update(key, 'utf8').digest('hex');
}

export function shownPrefix(key: string): string {
  return key.slice(0, SHOWN_PREFIX_LENGTH);
}

/** Constant-time equality of two hex hashes. */
export function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}
