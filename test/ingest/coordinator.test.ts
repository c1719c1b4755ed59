/**
 * The ingest coordinator with its store and compute pool stood in for (integration tests drive the
 * real ones): what becomes of the log files of an ended worker, of a committed generation's log
 * file that cannot be deleted, and of a generation the store refuses in a group of commits; and
 * which worker a record goes to when a compute worker holds its decoded body.
 */
import { MessageChannel } from 'node:worker_threads';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pino, { type Logger } from 'pino';
import t from 'tap';
import { IngestCoordinator } from '../../src/ingest/coordinator.js';
import { decodeLog, encodeRecord, type LogHeader } from '../../src/ingest/logFormat.js';
import { recordLogName } from '../../src/ingest/logTriage.js';
import type { GenerationReport } from '../../src/store/spans/generation.js';
import type { ComputeClient } from '../../src/ingest/computeClient.js';
import type { StoreClient } from '../../src/store/storeClient.js';
import { tempDir } from '../helpers/server.js';
import { until } from '../helpers/until.js';

function coordinator(
  logDir: string,
  replayed: (name: string) => void,
  { committed = [] as GenerationReport[][], log = pino({ level: 'silent' }) as Logger } = {},
): IngestCoordinator {
  const store = {
    run: async (task: string, input: { reports: GenerationReport[] }) => {
      if (task === 'commitGenerations') committed.push(input.reports);
      return task === 'committedLogs' ? [] : undefined;
    },
  } as unknown as StoreClient;
  const compute = {
    run: async (task: string, input: { name: string }) => {
      if (task !== 'replayLog') throw new Error(`unexpected compute task ${task}`);
      replayed(input.name);
      return { discardedBytes: 0, skippedRecords: 0, report: null, keys: [] };
    },
  } as unknown as ComputeClient;
  return new IngestCoordinator(
    store,
    compute,
    {
      logDir,
      quarantineDir: join(logDir, 'quarantine'),
      maxSpansPerTrace: 1000,
      dedupeSpans: 1000,
      maxBacklogBytes: 1 << 20,
      visibleTimeoutMs: 1000,
      flush: { maxRows: 100, maxBodyBytes: 1 << 20, maxAgeMs: 1000 },
      sync: async () => {},
      workers: 2,
    },
    log,
  );
}

// The replay waits until the pool is whole again — whichever comes first, the ended worker's port
// closing or its replacement's greeting (the order is up to the threads; waiting for one lane more
// than were left never ended when the greeting came first).
for (const order of ['close first', 'replacement first'] as const) {
  t.test(`an ended worker's log is replayed (${order})`, async (t) => {
    // The coordinator unrefs the workers' ports: this keeps the test's event loop alive.
    const alive = setInterval(() => {}, 1000);
    t.teardown(() => clearInterval(alive));
    const logDir = tempDir();
    // What the ended worker left: a log file no commit covers.
    writeFileSync(join(logDir, 'w1-00000001.log'), '');
    let done!: (name: string) => void;
    const replayed = new Promise<string>((resolve) => (done = resolve));
    const c = coordinator(logDir, done);
    const ports = ['w1', 'w2', 'w3'].map(() => new MessageChannel());
    c.attach('w1', ports[0]!.port1);
    c.attach('w2', ports[1]!.port1);
    await c.whenWorkers(2);
    const ended = new Promise((resolve) => ports[0]!.port1.once('close', resolve));
    if (order === 'replacement first') c.attach('w3', ports[2]!.port1);
    ports[0]!.port2.close();
    await ended;
    if (order === 'close first') c.attach('w3', ports[2]!.port1);
    let timer!: NodeJS.Timeout;
    const timeout = new Promise<string>(
      (resolve) => (timer = setTimeout(() => resolve('not replayed within 5 s'), 5000)),
    );
    t.equal(await Promise.race([replayed, timeout]), 'w1-00000001.log', "the ended worker's log was replayed");
    clearTimeout(timer);
    for (const p of ports) p.port2.close();
  });
}

