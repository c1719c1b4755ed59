/**
 * HTTP Basic credentials (RFC 7617) as the Langfuse SDKs send them: `Basic base64(public:secret)`,
 * where Tracelake takes the public key to be the app id and the secret key to be an API key. A
 * client configured for Langfuse then authenticates unchanged (docs/guide/langfuse.md).
 */

/** The app id and key of a Basic Authorization header; null when the header is no Basic one. */
export function basicCredentials(authorization: string | undefined): { appId: string; key: string } | null {
  const basic = /^basic\s+/i.exec(authorization?.trim() ?? '');
  if (!basic) return null;
  const decoded = Buffer.from(authorization!.trim().slice(basic[0].length).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return { appId: '', key: decoded };
  return { appId: decoded.slice(0, colon).trim(), key: decoded.slice(colon + 1).trim() };
}
