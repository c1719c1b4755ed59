/**
 * Writing content-addressed blobs: stored once per app (SHA-256 key), referred to per environment
 * (`blob_refs`), so a reader confined to an environment reads the blobs its environment names
 * (reads.ts, readBlob). Span ingestion and eval trial artifacts both store through here.
 */
import { listValue } from '../duckdb.js';
import type { Transaction } from '../db.js';

export interface NewBlob {
  tenantId: string;
  appId: string;
  environmentId: string;
  sha256: string;
  mediaType: string;
  data: Uint8Array;
}

/**
 * Stores the blobs an app does not have yet and refers to each from its environment, in two
 * statements whatever their number (a statement costs milliseconds; a batch of trials brings a
 * thousand blobs). Returns how many blobs were new.
 */
export async function storeBlobs(tx: Transaction, blobs: readonly NewBlob[]): Promise<number> {
  if (blobs.length === 0) return 0;
  // One row per key in a statement: ON CONFLICT does not cover two new rows with the same key.
  const perApp = [...new Map(blobs.map((b) => [`${b.tenantId}/${b.appId}/${b.sha256}`, b])).values()];
  const perEnvironment = [
    ...new Map(blobs.map((b) => [`${b.tenantId}/${b.appId}/${b.environmentId}/${b.sha256}`, b])).values(),
  ];
  const column = <T extends string | number>(rows: readonly NewBlob[], f: (b: NewBlob) => T) => listValue(rows.map(f));
  const inserted = await tx.query(
    `INSERT INTO blobs (tenant_id, app_id, sha256, media_type, bytes, data)
     SELECT unnest($1::UUID[]), unnest($2::UUID[]), unnest($3::VARCHAR[]), unnest($4::VARCHAR[]), unnest($5::BIGINT[]), from_base64(unnest($6::VARCHAR[]))
     ON CONFLICT DO NOTHING RETURNING sha256`,
    [
      column(perApp, (b) => b.tenantId),
      column(perApp, (b) => b.appId),
      column(perApp, (b) => b.sha256),
      column(perApp, (b) => b.mediaType),
      column(perApp, (b) => b.data.byteLength),
      column(perApp, (b) => Buffer.from(b.data.buffer, b.data.byteOffset, b.data.byteLength).toString('base64')),
    ],
  );
  await tx.exec(
    `INSERT INTO blob_refs (tenant_id, app_id, environment_id, sha256)
     SELECT unnest($1::UUID[]), unnest($2::UUID[]), unnest($3::UUID[]), unnest($4::VARCHAR[]) ON CONFLICT DO NOTHING`,
    [
      column(perEnvironment, (b) => b.tenantId),
      column(perEnvironment, (b) => b.appId),
      column(perEnvironment, (b) => b.environmentId),
      column(perEnvironment, (b) => b.sha256),
    ],
  );
  return inserted.length;
}
