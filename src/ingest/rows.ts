/**
 * Mapped spans → rows for the span table, with large fields and media moved out of line.
 *
 * An input or output longer than the inline threshold is stored whole as a content-addressed blob
 * (SHA-256) and the row keeps a preview and the reference; it is never truncated. Media objects of
 * the shape `{mimeType | mediaType, base64}` are decoded and stored as blobs of their own media type,
 * and the text keeps `{mimeType, sha256, bytes}` in their place.
 */
import { createHash } from 'node:crypto';
import type { JsonValue, SpanRecord } from '../core/span.js';
import type { Scope } from '../store/admin/meta.js';
import type { SpanRow } from '../store/spans/columns.js';

export const INLINE_LIMIT_BYTES = 8 * 1024;
export const PREVIEW_CHARS = 500;
const MAX_MEDIA_DEPTH = 64;

export interface BlobRecord {
  sha256: string;
  mediaType: string;
  data: Uint8Array;
}

export interface RowBatch {
  rows: SpanRow[];
  blobs: BlobRecord[];
}

export function toRows(scope: Scope, spans: readonly SpanRecord[], inlineLimit = INLINE_LIMIT_BYTES): RowBatch {
  const blobs = new Map<string, BlobRecord>();
  const keep = (b: BlobRecord) => void blobs.set(b.sha256, b);
  const rows = spans.map((s) => {
    const input = outOfLine(s.input, inlineLimit, keep);
    const output = outOfLine(s.output, inlineLimit, keep);
    return [
      scope.tenantId, scope.appId, scope.environmentId,
      s.traceId, s.spanId, s.parentId, s.name, s.type, s.spanKind, s.status, s.statusMessage,
      s.startNs, s.endNs, s.model, s.promptName, s.serviceName,
      int(s.inputTokens), int(s.outputTokens), int(s.cachedInputTokens), int(s.tokens), s.cost,
      input.preview, output.preview, input.inline, output.inline, input.ref, output.ref,
      s.sessionId, s.userId, s.runId, s.tags,
      json(s.metadata), json(s.graph), json(s.attributes), json(s.resource),
      s.scope.name, s.scope.version,
    ] satisfies SpanRow;
  });
  return { rows, blobs: [...blobs.values()] };
}

function int(n: number | null): number | null {
  return n === null || !Number.isFinite(n) ? null : Math.max(-2147483648, Math.min(2147483647, Math.trunc(n)));
}

function json(v: Record<string, JsonValue>): string | null {
  for (const _ in v) return JSON.stringify(v);
  return null;
}

interface Field {
  preview: string | null;
  inline: string | null;
  ref: string | null;
}

function outOfLine(text: string | null, limit: number, keep: (b: BlobRecord) => void): Field {
  if (text === null) return { preview: null, inline: null, ref: null };
  const stored = extractMedia(text, keep);
  const preview = stored.length > PREVIEW_CHARS ? stored.slice(0, PREVIEW_CHARS) : stored;
  const bytes = Buffer.byteLength(stored, 'utf8');
  if (bytes <= limit) return { preview, inline: stored, ref: null };
  const data = Buffer.from(stored, 'utf8');
  const blob = { sha256: sha256(data), mediaType: looksLikeJson(stored) ? 'application/json' : 'text/plain; charset=utf-8', data };
  keep(blob);
  return { preview, inline: null, ref: blob.sha256 };
}

/** Replaces `{mimeType|mediaType, base64}` objects in JSON text by blob references. */
export function extractMedia(text: string, keep: (b: BlobRecord) => void): string {
  if (!text.includes('base64') || !looksLikeJson(text)) return text;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return text;
  }
  let found = false;
  const walk = (v: unknown, depth: number): unknown => {
    if (depth > MAX_MEDIA_DEPTH || typeof v !== 'object' || v === null) return v;
    if (Array.isArray(v)) return v.map((x) => walk(x, depth + 1));
    const o = v as Record<string, unknown>;
    const type = typeof o.mimeType === 'string' ? o.mimeType : typeof o.mediaType === 'string' ? o.mediaType : undefined;
    if (type !== undefined && typeof o.base64 === 'string') {
      const data = Buffer.from(o.base64, 'base64');
      const blob = { sha256: sha256(data), mediaType: type, data };
      keep(blob);
      found = true;
      const { base64: _dropped, ...rest } = o;
      return { ...rest, sha256: blob.sha256, bytes: data.length };
    }
    const out: Record<string, unknown> = Object.create(null);
    for (const [k, x] of Object.entries(o)) out[k] = walk(x, depth + 1);
    return out;
  };
  const replaced = walk(parsed, 0);
  return found ? JSON.stringify(replaced) : text;
}

function looksLikeJson(text: string): boolean {
  const c = text.trimStart()[0];
  return c === '{' || c === '[';
}

export function sha256(data: Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}
