/**
 * The coordinator replays the log of a compute worker that ended once the pool is whole again —
 * whichever comes first, the ended worker's port closing or its replacement's greeting (the order
 * between them is up to the threads; waiting for one lane more than were left never ended when the
 * greeting came first).
 */
import { MessageChannel } from 'node:worker_threads';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import t from 'tap';
import { IngestCoordinator } from '../../src/ingest/coordinator.js';
import type { ComputeClient } from '../../src/pool/computeClient.js';
import type { StoreClient } from '../../src/pool/storeClient.js';
import { tempDir } from '../helpers/server.js';

function coordinator(logDir: string, replayed: (name: string) => void): IngestCoordinator {
  const store = { run: async (task: string) => (task === 'committedLogs' ? [] : undefined) } as unknown as StoreClient;
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
  }, pino({ level: 'silent' }));
}

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
