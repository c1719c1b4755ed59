/**
 * The ingest coordinator with its store and compute pool stood in for (integration tests drive the
 * real ones): what becomes of the log files of an ended worker, and of a committed generation's
 * log file that cannot be deleted.
 */
import { MessageChannel } from 'node:worker_threads';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pino, { type Logger } from 'pino';
import t from 'tap';
import { IngestCoordinator } from '../../src/ingest/coordinator.js';
import type { GenerationReport } from '../../src/ingest/workerIngest.js';
import type { ComputeClient } from '../../src/pool/computeClient.js';
import type { StoreClient } from '../../src/pool/storeClient.js';
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
  return new IngestCoordinator(store, compute, {
    logDir,
    maxSpansPerTrace: 1000,
    dedupeSpans: 1000,
    maxBacklogBytes: 1 << 20,
    visibleTimeoutMs: 1000,
    flush: { maxRows: 100, maxBodyBytes: 1 << 20, maxAgeMs: 1000 },
    sync: async () => {},
    workers: 2,
  }, log);
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
    const timeout = new Promise<string>((resolve) => (timer = setTimeout(() => resolve('not replayed within 5 s'), 5000)));
    t.equal(await Promise.race([replayed, timeout]), 'w1-00000001.log', 'the ended worker\'s log was replayed');
    clearTimeout(timer);
    for (const p of ports) p.port2.close();
  });
}

t.test('a committed log file that cannot be deleted is logged, and later commits go on', async (t) => {
  const logDir = tempDir();
  // A directory where the first generation's log file would be: deleting it fails.
  mkdirSync(join(logDir, 'w1-00000001.log', 'in-the-way'), { recursive: true });
  writeFileSync(join(logDir, 'w1-00000002.log'), '');
  const warnings: { msg: string; log?: string }[] = [];
  const log = pino({ level: 'warn' }, { write: (line: string) => void warnings.push(JSON.parse(line)) });
  const committed: GenerationReport[][] = [];
  const c = coordinator(logDir, () => {}, { committed, log });
  const { port1, port2 } = new MessageChannel();
  // The worker's side: answers shutdown's close.
  port2.on('message', (m: { t: string; id: number }) => m.t === 'close' && port2.postMessage({ t: 'closed', id: m.id }));
  c.attach('w1', port1);
  const report = (seq: number): GenerationReport => ({
    workerId: 'w1', seq, log: `w1-0000000${seq}.log`, segments: [], parts: [], resources: [], blobs: [], usage: [], bodyBytes: 0, skippedRecords: 0,
  });
  port2.postMessage({ t: 'generation', report: report(1) });
  t.ok(await until(() => committed.flat().length === 1), 'the first generation is committed');
  port2.postMessage({ t: 'generation', report: report(2) });
  t.ok(await until(() => committed.flat().length === 2), 'and the next one after it');
  await c.drain();
  port2.close();
  t.match(warnings, [{ msg: /could not delete a committed ingest log file/, log: 'w1-00000001.log' }], 'the failed deletion is logged');
  t.notOk(existsSync(join(logDir, 'w1-00000002.log')), 'the next file is deleted');
});
