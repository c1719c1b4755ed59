/**
 * The operator credential (TRACELAKE_OPERATOR_TOKEN): one token from the configuration, stored
 * nowhere else, sent as `Authorization: Bearer <token>` to /v1/operator/*. Only it opens those
 * routes — an API key or session token is refused there like any wrong token — and it opens nothing
 * else: auth.ts takes only `sk_service_` keys and session tokens, and the token may not look like a
 * key (config.ts).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { ApiError } from '../core/errors.js';
import { OPERATOR, type Principal } from './principal.js';

/** The operator principal, or 401; 404 when no token is configured (the operator API is off). */
export function authenticateOperator(headers: Readonly<Record<string, string>>, token: string | undefined): Principal {
  if (token === undefined)
    throw new ApiError('not_found', 'The operator API is off: set TRACELAKE_OPERATOR_TOKEN to turn it on');
  const authorization = headers.authorization?.trim();
  if (!authorization)
    throw new ApiError(
      'unauthorized',
      'Missing Authorization header: the operator API takes the operator token (TRACELAKE_OPERATOR_TOKEN)',
    );
  const presented = authorization.replace(/^bearer\s+/i, '');
  if (!sameToken(presented, token)) throw new ApiError('unauthorized', 'Invalid operator token');
  return OPERATOR;
}

/**
 * Constant-time equality: the digests have one length whatever was sent, so the time taken says
 * nothing about the token's content or length.
 */
function sameToken(presented: string, token: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();
  return timingSafeEqual(digest(presented), digest(token));
}
