/**
 * A compute thread's work on a request before its answer: the row keys admission reads, from an
 * OTLP/JSON body (the main thread parses no JSON) or a coding-agent batch (its ids come from
 * mapping). What that decoded or mapped is held here, under an id the coordinator sends back with
 * the request's log record to this same thread, whose rows then come from it instead of a second
 * decode. The log keeps the body: a replay decodes it again. A held body whose record never comes
 * (the request refused, or failed before its append) is released by the coordinator, or expires.
 */
import { rowKeys, type MapOptions, type RowKeys } from '../core/otlp/map.js';
import type { Scope } from '../store/admin/meta.js';
import type { AgentBatch } from './agentsBatch.js';
import { decodeRequest, decompress } from './decode.js';
import { keysOfRows, mapAgentBatch, mapOtlp, prepare, type Mapped, type PrepareInput } from './prepare.js';

/** Where a request's decoded body is held: the compute thread (its ingest's worker id) and the id there. */
export interface HeldRef {
  workerId: string;
  id: number;
}

/** Row keys read by a compute thread, and what it holds of the body for the record's rows. */
export interface RowsHeld {
  keys: RowKeys;
  held: HeldRef | null;
}

/** The compute pool's `scan` task: the row keys of a body the main thread does not read itself. */
export interface ScanInput extends PrepareInput {
  /** Decode, map and build the rows as a record would, then drop them (TRACELAKE_DISCARD_AFTER_MAP). */
  discard: boolean;
}

export interface ScanOutcome extends RowsHeld {
  /** The body decompressed, when it came compressed (the log keeps it so). */
  decompressed: Uint8Array | null;
}

/**
 * How long a held body waits for its record. Past it the record's rows come from its body, as on
 * replay: the wait only bounds what a request lost between its scan and its answer keeps held.
 */
const HELD_FOR_MS = 60_000;

export class Scanner {
  private readonly held = new Map<number, { rows: () => Mapped; at: number }>();
  private nextId = 1;

  constructor(
    private readonly workerId: string,
    private readonly costOf: MapOptions['costOf'],
    private readonly heldForMs = HELD_FOR_MS,
  ) {}

  /** OTLP/JSON is decoded and held until its record; with `discard` mapped too, and dropped. */
  scan(input: ScanInput): ScanOutcome {
    if (input.discard || input.encoding !== 'json')
      return { keys: keysOfRows(prepare(input, this.costOf)), decompressed: null, held: null };
    const bytes = decompress(input.body, input.contentEncoding, input.maxDecompressedBytes);
    const request = decodeRequest(bytes, input.encoding);
    const keys = rowKeys(request, { maxSpansPerTrace: input.maxSpansPerTrace });
    const held = keys.spanIds.length > 0 ? this.hold(() => mapOtlp(request, input, this.costOf)) : null;
    return { keys, decompressed: bytes === input.body ? null : bytes, held };
  }

  /** A checked agents batch mapped, for its row keys; its rows held until its record. */
  agents(batch: AgentBatch, scope: Scope): RowsHeld {
    const mapped = mapAgentBatch(batch, scope, this.costOf);
    return { keys: keysOfRows(mapped), held: mapped.rows.length > 0 ? this.hold(() => mapped) : null };
  }

  /** The rows of a held body, for its record; undefined when it expired (the record's body is decoded then). */
  take(id: number): (() => Mapped) | undefined {
    const entry = this.held.get(id);
    this.held.delete(id);
    return entry?.rows;
  }

  release(id: number): void {
    this.held.delete(id);
  }

  /** Bodies held now (tests read it). */
  get holding(): number {
    return this.held.size;
  }

  private hold(rows: () => Mapped): HeldRef {
    const now = performance.now();
    // Oldest first: the first young entry ends the sweep.
    for (const [id, entry] of this.held) {
      if (now - entry.at < this.heldForMs) break;
      this.held.delete(id);
    }
    const id = this.nextId++;
    this.held.set(id, { rows, at: now });
    return { workerId: this.workerId, id };
  }
}
