/**
 * Credentials of git connections (tokens, GitHub App private keys) at rest: AES-256-GCM under a key
 * derived from the store's secret (HKDF, its own `info`, so it never equals the key that hashes API
 * keys or signs session tokens), bound to the app they belong to (the app is the additional
 * authenticated data: a sealed value copied to another app's row does not open). node:crypto for its
 * primitives only; no I/O.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { hkdfSha256 } from '../admin/jwt.js';

/** A new `info` version makes every sealed credential unreadable (they must be connected again). */
export const CREDENTIAL_KEY_INFO = 'tracelake git credentials v1';
const VERSION = 'v1';

function keyOf(secret: Uint8Array): Buffer {
  return hkdfSha256(secret, CREDENTIAL_KEY_INFO, 32);
}

/** `value` as JSON, sealed: `v1.<iv>.<tag>.<ciphertext>` in base64url. */
export function sealCredentials(secret: Uint8Array, boundTo: string, value: unknown): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyOf(secret), iv);
  cipher.setAAD(Buffer.from(boundTo, 'utf8'));
  const body = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
  return [
    VERSION,
    iv.toString('base64url'),
    cipher.getAuthTag().toString('base64url'),
    body.toString('base64url'),
  ].join('.');
}

/**
 * The value `sealed` holds; null when it does not open under this secret for `boundTo` (another
 * secret — after `tracelake secret reset` —, another app, or damaged text).
 */
export function openCredentials(secret: Uint8Array, boundTo: string, sealed: string): unknown {
  const parts = sealed.split('.');
  if (parts.length !== 4 || parts[0] !== VERSION) return null;
  const [, iv, tag, body] = parts as [string, string, string, string];
  try {
    const decipher = createDecipheriv('aes-256-gcm', keyOf(secret), Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(boundTo, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    const text = Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}
