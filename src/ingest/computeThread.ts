/**
 * A compute thread: the CPU side of ingestion after the answer (decode, map, rows, the
 * thread's in-memory DuckDB and the Parquet segments it writes: src/ingest/computeIngest.ts), and the
 * CPU work the main thread does not do before one (the row keys of JSON bodies and agent batches:
 * src/ingest/scan.ts, which holds what it decoded for the request's record).
 * It talks to the main thread's ingest coordinator over a port of its own, made at start: durable
 * log records and flushes in, flushed generations out.
 */
import { MessageChannel, parentPort, workerData } from 'node:worker_threads';
import { compilePriceTable, costOf, parsePriceTable } from '../core/cost/pricing.js';
import { ComputeIngest, type GenerationSink } from './computeIngest.js';
import type { GenerationReport } from '../store/spans/generation.js';
import { Scanner } from './scan.js';
import { prepareAgentBatch } from './agentsBatch.js';
import { prepareRunTrace } from './runTrace.js';
import { prepareWorkerEvents } from './workerEvents.js';
import { WORKER_EXIT_AT_RECORD, WORKER_START_DELAY_MS } from '../testHooks.js';
import { ingestLogDir, storeDirs } from '../store/layout.js';
import { LocalSegmentStore } from '../store/spans/segmentStore.js';
import { SegmentBuffer } from '../store/spans/segmentBuffer.js';
import { dispatchTask } from '../pool/taskPool.js';
import type { ComputeTasks, ComputeThreadData } from './computeTasks.js';
import type { CoordinatorMessage, ComputeMessage } from './ingestMessages.js';

const data = workerData as ComputeThreadData;
const prices = compilePriceTable(parsePriceTable(data.pricing));
const priceOf = (model: string, usage: Parameters<typeof costOf>[1]) => {
  const price = prices.find(model);
  return price ? costOf(price, usage) : undefined;
};

const { port1: port, port2: theirs } = new MessageChannel();
const send = (message: ComputeMessage) => port.postMessage(message);
const sink: GenerationSink = { generationReady: (report: GenerationReport) => send({ t: 'generation', report }) };
const segments = new LocalSegmentStore(storeDirs(data.dataDir).segments);
if (WORKER_START_DELAY_MS > 0) await new Promise((r) => setTimeout(r, WORKER_START_DELAY_MS));
const buffer = await SegmentBuffer.open(segments.root);
const ingest = new ComputeIngest(
  ingestLogDir(data.dataDir),
  segments,
  buffer,
  sink,
  priceOf,
  (err, { msg, attempt, retryInMs, generations }) =>
    send({
      t: 'log',
      level: 'warn',
      msg,
      err: String((err as Error)?.stack ?? err),
      fields: { attempt, retry_in_ms: retryInMs, generations },
    }),
);
const scanner = new Scanner(ingest.workerId, priceOf);

let records = 0;
port.on('message', (m: CoordinatorMessage) => {
  switch (m.t) {
    case 'record':
      if (++records === WORKER_EXIT_AT_RECORD) process.exit(70); // a test hook: this thread ends
      return ingest.record(m.seq, m.header, m.body, m.held === undefined ? undefined : scanner.take(m.held));
    case 'release':
      return scanner.release(m.id);
    case 'flush':
      return void ingest.flush(m.seq);
    case 'close':
      return void ingest.idle().then(() => {
        ingest.stop();
        buffer.close();
        send({ t: 'closed', id: m.id });
      });
  }
});
ingest.start();
parentPort!.postMessage({ tracelakeWorker: { workerId: ingest.workerId, port: theirs } }, [theirs]);

const handlers: { [K in keyof ComputeTasks]: (input: ComputeTasks[K]['in']) => Promise<ComputeTasks[K]['out']> } = {
  scan: async (input) => scanner.scan(input),
  replayLog: ({ path, name, record }) => ingest.replayFile(path, name, record),
  prepareAgents: ({ body, contentType, ceiling, scope }) =>
    prepareAgentBatch(body, contentType, ceiling, (batch) => scanner.agents(batch, scope)),
  prepareRunTrace: ({ text, ceiling, scope }) =>
    prepareRunTrace(text, ceiling, (batch) => scanner.agents(batch, scope), priceOf),
  prepareWorkerEvents: async ({ body, contentType }) => prepareWorkerEvents(body, contentType),
};

export default (message: { task: keyof ComputeTasks; input: unknown }) => dispatchTask<ComputeTasks>(handlers, message);