t.test('a committed log file that cannot be moved aside is logged, and later commits go on', async (t) => {
  const logDir = tempDir();
  // A directory where the first generation's log file would wait for a checkpoint: the move fails.
  writeFileSync(join(logDir, 'w1-00000001.log'), '');
  mkdirSync(join(logDir, 'committed', 'w1-00000001.log', 'in-the-way'), { recursive: true });
  writeFileSync(join(logDir, 'w1-00000002.log'), '');
  const warnings: { msg: string; log?: string }[] = [];
  const log = pino({ level: 'warn' }, { write: (line: string) => void warnings.push(JSON.parse(line)) });
  const committed: GenerationReport[][] = [];
  const c = coordinator(logDir, () => {}, { committed, log });
  const { port1, port2 } = new MessageChannel();
  // The worker's side: answers shutdown's close.
  port2.on(
    'message',
    (m: { t: string; id: number }) => m.t === 'close' && port2.postMessage({ t: 'closed', id: m.id }),
  );
  c.attach('w1', port1);
  const report = (seq: number): GenerationReport => ({
    workerId: 'w1',
    seq,
    log: `w1-0000000${seq}.log`,
    segments: [],
    parts: [],
    resources: [],
    blobs: [],
    usage: [],
    bodyBytes: 0,
    skippedRecords: 0,
  });
  port2.postMessage({ t: 'generation', report: report(1) });
  t.ok(await until(() => committed.flat().length === 1), 'the first generation is committed');
  port2.postMessage({ t: 'generation', report: report(2) });
  t.ok(await until(() => committed.flat().length === 2), 'and the next one after it');
  await c.drain();
  port2.close();
  t.match(
    warnings,
    [{ msg: /could not move a committed ingest log file aside/, log: 'w1-00000001.log' }],
    'the failed move is logged',
  );
  t.ok(existsSync(join(logDir, 'w1-00000001.log')), 'the file stays where it was (the next start finds it committed)');
  t.notOk(existsSync(join(logDir, 'w1-00000002.log')), 'the next file has left the log');
  t.ok(existsSync(join(logDir, 'committed', 'w1-00000002.log')), 'to wait for a checkpoint');
});

