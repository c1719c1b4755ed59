/**
 * Blobs of a sync request (spec: Blob): `data` is base64 of exactly `bytes` bytes whose SHA-256 is
 * `sha256`; anything else refuses that blob alone. node:crypto is used for SHA-256 only.
 */
import { createHash } from 'node:crypto';
import type { AgentBlob } from './session.js';

export type BlobCheck = { ok: true; data: Uint8Array } | { ok: false; reason: string };

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export function checkBlob(blob: AgentBlob): BlobCheck {
  const text = blob.data.replace(/\s+/g, '');
  if (text.length % 4 !== 0 || !BASE64.test(text)) return { ok: false, reason: 'data is not base64' };
  const data = Buffer.from(text, 'base64');
  if (data.length !== blob.bytes)
    return { ok: false, reason: `bytes is ${blob.bytes} but data decodes to ${data.length} bytes` };
  const digest = sha256Hex(data);
  if (digest !== blob.sha256) return { ok: false, reason: `sha256 does not match the data (its SHA-256 is ${digest})` };
  return { ok: true, data };
}

export function sha256Hex(data: Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}
