/**
 * Records of the ingest log: what a 2xx to `POST /v1/traces` promises is durable. One record per
 * accepted request: a small JSON header (whose request it was, how to decode it, which of its spans
 * admission refused) and the body exactly as it arrived.
 *
 *   magic "TLR1" | u32 length of the rest | u32 CRC-32 of the rest | u32 header length | header | body
 *
 * A crash can leave the last record half-written (a torn tail, never acknowledged). Damage anywhere
 * else costs only the records it touches: reading resumes at the next record that holds
 * (`decodeLog`), and says what was lost.
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
  /**
   * The record's place in its file (from 0), so that damage before a record that reads says how
   * many records it took. Absent in records of older versions.
   */
  place?: number;
}

export interface LogRecord {
  header: LogHeader;
  body: Uint8Array;
}

const MAGIC = 0x544c5231; // "TLR1"
const MAGIC_BYTES = Buffer.from('TLR1', 'latin1');
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

/** Bytes of a log that hold no readable record, though records that read follow them (or they are one whole record whose checksum fails). */
export interface DamagedRegion {
  offset: number;
  bytes: number;
}

export interface LogDamage {
  regions: DamagedRegion[];
  /**
   * Records lost in the regions: exact where the records around a region carry their place in the
   * file (`LogHeader.place`), else one per region, or per record magic found in it if more.
   */
  lostRecords: number;
}

export interface DecodedLog {
  /** Every record that reads, in order: those after a damaged region too. */
  records: LogRecord[];
  /** Bytes after the last whole record that a torn write leaves (never acknowledged): not replayed. */
  discardedBytes: number;
  /** Damage anywhere but a torn tail: records that were acknowledged are lost. */
  damage: LogDamage | null;
}

/**
 * Reads every record that holds. Where one does not, reading resumes at the next record magic
 * whose record holds (its CRC covers all but the magic and the length, which a wrong value of
 * fails anyway). Bytes after the last record are a torn tail, unless they are a whole record
 * that only its checksum fails: a torn write leaves a record short, never whole and wrong.
 */
export function decodeLog(bytes: Uint8Array): DecodedLog {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const records: LogRecord[] = [];
  const regions: DamagedRegion[] = [];
  let lostRecords = 0;
  let damagedFrom: number | null = null;
  let at = 0;
  while (at < buf.length) {
    const found = readRecord(buf, at);
    if (!found) {
      damagedFrom ??= at;
      at = buf.indexOf(MAGIC_BYTES, at + 1);
      if (at < 0) break;
      continue;
    }
    if (damagedFrom !== null) {
      regions.push({ offset: damagedFrom, bytes: at - damagedFrom });
      lostRecords += lostBetween(buf, damagedFrom, at, records.at(-1)?.header.place, found.record.header.place);
      damagedFrom = null;
    }
    records.push(found.record);
    at = found.end;
  }
  const tailFrom = damagedFrom ?? buf.length;
  let discardedBytes = buf.length - tailFrom;
  if (discardedBytes > 0 && isWholeRecord(buf, tailFrom)) {
    regions.push({ offset: tailFrom, bytes: discardedBytes });
    lostRecords += Math.max(1, magicsIn(buf, tailFrom, buf.length));
    discardedBytes = 0;
  }
  return { records, discardedBytes, damage: regions.length > 0 ? { regions, lostRecords } : null };
}

/** The record at `at`, when its framing, checksum and header all hold. */
function readRecord(buf: Buffer, at: number): { record: LogRecord; end: number } | null {
  if (!isWholeRecord(buf, at)) return null;
  const end = at + 12 + buf.readUInt32BE(at + 4);
  const headLength = buf.readUInt32BE(at + 12);
  if (crc32(buf.subarray(at + 12, end)) !== buf.readUInt32BE(at + 8)) return null;
  try {
    const header = JSON.parse(buf.subarray(at + PREFIX, at + PREFIX + headLength).toString('utf8')) as LogHeader;
    return { record: { header, body: buf.subarray(at + PREFIX + headLength, end) }, end };
  } catch {
    return null;
  }
}

/** A magic, and a length and header length that fit within the file: all that a checksum needs. */
function isWholeRecord(buf: Buffer, at: number): boolean {
  if (at + PREFIX > buf.length || buf.readUInt32BE(at) !== MAGIC) return false;
  const rest = buf.readUInt32BE(at + 4);
  return rest >= 4 && at + 12 + rest <= buf.length && buf.readUInt32BE(at + 12) <= rest - 4;
}

function lostBetween(buf: Buffer, from: number, to: number, before?: number, after?: number): number {
  const placeBefore = from === 0 ? -1 : before;
  if (placeBefore !== undefined && after !== undefined) return Math.max(0, after - placeBefore - 1);
  return Math.max(1, magicsIn(buf, from, to));
}

function magicsIn(buf: Buffer, from: number, to: number): number {
  let n = 0;
  for (let at = buf.indexOf(MAGIC_BYTES, from); at >= 0 && at < to; at = buf.indexOf(MAGIC_BYTES, at + 1)) n++;
  return n;
}

/** Log files are named by worker and generation, so a crashed worker's files are recognisable. */
export function logName(workerId: string, seq: number): string {
  return `${workerId}-${String(seq).padStart(8, '0')}.log`;
}
