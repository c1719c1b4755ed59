/**
 * Session tokens for tenant admins: compact HS256 JWTs (RFC 7515/7519) signed with
 * a key derived from the store's secret, so that a token never reveals or reuses the key that hashes
 * API keys. Only HS256 is accepted: the algorithm is fixed here, never taken from the token.
 * node:crypto is used for its primitives only (HMAC, HKDF, constant-time compare); nothing here does I/O.
 */
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

export const SESSION_ISSUER = 'tracelake';
/** HKDF `info` of the session signing key; a new version invalidates every token issued before. */
export const SESSION_KEY_INFO = 'tracelake session token v1';
/** The longest lifetime a session token may claim (tokens cannot be revoked one by one). */
export const MAX_SESSION_TTL_SEC = 7 * 24 * 3600;
/** How far in the future `iat` may lie (clock skew between the CLI's machine and the server's). */
const IAT_SKEW_SEC = 60;
/** Longer Authorization values are refused before any work is done on them. */
const MAX_TOKEN_LENGTH = 4096;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

export interface SessionClaims {
  iss: typeof SESSION_ISSUER;
  /** Who the session is for (an e-mail address). */
  sub: string;
  tenant_id: string;
  app_id: string;
  role: 'admin';
  iat: number;
  exp: number;
}

export type JwtResult =
  | { ok: true; header: Record<string, unknown>; payload: Record<string, unknown> }
  | { ok: false; reason: string };
export type SessionResult = { ok: true; claims: SessionClaims } | { ok: false; reason: string };

/** HKDF-SHA256 (RFC 5869) of `ikm`; the salt defaults to empty (RFC 5869: HashLen zero bytes). */
export function hkdfSha256(
  ikm: Uint8Array,
  info: string,
  length: number,
  salt: Uint8Array = new Uint8Array(0),
): Buffer {
  return Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from(info, 'utf8'), length));
}

/** The 32-byte key that signs and checks session tokens, derived from the store's secret. */
export function deriveSessionKey(secret: Uint8Array): Buffer {
  return hkdfSha256(secret, SESSION_KEY_INFO, 32);
}

/** The HS256 signature (base64url) of a JWS signing input `<header>.<payload>`. */
export function hs256(key: Uint8Array, signingInput: string): string {
  return createHmac('sha256', key).update(signingInput, 'ascii').digest('base64url');
}

function encodeJson(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
}

/** A compact JWS of `payload` with header `{alg: HS256, typ: JWT}`. */
export function signJwt(payload: Record<string, unknown>, key: Uint8Array): string {
  const input = `${encodeJson({ alg: 'HS256', typ: 'JWT' })}.${encodeJson(payload)}`;
  return `${input}.${hs256(key, input)}`;
}

/** A JSON object from a base64url segment, or null when the segment is not one. */
function decodeObject(segment: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/**
 * Checks a compact HS256 JWS: shape, signature (constant-time, before anything of the token is
 * parsed), then a header that says HS256 and names no critical extension. Claims are not judged here.
 */
export function verifyJwt(token: string, key: Uint8Array): JwtResult {
  if (token.length > MAX_TOKEN_LENGTH) return { ok: false, reason: 'token too long' };
  const parts = token.split('.');
  if (parts.length !== 3 || !parts.every((p) => BASE64URL.test(p))) return { ok: false, reason: 'not a compact JWS' };
  const [h, p, s] = parts as [string, string, string];
  // Compared as text: a signature must be the canonical encoding, not merely decode to the right bytes.
  const expected = Buffer.from(hs256(key, `${h}.${p}`), 'ascii');
  const given = Buffer.from(s, 'ascii');
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    return { ok: false, reason: 'bad signature' };
  const header = decodeObject(h);
  const payload = decodeObject(p);
  if (!header || !payload) return { ok: false, reason: 'header and payload must be JSON objects' };
  if (header.alg !== 'HS256') return { ok: false, reason: 'alg must be HS256' };
  if (header.typ !== undefined && header.typ !== 'JWT') return { ok: false, reason: 'typ must be JWT' };
  if (header.crit !== undefined) return { ok: false, reason: 'critical header extensions are not supported' };
  return { ok: true, header, payload };
}

/** The claims of a session for `subject` as admin of a tenant's app, valid `ttlSec` from `nowSec`. */
export function sessionClaims(s: {
  tenantId: string;
  appId: string;
  subject: string;
  nowSec: number;
  ttlSec: number;
}): SessionClaims {
  return {
    iss: SESSION_ISSUER,
    sub: s.subject,
    tenant_id: s.tenantId,
    app_id: s.appId,
    role: 'admin',
    iat: s.nowSec,
    exp: s.nowSec + s.ttlSec,
  };
}

export function signSessionToken(claims: SessionClaims, key: Uint8Array): string {
  return signJwt({ ...claims }, key);
}

/**
 * Verifies a session token at `nowSec` (seconds since the epoch) with the derived session key:
 * signature, issuer, role, the tenant and app as lowercase UUIDs, a subject, and a lifetime that has
 * begun, has not ended and is no longer than MAX_SESSION_TTL_SEC.
 */
export function verifySessionToken(token: string, key: Uint8Array, nowSec: number): SessionResult {
  const jws = verifyJwt(token, key);
  if (!jws.ok) return jws;
  const c = jws.payload;
  if (c.iss !== SESSION_ISSUER) return { ok: false, reason: 'wrong issuer' };
  if (c.role !== 'admin') return { ok: false, reason: 'wrong role' };
  if (typeof c.sub !== 'string' || c.sub === '') return { ok: false, reason: 'no subject' };
  if (typeof c.tenant_id !== 'string' || !UUID.test(c.tenant_id))
    return { ok: false, reason: 'tenant_id must be a UUID' };
  if (typeof c.app_id !== 'string' || !UUID.test(c.app_id)) return { ok: false, reason: 'app_id must be a UUID' };
  if (!Number.isSafeInteger(c.iat) || !Number.isSafeInteger(c.exp))
    return { ok: false, reason: 'iat and exp must be integers' };
  const iat = c.iat as number;
  const exp = c.exp as number;
  if (exp <= iat || exp - iat > MAX_SESSION_TTL_SEC) return { ok: false, reason: 'lifetime out of range' };
  if (iat > nowSec + IAT_SKEW_SEC) return { ok: false, reason: 'issued in the future' };
  if (nowSec >= exp) return { ok: false, reason: 'expired' };
  return {
    ok: true,
    claims: { iss: SESSION_ISSUER, sub: c.sub, tenant_id: c.tenant_id, app_id: c.app_id, role: 'admin', iat, exp },
  };
}
