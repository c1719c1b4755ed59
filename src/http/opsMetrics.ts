/**
 * Operations metrics in the Prometheus text format, through prom-client (one registry per server,
 * never the library's global one). Hot paths only count and observe; what lives elsewhere — queue
 * depths, the ingest backlog, segment and database sizes from the store thread — is read when
 * Prometheus scrapes.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { IngestPhase } from '../ingest/coordinator.js';
import type { GenerationStage } from '../ingest/generationTimes.js';
import type { StoreStats } from '../store/ops/stats.js';

/** What a scrape reads from the rest of the server. */
export interface OpsSources {
  queues(): { pool: 'store' | 'compute'; depth: number; rejections: number; abandoned: number; shed: number }[];
  ingest(): {
    backlogBytes: number;
    admitted: number;
    duplicates: number;
    overBound: number;
    invalid: number;
    quotaRefused: number;
    replayFailures: number;
    setAside: number;
  };
  /** From the store thread (one cheap task per scrape). */
  store(): Promise<StoreStats>;
  /** The background-priority sweep (src/ingest/ackPriority.ts). */
  priority(): { sweeps: number; lowered: number };
}

/** What the store thread's background has done since the start. */
/** Seconds: from a cache hit to a 10 s search. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Finer around the second that readability is held to. */
const VISIBLE_BUCKETS = [0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 1.25, 1.5, 2, 3, 5, 10, 30];

interface Snapshot {
  queues: ReturnType<OpsSources['queues']>;
  ingest: ReturnType<OpsSources['ingest']>;
  store: StoreStats;
  priority: ReturnType<OpsSources['priority']>;
}

