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
import { monthOf, quotaRefusal, type Plan, type QuotaRefusal } from '../../core/plans.js';
import type { BlobRecord } from '../../ingest/rows.js';
import type { Database } from '../db.js';
import { COLUMN_INDEX, SPAN_COLUMNS, type SpanRow } from './columns.js';
import { PART_KINDS, partsOf } from './traceParts.js';

export interface SpanBatch {
  rows: SpanRow[];
  blobs: BlobRecord[];
  /** Spans one trace may hold in all; rows beyond it are refused. */
  maxSpansPerTrace: number;
  /** The tenant's plan, when it has quotas; a batch that would pass them is refused whole. */
  plan: Plan | null;
}

export interface WriteResult {
  /** Rows stored by this call. */
  stored: number;
  /** Rows that were stored already (a replay) and were skipped. */
  duplicates: number;
  /** Rows refused because their trace reached the bound. */
  overBound: number;
  /** Set when the whole batch was refused by the plan's quota (nothing of it stored). */
  refused: QuotaRefusal | null;
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
    const usage = await this.usage(batches);
    const results: WriteResult[] = [];
    const rows: SpanRow[] = [];
    const blobs = new Map<string, BlobRecord & { tenantId: string; appId: string }>();
    const deltas = new Map<string, { spans: number; bytes: number }>();
    for (const batch of batches) {
      const result: WriteResult = { stored: 0, duplicates: 0, overBound: 0, refused: null };
      const accepted: SpanRow[] = [];
      const added = new Map<string, Set<string>>();
      for (const row of batch.rows) {
        const trace = traceKey(row);
        const spans = stored.get(trace) ?? new Set<string>();
        const mine = added.get(trace) ?? new Set<string>();
        added.set(trace, mine);
        const span = row[SPAN] as string;
        if (spans.has(span) || mine.has(span)) result.duplicates++;
        else if (spans.size + mine.size >= batch.maxSpansPerTrace) result.overBound++;
        else {
          mine.add(span);
          accepted.push(row);
        }
      }
      const [first] = batch.rows;
      const tenant = first ? (first[TENANT] as string) : '';
      const bytes = accepted.reduce((n, r) => n + rowBytes(r), 0) + batch.blobs.reduce((n, b) => n + b.data.byteLength, 0);
      const used = usage.get(tenant) ?? { monthSpans: 0, storedBytes: 0 };
      result.refused = accepted.length > 0 && batch.plan ? quotaRefusal(batch.plan, used, accepted.length, bytes) : null;
      if (result.refused === null && accepted.length > 0) {
        // Only now do the batch's spans count as stored, for the batches after it in this group.
        for (const [trace, mine] of added) {
          const spans = stored.get(trace) ?? new Set<string>();
          for (const span of mine) spans.add(span);
          stored.set(trace, spans);
        }
        rows.push(...accepted);
        result.stored = accepted.length;
        usage.set(tenant, { monthSpans: used.monthSpans + accepted.length, storedBytes: used.storedBytes + bytes });
        const delta = deltas.get(tenant) ?? { spans: 0, bytes: 0 };
        delta.spans += accepted.length;
        delta.bytes += bytes;
        deltas.set(tenant, delta);
        for (const b of batch.blobs) blobs.set(`${tenant}/${first![APP]}/${b.sha256}`, { ...b, tenantId: tenant, appId: first![APP] as string });
      }
      results.push(result);
    }
    if (rows.length === 0 && blobs.size === 0) return results;
    const month = monthOf(Date.now());
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
      for (const [tenant, d] of deltas) {
        await tx.exec(
          `INSERT INTO tenant_usage (tenant_id, month, spans, bytes) VALUES ($1, $2, $3, $4)
           ON CONFLICT (tenant_id, month) DO UPDATE SET spans = spans + excluded.spans, bytes = bytes + excluded.bytes`,
          [tenant, month, d.spans, d.bytes],
        );
      }
    });
    return results;
  }

  /** Spans stored this month and bytes stored in all, per tenant of the batches that have a plan. */
  private async usage(batches: SpanBatch[]): Promise<Map<string, { monthSpans: number; storedBytes: number }>> {
    const tenants = [...new Set(batches.filter((b) => b.plan && b.rows.length > 0).map((b) => b.rows[0]![TENANT] as string))];
    const usage = new Map<string, { monthSpans: number; storedBytes: number }>();
    if (tenants.length === 0) return usage;
    const rows = await this.db.query<{ tenant_id: string; month_spans: number; bytes: number }>(
      `SELECT tenant_id, (coalesce(sum(spans) FILTER (WHERE month = $1), 0))::DOUBLE AS month_spans, sum(bytes)::DOUBLE AS bytes
         FROM tenant_usage WHERE tenant_id IN (${tenants.map((_, i) => `$${i + 2}`).join(', ')}) GROUP BY tenant_id`,
      [monthOf(Date.now()), ...tenants],
    );
    for (const r of rows) usage.set(r.tenant_id, { monthSpans: r.month_spans, storedBytes: r.bytes });
    return usage;
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

/**
 * What a row costs against a storage cap: its large text fields plus a fixed share for the rest.
 * An estimate (DuckDB compresses), kept the same as the backfill of migration 4.
 */
export function rowBytes(row: SpanRow): number {
  let n = ROW_OVERHEAD_BYTES;
  for (const i of SIZED_COLUMNS) {
    const v = row[i];
    if (typeof v === 'string') n += v.length;
  }
  return n;
}

export const ROW_OVERHEAD_BYTES = 200;
const SIZED_COLUMNS = [COLUMN_INDEX.input, COLUMN_INDEX.output, COLUMN_INDEX.attributes, COLUMN_INDEX.metadata];

function traceKey(row: SpanRow): string {
  return `${row[TENANT]}/${row[APP]}/${row[TRACE]}`;
}
