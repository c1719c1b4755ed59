/**
 * Mapped spans → rows for the span table, with large fields and media moved out of line.
 *
 * An input or output longer than the inline threshold is stored whole as a content-addressed blob
 * (SHA-256) and the row keeps a preview and the reference; it is never truncated. Media objects of
 * the shape `{mimeType | mediaType, base64}` are decoded and stored as blobs of their own media type,
 * and the text keeps `{mimeType, sha256, bytes}` in their place.
 */
import { createHash } from 'node:crypto';
import { storableCost } from '../core/cost/money.js';
import { mediaTypeOf, rewriteJsonObjects } from '../core/media.js';
import type { JsonValue, SpanRecord } from '../core/span.js';
import { leadingChars } from '../core/text.js';
import type { Scope } from '../store/admin/meta.js';
import { storedAttributes } from '../store/spans/attributeColumns.js';
import { COLUMN_INDEX, PREVIEW_CHARS, type SpanRow } from '../store/spans/columns.js';

export const INLINE_LIMIT_BYTES = 8 * 1024;

import type { BlobRecord, ResourceRecord } from '../store/spans/generation.js';

export type { BlobRecord, ResourceRecord };

export interface RowBatch {
  rows: SpanRow[];
  blobs: BlobRecord[];
  resources: ResourceRecord[];
}

export function toRows(scope: Scope, spans: readonly SpanRecord[], inlineLimit = INLINE_LIMIT_BYTES): RowBatch {
  const blobs = new Map<string, BlobRecord>();
  const keep = (b: BlobRecord) => void blobs.set(b.sha256, b);
  // The mapper shares one scope object among the spans of a scopeSpans (and one resource among its
  // scopes): the resource's id is computed once per scope object.
  const resources = new Map<SpanRecord['scope'], ResourceRecord>();
  const resourceOf = (s: SpanRecord): ResourceRecord => {
    let r = resources.get(s.scope);
    if (!r) resources.set(s.scope, (r = resourceRecord(s)));
    return r;
  };
  const rows = spans.map((s) => {
    const input = outOfLine(s.input, inlineLimit, keep);
    const output = outOfLine(s.output, inlineLimit, keep);
    const row: SpanRow = [
      scope.tenantId,
      scope.appId,
      scope.environmentId,
      s.traceId,
      s.spanId,
      s.parentId,
      s.name,
      s.type,
      s.spanKind,
      s.status,
      s.statusMessage,
      s.startNs,
      s.endNs,
      s.model,
      s.promptName,
      s.serviceName,
      int(s.inputTokens),
      int(s.outputTokens),
      int(s.cachedInputTokens),
      int(s.tokens),
      storableCost(s.cost),
      input.preview,
      output.preview,
      input.inline,
      output.inline,
      input.ref,
      output.ref,
      s.sessionId,
      s.userId,
      s.runId,
      s.tags,
      json(s.metadata),
      json(s.graph),
      null,
      resourceOf(s).id,
      null,
    ];
    // After the other columns: an attribute is left out only when its column holds the same value.
    const attributes = storedAttributes(s.attributes, row);
    row[COLUMN_INDEX.attributes] = attributes.json;
    row[COLUMN_INDEX.attributes_in_columns] = attributes.inColumns;
    return row;
  });
  return { rows, blobs: [...blobs.values()], resources: dedupeResources(resources.values()) };
}

function resourceRecord(s: SpanRecord): ResourceRecord {
  const resource = json(s.resource);
  const digest = createHash('sha256')
    .update(`${resource ?? ''}\u0000${s.scope.name ?? ''}\u0000${s.scope.version ?? ''}`)
    .digest();
  return { id: digest.readBigUInt64BE(0), resource, scopeName: s.scope.name, scopeVersion: s.scope.version };
}

function dedupeResources(records: Iterable<ResourceRecord>): ResourceRecord[] {
  const byId = new Map<bigint, ResourceRecord>();
  for (const r of records) byId.set(r.id, r);
  return [...byId.values()];
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

/**
 * The text as stored: inline when small (the preview is then derived when read), else a blob
 * reference with a preview of its own.
 */
function outOfLine(text: string | null, limit: number, keep: (b: BlobRecord) => void): Field {
  if (text === null) return { preview: null, inline: null, ref: null };
  const stored = extractMedia(text, keep);
  const bytes = Buffer.byteLength(stored, 'utf8');
  if (bytes <= limit) return { preview: null, inline: stored, ref: null };
  const preview = leadingChars(stored, PREVIEW_CHARS);
  const data = Buffer.from(stored, 'utf8');
  const blob = {
    sha256: sha256(data),
    mediaType: looksLikeJson(stored) ? 'application/json' : 'text/plain; charset=utf-8',
    data,
  };
  keep(blob);
  return { preview, inline: null, ref: blob.sha256 };
}

/** Replaces `{mimeType|mediaType, base64}` objects in JSON text by blob references (core/media.ts). */
export function extractMedia(text: string, keep: (b: BlobRecord) => void): string {
  if (!text.includes('base64')) return text;
  return rewriteJsonObjects(text, (o) => {
    const type = mediaTypeOf(o);
    if (type === undefined || typeof o.base64 !== 'string') return undefined;
    const data = Buffer.from(o.base64, 'base64');
    const blob = { sha256: sha256(data), mediaType: type, data };
    keep(blob);
    const { base64: _dropped, ...rest } = o;
    return { ...rest, sha256: blob.sha256, bytes: data.length };
  });
}

function looksLikeJson(text: string): boolean {
  const c = text.trimStart()[0];
  return c === '{' || c === '[';
}

export function sha256(data: Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}
