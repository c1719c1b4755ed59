/**
 * Durable, idempotent span ingestion with group commit.
 *
 * Batches that arrive while a commit is running wait and are written together in the next
 * transaction (one WAL sync for many requests); each caller is answered only after the transaction
 * that holds its rows has committed. Writes are serialised here, so the idempotency check below
 * cannot race with another ingest: a span already stored (same tenant, app, trace id and span id),
 * or sent twice, is skipped rather than duplicated.
 */
import { blobValue } from '@duckdb/node-api';
import type { BlobRecord } from '../ingest/rows.js';
import type { Database } from './db.js';
import { COLUMN_INDEX, SPAN_COLUMNS, type SpanRow } from './spanColumns.js';
import { PART_KINDS, partsOf } from './traceParts.js';

export interface SpanBatch {
  rows: SpanRow[];
  blobs: BlobRecord[];
  /** Spans one trace may hold in all; rows beyond it are refused. */
  maxSpansPerTrace: number;
}

export interface WriteResult {
  /** Rows stored by this call. */
  stored: number;
  /** Rows that were stored already (a replay) and were skipped. */
  duplicates: number;
  /** Rows refused because their trace reached the bound. */
  overBound: number;
}

interface Pending {
  batch: SpanBatch;
  resolve: (r: WriteResult) => void;
  reject: (e: unknown) => void;
}

const KINDS = SPAN_COLUMNS.map(([, kind]) => kind);
const TENANT = COLUMN_INDEX.tenant_id;
const APP = COLUMN_INDEX.app_id;
const TRACE = COLUMN_INDEX.trace_id;
const SPAN = COLUMN_INDEX.span_id;
/** Trace ids per lookup statement. */
const LOOKUP_CHUNK = 500;

export class SpanWriter {
  private waiting: Pending[] = [];
  private writing = false;

  constructor(private readonly db: Database) {}

  write(batch: SpanBatch): Promise<WriteResult> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ batch, resolve, reject });
      void this.drain();
    });
  }

  private async drain(): Promise<void> {
    if (this.writing) return;
    this.writing = true;
    try {
      while (this.waiting.length > 0) {
        const group = this.waiting.splice(0);
        try {
          const results = await this.commit(group.map((p) => p.batch));
          group.forEach((p, i) => p.resolve(results[i]!));
        } catch (e) {
          group.forEach((p) => p.reject(e));
        }
      }
    } finally {
      this.writing = false;
    }
  }

  private async commit(batches: SpanBatch[]): Promise<WriteResult[]> {
    const stored = await this.existing(batches);
    const results: WriteResult[] = [];
    const rows: SpanRow[] = [];
    const blobs = new Map<string, BlobRecord & { tenantId: string; appId: string }>();
    for (const batch of batches) {
      const result = { stored: 0, duplicates: 0, overBound: 0 };
      for (const row of batch.rows) {
        const trace = traceKey(row);
        const spans = stored.get(trace) ?? new Set<string>();
        stored.set(trace, spans);
        const span = row[SPAN] as string;
        if (spans.has(span)) result.duplicates++;
        else if (spans.size >= batch.maxSpansPerTrace) result.overBound++;
        else {
          spans.add(span);
          rows.push(row);
          result.stored++;
        }
      }
      const [first] = batch.rows;
      if (first && result.stored > 0) {
        for (const b of batch.blobs) blobs.set(`${first[TENANT]}/${first[APP]}/${b.sha256}`, { ...b, tenantId: first[TENANT] as string, appId: first[APP] as string });
      }
      results.push(result);
    }
    if (rows.length === 0 && blobs.size === 0) return results;
    await this.db.transaction(async (tx) => {
      for (const b of blobs.values()) {
        await tx.exec(
          `INSERT INTO blobs (tenant_id, app_id, sha256, media_type, bytes, data) VALUES ($1, $2, $3, $4, $5, $6)
           ON CONFLICT DO NOTHING`,
          [b.tenantId, b.appId, b.sha256, b.mediaType, b.data.byteLength, blobValue(b.data)],
        );
      }
      if (rows.length > 0) {
        await tx.append('spans', KINDS, rows);
        await tx.append('trace_parts', PART_KINDS, partsOf(rows));
      }
    });
    return results;
  }

  /** Span ids already stored for every trace the batches touch, keyed by tenant/app/trace. */
  private async existing(batches: SpanBatch[]): Promise<Map<string, Set<string>>> {
    const byApp = new Map<string, Set<string>>();
    for (const b of batches) {
      for (const row of b.rows) {
        const app = `${row[TENANT]}/${row[APP]}`;
        const traces = byApp.get(app) ?? new Set<string>();
        traces.add(row[TRACE] as string);
        byApp.set(app, traces);
      }
    }
    const found = new Map<string, Set<string>>();
    for (const [app, traces] of byApp) {
      const [tenantId, appId] = app.split('/') as [string, string];
      const ids = [...traces];
      for (let i = 0; i < ids.length; i += LOOKUP_CHUNK) {
        const chunk = ids.slice(i, i + LOOKUP_CHUNK);
        const placeholders = chunk.map((_, k) => `$${k + 3}`).join(', ');
        const rows = await this.db.query<{ trace_id: string; span_id: string }>(
          `SELECT trace_id, span_id FROM spans WHERE tenant_id = $1 AND app_id = $2 AND trace_id IN (${placeholders})`,
          [tenantId, appId, ...chunk],
        );
        for (const r of rows) {
          const key = `${tenantId}/${appId}/${r.trace_id}`;
          const spans = found.get(key) ?? new Set<string>();
          spans.add(r.span_id);
          found.set(key, spans);
        }
      }
    }
    return found;
  }
}

function traceKey(row: SpanRow): string {
  return `${row[TENANT]}/${row[APP]}/${row[TRACE]}`;
}
