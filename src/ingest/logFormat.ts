/**
 * Records of the ingest log: what a 2xx to `POST /v1/traces` promises is durable. One record per
 * accepted request: a small JSON header (whose request it was, how to decode it, which of its spans
 * admission refused) and the body exactly as it arrived.
 *
 *   magic "TLR1" | u32 length of the rest | u32 CRC-32 of the rest | u32 header length | header | body
 *
 * A crash can leave the last record half-written; reading stops at the first record whose length,
 * magic or checksum does not hold, and says how many bytes it left.
 * Log files are named by worker and generation (`logName`).
 */
import { crc32 } from 'node:zlib';

export interface LogHeader {
  tenantId: string;
  appId: string;
  environmentId: string;
  /** OTLP (`protobuf`, `json`), or a coding-agent sync batch as stored (`agents`, ingest/agentsBatch.ts). */
  encoding: 'protobuf' | 'json' | 'agents';
  contentEncoding: string | null;
  /** The per-trace bound the request was mapped with: replaying maps it the same way. */
  maxSpansPerTrace: number;
  /** Rows (in mapping order) that admission refused: replaying the record drops them again. */
  drop: number[];
  receivedAtMs: number;
  /**
   * What the kept rows count against a storage cap (estimated from the body by the main thread,
   * which does not map it; `estimateRowBytes`). Absent in records of older versions: the rows' own
   * weight is used then.
   */
  bytes?: number;
}

export interface LogRecord {
  header: LogHeader;
  body: Uint8Array;
}

const MAGIC = 0x544c5231; // "TLR1"
const PREFIX = 16;

/** The bytes of one record, as the buffers to write in order (the body is not copied). */
export function encodeRecord(header: LogHeader, body: Uint8Array): Buffer[] {
  const head = Buffer.from(JSON.stringify(header), 'utf8');
  const prefix = Buffer.alloc(PREFIX);
  const rest = 4 + head.length + body.length;
  prefix.writeUInt32BE(MAGIC, 0);
  prefix.writeUInt32BE(rest, 4);
  prefix.writeUInt32BE(head.length, 12);
  let crc = crc32(prefix.subarray(12, 16));
  crc = crc32(head, crc);
  crc = crc32(body, crc);
  prefix.writeUInt32BE(crc, 8);
  return [prefix, head, Buffer.from(body.buffer, body.byteOffset, body.byteLength)];
}

export interface DecodedLog {
  records: LogRecord[];
  /** Bytes after the last whole record (a torn write, or damage): not replayed. */
  discardedBytes: number;
}

export function decodeLog(bytes: Uint8Array): DecodedLog {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const records: LogRecord[] = [];
  let at = 0;
  while (at + PREFIX <= buf.length) {
    if (buf.readUInt32BE(at) !== MAGIC) break;
    const rest = buf.readUInt32BE(at + 4);
    const headLength = buf.readUInt32BE(at + 12);
    const end = at + 12 + rest;
    if (rest < 4 || end > buf.length || headLength > rest - 4) break;
    const checked = buf.subarray(at + 12, end);
    if (crc32(checked) !== buf.readUInt32BE(at + 8)) break;
    let header: LogHeader;
    try {
      header = JSON.parse(buf.subarray(at + PREFIX, at + PREFIX + headLength).toString('utf8')) as LogHeader;
    } catch {
      break;
    }
    records.push({ header, body: buf.subarray(at + PREFIX + headLength, end) });
    at = end;
  }
  return { records, discardedBytes: buf.length - at };
}

/** Log files are named by worker and generation, so a crashed worker's files are recognisable. */
export function logName(workerId: string, seq: number): string {
  return `${workerId}-${String(seq).padStart(8, '0')}.log`;
}
