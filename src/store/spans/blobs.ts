/**
 * Writing content-addressed blobs: stored once per app (SHA-256 key), referred to per environment
 * (`blob_refs`), so a reader confined to an environment reads the blobs its environment names
 * (reads.ts, readBlob). Span ingestion and eval trial artifacts both store through here.
 */
import { blobValue } from '@duckdb/node-api';
import type { Transaction } from '../db.js';

export interface NewBlob {
  tenantId: string;
  appId: string;
  environmentId: string;
  sha256: string;
  mediaType: string;
  data: Uint8Array;
}

/** Stores `b` unless the app has it already, and refers to it from its environment; true when its bytes were new. */
export async function storeBlob(tx: Transaction, b: NewBlob): Promise<boolean> {
  const inserted = await tx.query(
    `INSERT INTO blobs (tenant_id, app_id, sha256, media_type, bytes, data) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING RETURNING sha256`,
    [b.tenantId, b.appId, b.sha256, b.mediaType, b.data.byteLength, blobValue(b.data)],
  );
  await tx.exec(`INSERT INTO blob_refs (tenant_id, app_id, environment_id, sha256) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`, [b.tenantId, b.appId, b.environmentId, b.sha256]);
  return inserted.length > 0;
}
