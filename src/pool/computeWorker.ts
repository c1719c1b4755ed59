/**
 * The compute pool's worker: the CPU side of ingestion (decode, map, rows), the worker's own part
 * of the ingest log, and the Parquet segments it writes (src/ingest/workerIngest.ts). It talks to
 * the main thread's ingest coordinator over a port of its own, made at start: admission of each
 * request's spans, and the report of each flushed generation.
 */
import { MessageChannel, parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { compilePriceTable, costOf, parsePriceTable } from '../core/cost/pricing.js';
import type { AdmitAnswer, AdmitRequest, Admitter, GenerationReport } from '../ingest/workerIngest.js';
import { WorkerIngest } from '../ingest/workerIngest.js';
import { prepareAgentBatch } from '../ingest/agentsBatch.js';
import { WORKER_START_DELAY_MS } from '../ingest/testHooks.js';
import { ingestLogDir, storeDirs } from '../store/db.js';
import { LocalSegmentStore } from '../store/spans/segmentStore.js';
import { SegmentBuffer } from '../store/spans/segmentBuffer.js';
import { dispatchTask } from './taskPool.js';
import type { ComputeTasks, ComputeWorkerData } from './tasks.js';
import type { CoordinatorMessage, WorkerMessage } from './ingestMessages.js';

const data = workerData as ComputeWorkerData;
const prices = compilePriceTable(parsePriceTable(data.pricing));

/** Admission and reports over this worker's port; answers are matched to requests by id. */
class PortAdmitter implements Admitter {
  private next = 1;
  private readonly waiting = new Map<number, (a: AdmitAnswer) => void>();

  constructor(private readonly port: MessagePort) {}

  answered(id: number, answer: AdmitAnswer): void {
    this.waiting.get(id)?.(answer);
    this.waiting.delete(id);
  }

  admit(request: AdmitRequest): Promise<AdmitAnswer> {
    const id = this.next++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.send({ t: 'admit', id, request });
    });
  }

  settle(ticket: number, durable: boolean): void {
    this.send({ t: 'settle', ticket, durable });
  }

  generationReady(report: GenerationReport): void {
    this.send({ t: 'generation', report });
  }

  send(message: WorkerMessage): void {
    this.port.postMessage(message);
  }
}

const segments = new LocalSegmentStore(storeDirs(data.dataDir).segments);
const { port1: port, port2: theirs } = new MessageChannel();
const admitter = new PortAdmitter(port);
if (WORKER_START_DELAY_MS > 0) await new Promise((r) => setTimeout(r, WORKER_START_DELAY_MS));
const buffer = await SegmentBuffer.open(segments.root);
const ingest = new WorkerIngest(
  ingestLogDir(data.dataDir),
  segments,
  buffer,
  admitter,
  data.flush,
  (model, usage) => {
    const price = prices.find(model);
    return price ? costOf(price, usage) : undefined;
  },
  (err) => admitter.send({ t: 'log', level: 'warn', msg: 'segment write failed; retrying', err: String((err as Error)?.stack ?? err) }),
);

port.on('message', (m: CoordinatorMessage) => {
  if (m.t === 'admitted') admitter.answered(m.id, m.answer);
  else if (m.t === 'flush') {
    void ingest.flush().then(() => {
      if (m.close) {
        ingest.stop();
        buffer.close();
      }
      admitter.send({ t: 'flushed', id: m.id });
    });
  }
});
ingest.start();
parentPort!.postMessage({ tracelakeWorker: { workerId: ingest.workerId, port: theirs } }, [theirs]);

const handlers: { [K in keyof ComputeTasks]: (input: ComputeTasks[K]['in']) => Promise<ComputeTasks[K]['out']> } = {
  ingest: (input) => ingest.ingest(input),
  replayLog: ({ path, name }) => ingest.replay(path, name),
  prepareAgents: ({ body, ceiling }) => prepareAgentBatch(body, ceiling),
};

export default (message: { task: keyof ComputeTasks; input: unknown }) => dispatchTask<ComputeTasks>(handlers, message);