t.test(
  'a generation the store refuses is committed record by record, beside the generations it was grouped with',
  async (t) => {
    const logDir = tempDir();
    const quarantineDir = join(logDir, 'quarantine');
    // Generation 2's log: three requests, the second of which the store refuses.
    const header = (n: number): LogHeader => ({
      tenantId: `tenant-${n}`,
      appId: 'a',
      environmentId: 'e',
      encoding: 'protobuf',
      contentEncoding: null,
      maxSpansPerTrace: 10,
      drop: [],
      receivedAtMs: 0,
    });
    const bodies = [0, 1, 2].map((n) => new Uint8Array([n, n, n]));
    writeFileSync(join(logDir, 'w1-00000002.log'), Buffer.concat(bodies.flatMap((b, n) => encodeRecord(header(n), b))));
    for (const seq of [1, 3, 4]) writeFileSync(join(logDir, `w1-0000000${seq}.log`), '');
    const recordName = (n: number) => recordLogName('w1-00000002.log', { header: header(n), body: bodies[n]! });
    const refused = new Set(['w1-00000002.log', recordName(1)]);
    const committed: string[][] = [];
    const tried: string[][] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const store = {
      run: async (task: string, input: { reports: GenerationReport[] }) => {
        if (task === 'committedLogs') return [];
        const logs = input.reports.map((r) => r.log);
        tried.push(logs);
        // The first commit is held, so that the next three reports wait as one group.
        if (logs[0] === 'w1-00000001.log') await held;
        // The words of DuckDB's appender (test/unit/store/refusals.test.ts holds them to DuckDB's own).
        if (logs.some((l) => refused.has(l))) throw new Error('Could not cast value 1e+300 to DECIMAL(38,12)');
        committed.push(logs);
        return null;
      },
    } as unknown as StoreClient;
    const compute = {
      run: async (_task: string, input: { name: string; record?: number }) => ({
        discardedBytes: 0,
        skippedRecords: 0,
        keys: [],
        report: { ...report(2), log: input.name },
      }),
    } as unknown as ComputeClient;
    const lines: { level: number; msg: string; record?: number; tenant_id?: string }[] = [];
    const log = pino({ level: 'warn' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    const c = new IngestCoordinator(
      store,
      compute,
      {
        logDir,
        quarantineDir,
        maxSpansPerTrace: 10,
        dedupeSpans: 100,
        maxBacklogBytes: 1 << 20,
        visibleTimeoutMs: 1000,
        flush: { maxRows: 100, maxBodyBytes: 1 << 20, maxAgeMs: 1000 },
        sync: async () => {},
        workers: 1,
      },
      log,
    );
    const { port1, port2 } = new MessageChannel();
    port2.on(
      'message',
      (m: { t: string; id: number }) => m.t === 'close' && port2.postMessage({ t: 'closed', id: m.id }),
    );
    c.attach('w1', port1);
    // A listener after the coordinator's: once it has seen the four reports, so has the coordinator.
    let delivered = 0;
    port1.on('message', () => delivered++);
    for (const seq of [1, 2, 3, 4]) port2.postMessage({ t: 'generation', report: report(seq) });
    t.ok(
      await until(() => delivered === 4 && tried.length === 1),
      'the first commit starts, and is held while the others arrive',
    );
    release();
    t.ok(
      await until(() => committed.length === 5),
      'every generation and every record but the refused one is committed',
    );
    await c.drain();
    port2.close();
    t.same(
      tried.slice(0, 3),
      [['w1-00000001.log'], ['w1-00000002.log', 'w1-00000003.log', 'w1-00000004.log'], ['w1-00000002.log']],
      'the group refused, each of its generations alone',
    );
    t.same(
      committed,
      [['w1-00000001.log'], [recordName(0)], [recordName(2)], ['w1-00000003.log'], ['w1-00000004.log']],
      'the records of the refused one, then the others',
    );
    t.match(
      recordName(0),
      /^w1-00000002\.record-[0-9a-f]{24}$/,
      "a record is committed under its file's name and its hash",
    );
    t.not(recordName(0), recordName(2));
    t.equal(c.counts.setAside, 1);
    t.notOk(existsSync(join(logDir, 'w1-00000002.log')), 'the triaged log file is deleted');
    const aside = decodeLog(readFileSync(join(quarantineDir, 'w1-00000002.log')));
    t.same(
      aside.records.map((r) => [r.header.tenantId, [...r.body]]),
      [['tenant-1', [1, 1, 1]]],
      'the quarantine keeps the refused record as it was logged',
    );
    t.match(lines, [
      { level: 50, msg: /^the store refused a generation for a value in its data/ },
      { level: 50, msg: /^the store refused the spans of an acknowledged request/, record: 1, tenant_id: 'tenant-1' },
    ]);
  },
);

function report(seq: number): GenerationReport {
  return {
    workerId: 'w1',
    seq,
    log: `w1-0000000${seq}.log`,
    segments: [],
    parts: [],
    resources: [],
    blobs: [],
    usage: [],
    bodyBytes: 0,
    skippedRecords: 0,
  };
}

t.test(
  'a body a compute worker decoded goes with its record to that worker, scanned once; one no record takes is released',
  async (t) => {
    const logDir = tempDir();
    const tasks: string[] = [];
    let nextHeld = 0;
    const keys = { traceIds: ['t1'], traceOf: [0, 0], spanIds: ['s1', 's2'], rejected: 0, errors: [] };
    const compute = {
      run: async (task: string) => {
        tasks.push(task);
        return { keys, decompressed: null, held: { workerId: 'w2', id: ++nextHeld } };
      },
    } as unknown as ComputeClient;
    const store = { run: async () => [] } as unknown as StoreClient;
    const c = new IngestCoordinator(
      store,
      compute,
      {
        logDir,
        quarantineDir: join(logDir, 'quarantine'),
        maxSpansPerTrace: 10,
        dedupeSpans: 100,
        maxBacklogBytes: 1 << 20,
        visibleTimeoutMs: 1000,
        flush: { maxRows: 100, maxBodyBytes: 1 << 20, maxAgeMs: 60_000 },
        sync: async () => {},
        workers: 3,
      },
      pino({ level: 'silent' }),
    );
    const seen = new Map<string, { t: string; held?: number; id?: number }[]>();
    const ports = ['w1', 'w2', 'w3'].map((workerId) => {
      const { port1, port2 } = new MessageChannel();
      seen.set(workerId, []);
      port2.on('message', (m: { t: string; held?: number; id?: number }) =>
        seen.get(workerId)!.push({
          t: m.t,
          ...(m.held === undefined ? {} : { held: m.held }),
          ...(m.id === undefined ? {} : { id: m.id }),
        }),
      );
      c.attach(workerId, port1);
      return port2;
    });
    t.teardown(() => {
      for (const p of ports) p.close();
    });
    const request = (scope: string, extra: object = {}) => ({
      body: new Uint8Array([1, 2, 3]),
      encoding: 'json' as const,
      contentEncoding: undefined,
      maxDecompressedBytes: 1 << 20,
      maxSpansPerTrace: 10,
      scope: { tenantId: scope, appId: 'a', environmentId: 'e' },
      plan: null,
      ...extra,
    });

    t.equal((await c.ingest(request('t1'), false)).accepted, 2);
    t.equal((await c.ingest(request('t1'), false)).duplicates, 2, 'the same spans again: a replay, refused whole');
    t.same(tasks, ['scan', 'scan'], 'each JSON body is scanned once');
    // An agents batch comes with its keys from the worker that prepared it (w3), so nothing is scanned.
    const agents = request('t2', { encoding: 'agents', scanned: { keys, held: { workerId: 'w3', id: 41 } } });
    t.equal((await c.ingest(agents, false)).accepted, 2);
    // Its worker ended before the record: the record goes to another lane, without a held id.
    const orphan = request('t3', { encoding: 'agents', scanned: { keys, held: { workerId: 'w9', id: 5 } } });
    t.equal((await c.ingest(orphan, false)).accepted, 2);
    t.same(tasks, ['scan', 'scan'], 'a batch prepared with its keys is not scanned');
    t.ok(await until(() => [...seen.values()].flat().length === 4));
    t.same(
      seen.get('w2'),
      [
        { t: 'record', held: 1 },
        { t: 'release', id: 2 },
      ],
      'the scanning worker gets the record of the body it holds, and a release for the one refused',
    );
    t.same(seen.get('w3'), [{ t: 'record', held: 41 }], "the preparing worker gets the batch's record");
    t.same(seen.get('w1'), [{ t: 'record' }], 'a record whose worker is gone carries no held id (its body is decoded)');
  },
);