export class OpsMetrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'method' | 'route' | 'status'>;
  private readonly latency: Histogram<'method' | 'route' | 'status'>;
  private readonly storeTasks: Histogram<'task' | 'outcome'>;
  private readonly ingestPhases: Histogram<'phase'>;
  private readonly generationStages: Histogram<'stage'>;
  private readonly visible: Histogram;
  private sources: OpsSources | null = null;
  /** Read once at the start of a scrape; every metric's collect reads it. */
  private snapshot: Snapshot | null = null;

  constructor() {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    this.requests = new Counter({
      name: 'tracelake_http_requests_total',
      help: 'HTTP requests answered, by route pattern and status (aborted: the client went away).',
      labelNames: ['method', 'route', 'status'],
      registers,
    });
    this.latency = new Histogram({
      name: 'tracelake_http_request_duration_seconds',
      help: "Time from a request's arrival to its answer, by route pattern and status.",
      labelNames: ['method', 'route', 'status'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.storeTasks = new Histogram({
      name: 'tracelake_store_task_duration_seconds',
      help: 'Store thread tasks (DuckDB transactions and queries), queueing included, by task.',
      labelNames: ['task', 'outcome'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.ingestPhases = new Histogram({
      name: 'tracelake_ingest_phase_seconds',
      help: "Where an ingestion request (an OTLP export, an agents sync, a worker run's trace) spends the time before its answer, by phase: check (decompress, check the body and read its span ids; JSON bodies and agent batches on a compute worker), admission, log_sync (append and fdatasync).",
      labelNames: ['phase'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.generationStages = new Histogram({
      name: 'tracelake_generation_seconds',
      help: "Where a generation of ingested spans (a compute worker's rows of up to 200 ms, by default) spends the time from its first record to readable, by stage: open (until it is cut), write (its rows to Parquet segments), queue (behind the commits before it), commit (the store's transaction).",
      labelNames: ['stage'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.visible = new Histogram({
      name: 'tracelake_ingest_visible_seconds',
      help: 'Time from the answer to an ingestion request to its spans being readable (the commit of its generation).',
      buckets: VISIBLE_BUCKETS,
      registers,
    });
    const snap = () => this.snapshot;

    /** A counter whose total is kept elsewhere: each scrape adds what it grew by since the last. */
    const mirrored = <L extends string>(
      name: string,
      help: string,
      labelNames: L[],
      read: (s: Snapshot) => [Partial<Record<L, string>>, number][],
    ) => {
      const last = new Map<string, number>();
      new Counter<L>({
        name,
        help,
        labelNames,
        registers,
        collect() {
          const s = snap();
          if (!s) return;
          for (const [labels, now] of read(s)) {
            const key = JSON.stringify(labels);
            const before = last.get(key) ?? 0;
            if (now > before) this.inc(labels, now - before);
            last.set(key, now);
          }
        },
      });
    };
    /** A gauge set from the snapshot at each scrape (series not in it are dropped). */
    const reading = <L extends string>(
      name: string,
      help: string,
      labelNames: L[],
      read: (s: Snapshot) => [Partial<Record<L, string>>, number][],
    ) =>
      new Gauge<L>({
        name,
        help,
        labelNames,
        registers,
        collect() {
          const s = snap();
          if (!s) return;
          this.reset();
          for (const [labels, value] of read(s)) this.set(labels, value);
        },
      });

    mirrored(
      'tracelake_spans_ingested_total',
      'Spans admitted by OTLP ingestion (durable once their request is answered).',
      [],
      (s) => [[{}, s.ingest.admitted]],
    );
    mirrored(
      'tracelake_spans_refused_total',
      'Spans refused by OTLP ingestion, by reason (invalid ids or times, over the per-trace bound, over the plan quota).',
      ['reason'],
      (s) => [
        [{ reason: 'invalid' }, s.ingest.invalid],
        [{ reason: 'over_trace_bound' }, s.ingest.overBound],
        [{ reason: 'quota' }, s.ingest.quotaRefused],
      ],
    );
    mirrored('tracelake_spans_duplicate_total', 'Re-sent spans dropped by ingestion (already stored).', [], (s) => [
      [{}, s.ingest.duplicates],
    ]);
    mirrored(
      'tracelake_ingest_replay_failures_total',
      "Replays of an ended compute worker's ingest log that failed (each is tried again; until one succeeds its spans are durable, not readable).",
      [],
      (s) => [[{}, s.ingest.replayFailures]],
    );
    mirrored(
      'tracelake_ingest_requests_set_aside_total',
      'Acknowledged requests whose spans the store refused, set aside in quarantine/ingest-log (unreadable until an operator restores them).',
      [],
      (s) => [[{}, s.ingest.setAside]],
    );
    reading(
      'tracelake_ingest_log_records_lost',
      'Acknowledged requests lost to damage in ingest-log files, counted from the reports in quarantine/ingest-log until an operator removes them (docs/reliability.md).',
      [],
      (s) => [[{}, s.store.damagedLogs.recordsLost]],
    );
    reading(
      'tracelake_ingest_log_damaged_files',
      'Ingest-log files found damaged at replay whose reports in quarantine/ingest-log no operator has removed yet.',
      [],
      (s) => [[{}, s.store.damagedLogs.files]],
    );
    reading('tracelake_ingest_backlog_bytes', 'OTLP bytes accepted but not yet in committed segments.', [], (s) => [
      [{}, s.ingest.backlogBytes],
    ]);
    reading('tracelake_queue_depth', 'Tasks waiting for a worker thread, by pool.', ['pool'], (s) =>
      s.queues.map((q) => [{ pool: q.pool }, q.depth]),
    );
    mirrored(
      'tracelake_queue_rejections_total',
      "Tasks refused because a worker pool's queue was full (answered 503 overloaded).",
      ['pool'],
      (s) => s.queues.map((q) => [{ pool: q.pool }, q.rejections]),
    );
    mirrored(
      'tracelake_queue_abandoned_total',
      "Tasks dropped from a worker pool's queue unrun because their client went away.",
      ['pool'],
      (s) => s.queues.map((q) => [{ pool: q.pool }, q.abandoned]),
    );
    mirrored(
      'tracelake_queue_shed_total',
      "Tasks dropped from a worker pool's queue unrun because their request waited past --max-queue-wait-ms (answered 503 overloaded).",
      ['pool'],
      (s) => s.queues.map((q) => [{ pool: q.pool }, q.shed]),
    );
    reading(
      'tracelake_segments',
      'Live segment files, by level (0 written by ingestion, 1 compacted).',
      ['level'],
      (s) => s.store.segments.map((l) => [{ level: String(l.level) }, l.files]),
    );
    reading('tracelake_segment_rows', 'Span rows in live segments, by level.', ['level'], (s) =>
      s.store.segments.map((l) => [{ level: String(l.level) }, l.rows]),
    );
    reading('tracelake_segment_bytes', 'Bytes of live segment files, by level.', ['level'], (s) =>
      s.store.segments.map((l) => [{ level: String(l.level) }, l.bytes]),
    );
    mirrored(
      'tracelake_compacted_segments_total',
      'Small segment files merged into large sorted ones by compaction.',
      [],
      (s) => [[{}, s.store.compactions]],
    );
    mirrored(
      'tracelake_summary_merges_total',
      'Background merges of trace summary parts into one row per trace (run only after parts were committed).',
      [],
      (s) => [[{}, s.store.summaryMerges]],
    );
    mirrored(
      'tracelake_summary_parts_merged_total',
      'Trace summary parts folded into merged rows by the background merges.',
      [],
      (s) => [[{}, s.store.summaryPartsMerged]],
    );
    reading('tracelake_summary_parts_waiting', 'Trace summary parts committed and not merged yet.', [], (s) => [
      [{}, s.store.partsWaiting],
    ]);
    mirrored(
      'tracelake_background_seconds_total',
      "Time the store thread's background jobs took, by job (verify, checkpoint, merge, compaction, rollup, retention, purge, prune).",
      ['job'],
      (s) => Object.entries(s.store.backgroundSeconds).map(([job, seconds]) => [{ job }, seconds]),
    );
    reading(
      'tracelake_duckdb_memory_bytes',
      "Memory DuckDB holds by its own account, by instance — the store's database (bounded by --duckdb-memory) and compaction's own (1 GiB at most) — and by what holds it (DuckDB's tag, lowercase).",
      ['instance', 'tag'],
      (s) =>
        (
          [
            ['store', s.store.memory],
            ['compaction', s.store.compactionMemory],
          ] as const
        ).flatMap(([instance, memory]) =>
          Object.entries(memory).map(([tag, bytes]): [Record<'instance' | 'tag', string>, number] => [
            { instance, tag },
            bytes,
          ]),
        ),
    );
    reading('tracelake_database_bytes', 'Size of the DuckDB database, by file (database, wal).', ['file'], (s) => [
      [{ file: 'database' }, s.store.databaseBytes],
      [{ file: 'wal' }, s.store.walBytes],
    ]);
    reading(
      'tracelake_background_threads_lowered',
      "Threads set to the background priority (--background-nice): all but the main thread, the log sync thread and Node's platform threads; 0 with --background-nice 0.",
      [],
      (s) => [[{}, s.priority.lowered]],
    );
    mirrored(
      'tracelake_priority_sweeps_total',
      "Looks at the process's threads for new ones to set to the background priority (one a second, Linux only).",
      [],
      (s) => [[{}, s.priority.sweeps]],
    );
    reading('tracelake_blob_bytes', 'Bytes of out-of-line span fields and media.', [], (s) => [
      [{}, s.store.blobBytes],
    ]);
  }

  /** Connects the scrape-time readings (the parts they read exist only once the server is built). */
  attach(sources: OpsSources): void {
    this.sources = sources;
  }

  request(method: string, route: string, status: string, seconds: number): void {
    this.requests.inc({ method, route, status });
    this.latency.observe({ method, route, status }, seconds);
  }

  storeTask(task: string, ok: boolean, seconds: number): void {
    this.storeTasks.observe({ task, outcome: ok ? 'ok' : 'error' }, seconds);
  }

  ingestPhase(phase: IngestPhase, seconds: number): void {
    this.ingestPhases.observe({ phase }, seconds);
  }

  generationStage(stage: GenerationStage, seconds: number): void {
    this.generationStages.observe({ stage }, seconds);
  }

  ingestVisible(seconds: number): void {
    this.visible.observe(seconds);
  }

  /** The exposition (text format 0.0.4) and its content type. */
  async scrape(): Promise<{ text: string; contentType: string }> {
    if (this.sources) {
      const store = await this.sources.store();
      this.snapshot = {
        queues: this.sources.queues(),
        ingest: this.sources.ingest(),
        store,
        priority: this.sources.priority(),
      };
    }
    return { text: await this.registry.metrics(), contentType: this.registry.contentType };
  }
}
