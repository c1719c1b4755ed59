/**
 * Entity tags of cached answers (RFC 9110 §8.8.3, §13.1.2): a strong tag from the body's bytes, and
 * the `If-None-Match` test that turns a fetch of an unchanged prompt into a 304 without a body.
 */
import { createHash } from 'node:crypto';

/** A strong entity tag of `body`: 128 bits of its SHA-256. */
export function etagOf(body: Uint8Array | string): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
}

/**
 * Whether an `If-None-Match` header value matches `etag`: `*`, or a list holding it. The weak
 * comparison applies (a `W/` prefix is ignored), as RFC 9110 asks for If-None-Match.
 */
export function noneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  const opaque = etag.replace(/^W\//, '');
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === opaque);
}
