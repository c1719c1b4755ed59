/**
 * Media in span inputs and outputs. At ingestion an object `{mimeType | mediaType, base64, …}` in
 * JSON text is stored as a blob and replaced by `{…, sha256, bytes}` (ingest/rows.ts); when one span
 * is opened the references are turned back into the media (spec: large fields including base64
 * media are stored in full and fetched when a span is opened). Pure: the caller fetches the blobs.
 */

/** Nesting beyond this is left as it is (the decoder caps depth at 64 too). */
const MAX_DEPTH = 64;

type JsonObject = Record<string, unknown>;

/** The media type of a media object (either spelling), or undefined. */
export function mediaTypeOf(o: JsonObject): string | undefined {
  return typeof o.mimeType === 'string' ? o.mimeType : typeof o.mediaType === 'string' ? o.mediaType : undefined;
}

/**
 * Rewrites the JSON in `text`: every object `replace` answers for is replaced by that answer (and
 * not walked into). The text comes back untouched — not re-serialised — when nothing was replaced
 * or it is not JSON.
 */
export function rewriteJsonObjects(text: string, replace: (o: JsonObject) => JsonObject | undefined): string {
  const c = text.trimStart()[0];
  if (c !== '{' && c !== '[') return text;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return text;
  }
  let found = false;
  const walk = (v: unknown, depth: number): unknown => {
    if (depth > MAX_DEPTH || typeof v !== 'object' || v === null) return v;
    if (Array.isArray(v)) return v.map((x) => walk(x, depth + 1));
    const o = v as JsonObject;
    const replaced = replace(o);
    if (replaced !== undefined) {
      found = true;
      return replaced;
    }
    // A null-prototype copy: a key named __proto__ stays data.
    const out: JsonObject = Object.create(null);
    for (const [k, x] of Object.entries(o)) out[k] = walk(x, depth + 1);
    return out;
  };
  const result = walk(parsed, 0);
  return found ? JSON.stringify(result) : text;
}

/** A reference left by ingestion: a media type, `sha256` and `bytes`, and no `base64`. */
function referenceOf(o: JsonObject): { sha256: string; bytes: number } | undefined {
  if (mediaTypeOf(o) === undefined || typeof o.sha256 !== 'string' || typeof o.bytes !== 'number' || 'base64' in o)
    return undefined;
  return { sha256: o.sha256, bytes: o.bytes };
}

/** The SHA-256 of every media reference in `text`, once each. */
export function mediaReferences(text: string): string[] {
  if (!text.includes('sha256')) return [];
  const found = new Set<string>();
  rewriteJsonObjects(text, (o) => {
    const ref = referenceOf(o);
    if (ref) found.add(ref.sha256);
    return undefined;
  });
  return [...found];
}

/**
 * Puts the media back: each reference whose blob is in `blobs` (and has the length the reference
 * says) becomes `{…, base64}` again; the others stay references.
 */
export function restoreMedia(text: string, blobs: ReadonlyMap<string, Uint8Array>): string {
  if (blobs.size === 0) return text;
  return rewriteJsonObjects(text, (o) => {
    const ref = referenceOf(o);
    const data = ref && blobs.get(ref.sha256);
    if (!data || data.length !== ref.bytes) return undefined;
    const { sha256: _sha, bytes: _bytes, ...rest } = o;
    return { ...rest, base64: Buffer.from(data).toString('base64') };
  });
}

/** Media types a browser shows without running anything in them: served inline. */
const PASSIVE_MEDIA =
  /^(image\/(png|jpeg|gif|webp|avif|bmp)|audio\/[\w.+-]+|video\/[\w.+-]+|text\/plain|application\/(json|octet-stream))$/;

/**
 * The headers a stored blob is served with. A blob's type is the uploader's word: an HTML or SVG
 * blob opened from the gateway's origin would run its scripts there, with a signed-in user's access.
 * So the browser may not sniff another type, the bytes run in a sandbox with nothing to load, and
 * anything but passive media is a download.
 */
export function blobHeaders(mediaType: string): Record<string, string> {
  const essence = mediaType.split(';')[0]!.trim().toLowerCase();
  return {
    'X-Content-Type-Options': 'nosniff',
    'Content-Security-Policy': "default-src 'none'; sandbox",
    ...(PASSIVE_MEDIA.test(essence) ? {} : { 'Content-Disposition': 'attachment' }),
  };
}
