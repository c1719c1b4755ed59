/** Worker of native-bench/ingest: appends span rows into a fresh database, one transaction per batch. */
import { rmSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { Database } from '../src/store/db.js';
import { migrate } from '../src/store/migrate.js';
import { SPAN_COLUMNS, type SpanRow } from '../src/store/spans/columns.js';

const { batches, dataDir } = workerData as { batches: SpanRow[][]; dataDir: string };
const db = await Database.open({ dataDir, threads: 1, memoryLimit: '2GiB', queryTimeoutMs: 600_000 });
await migrate(db);
const kinds = SPAN_COLUMNS.map(([, kind]) => kind);
// Both workers open their database first, then start appending together.
parentPort!.postMessage('ready');
await new Promise((resolve) => parentPort!.once('message', resolve));
const started = performance.now();
for (const rows of batches) await db.transaction((tx) => tx.append('spans', kinds, rows));
const ms = performance.now() - started;
db.close();
rmSync(dataDir, { recursive: true, force: true });
parentPort!.postMessage(ms);
