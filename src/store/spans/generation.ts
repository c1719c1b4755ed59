/**
 * A flushed generation as the compute threads report it and the store commits it: its segment
 * files, trace summary parts, resources, blobs and usage.
 */
import type { PartRow } from './traceParts.js';

export interface BlobRecord {
  sha256: string;
  mediaType: string;
  data: Uint8Array;
}

/** Resource attributes and instrumentation scope, stored once (`resources`) and named by rows. */
export interface ResourceRecord {
  /** 64 bits of the SHA-256 of the three: the same resource always gets the same id. */
  id: bigint;
  resource: string | null;
  scopeName: string | null;
  scopeVersion: string | null;
}

export interface GenerationId {
  workerId: string;
  seq: number;
}

export interface SegmentReport {
  key: string;
  tenantId: string;
  appId: string;
  environmentId: string;
  date: string;
  rows: number;
  bytes: number;
  minStartNs: bigint;
  maxStartNs: bigint;
}

/** A flushed generation, for the store to commit in one transaction. */
export interface GenerationReport extends GenerationId {
  /** The log file this generation's rows came from (its name in the log directory). */
  log: string;
  segments: SegmentReport[];
  /** Trace summary parts of the generation's spans, one per trace. */
  parts: PartRow[];
  resources: (ResourceRecord & { tenantId: string; appId: string })[];
  blobs: (BlobRecord & { tenantId: string; appId: string; environmentId: string })[];
  usage: { tenantId: string; spans: number; bytes: number }[];
  /** Request body bytes in the generation. */
  bodyBytes: number;
  /** Records of its log that could not be decoded, and were skipped (none, unless a bug lets one by). */
  skippedRecords: number;
}
