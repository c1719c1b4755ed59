/**
 * The blobs a reader finds (images pasted or read, large tool outputs), each kept once by its
 * SHA-256, and the content parts that name them.
 */
import { sha256Hex } from '../blobs.js';
import type { AgentBlob, BlobPart, ContentPart } from '../session.js';

/** Text parts longer than this (UTF-8 bytes) are sent as text blobs rather than inline. */
export const INLINE_TEXT_BYTES = 64 * 1024;

export class BlobBag {
  readonly blobs = new Map<string, AgentBlob>();

  /** A part naming the bytes, kept as a blob. */
  add(mediaType: string, data: Uint8Array, name?: string): BlobPart {
    const sha256 = sha256Hex(data);
    if (!this.blobs.has(sha256))
      this.blobs.set(sha256, { sha256, mediaType, bytes: data.length, data: Buffer.from(data).toString('base64') });
    return { type: 'blob', sha256, mediaType, bytes: data.length, ...(name ? { name } : {}) };
  }

  /** Base64 media as a part; undefined when `data` is not base64 of anything. */
  addBase64(mediaType: string, base64: string): BlobPart | undefined {
    const data = Buffer.from(base64, 'base64');
    return data.length === 0 ? undefined : this.add(mediaType, data);
  }

  /** A text part, or a text blob when the text is large. */
  text(text: string): ContentPart {
    const data = Buffer.from(text, 'utf8');
    return data.length > INLINE_TEXT_BYTES ? this.add('text/plain; charset=utf-8', data) : { type: 'text', text };
  }

  /** The blobs the parts name (those this bag holds). */
  of(parts: readonly ContentPart[]): AgentBlob[] {
    return parts.flatMap((p) => (p.type === 'blob' && this.blobs.has(p.sha256) ? [this.blobs.get(p.sha256)!] : []));
  }
}
