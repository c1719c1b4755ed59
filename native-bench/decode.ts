/**
 * native-bench/decode: the hand-written OTLP trace decoder (`src/ingest/protoDecode.ts`) against
 * protobufjs (`decodeExportRequest`: decode + toObject), measured in the same run on the same bodies.
 *
 *   npm run build && node dist/native-bench/decode.js [--batches 40] [--rounds 21]
 *
 * Bodies are `--batches` realistic exports of 512 spans (`workload.ts`, a different seed each). Each
 * decoder runs in a worker thread of its own, as the gateway runs only one: sharing an isolate would let
 * the other decoder's objects (of other shapes) slow the mapper's inline caches and the garbage collector
 * for both. A round decodes every body once with each decoder, then decodes and maps
 * (`mapExportRequest`) every body with each, one worker at a time, the order alternating between rounds.
 * Figures are the median over rounds of µs per span, garbage collection included as it falls. Before
 * timing, both decoders' results and the mapper's rows from them are checked equal on every body.
 *
 * The project rule: hand-written protobuf decoding only if it is at least 2× faster than the library.
 */
import { isDeepStrictEqual } from 'node:util';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { mapExportRequest } from '../src/core/otlp/map.js';
import type { ExportTraceServiceRequest } from '../src/core/otlp/wire.js';
import { decodeExportRequest } from '../test/helpers/otlpProto.js';
import { decodeTraceRequest } from '../src/ingest/protoDecode.js';
import { encodedBatch } from './workload.js';
import { arg } from './args.js';

const SPANS_PER_BATCH = 512;
const REQUIRED_SPEEDUP = 2;
const WARM_UP_ROUNDS = 3;

type DecoderName = 'protobufjs' | 'hand-written';
const DECODERS: Record<DecoderName, (bytes: Uint8Array) => ExportTraceServiceRequest> = {
  protobufjs: decodeExportRequest,
  'hand-written': decodeTraceRequest,
};

interface Job {
  map: boolean;
}

/** µs per span to decode (and map, when `map`) every body once. */
function time(decode: (bytes: Uint8Array) => ExportTraceServiceRequest, bodies: Uint8Array[], map: boolean): number {
  let sink = 0;
  const t0 = performance.now();
  for (const body of bodies) {
    const request = decode(body);
    sink += map ? mapExportRequest(request).spans.length : (request.resourceSpans?.length ?? 0);
  }
  const us = ((performance.now() - t0) * 1000) / (bodies.length * SPANS_PER_BATCH);
  return sink < 0 ? -1 : us;
}

/** A worker: warms its decoder up, then times one pass per job it is sent. */
function worker(): void {
  const { name, bodies } = workerData as { name: DecoderName; bodies: Uint8Array[] };
  const decode = DECODERS[name];
  for (let i = 0; i < WARM_UP_ROUNDS; i++) {
    time(decode, bodies, false);
    time(decode, bodies, true);
  }
  parentPort!.on('message', (job: Job) => parentPort!.postMessage(time(decode, bodies, job.map)));
  parentPort!.postMessage('ready');
}

/** protobufjs hands out Buffers (views of the body), the hand-written decoder Uint8Array copies. */
function plain(v: unknown): unknown {
  if (v instanceof Uint8Array) return new Uint8Array(v);
  if (Array.isArray(v)) return v.map(plain);
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
  return v;
}

function checkSame(bodies: Uint8Array[]): void {
  for (const [i, body] of bodies.entries()) {
    const library = decodeExportRequest(body);
    const hand = decodeTraceRequest(body);
    if (!isDeepStrictEqual(plain(hand), plain(library))) throw new Error(`batch ${i}: the decoders disagree`);
    if (!isDeepStrictEqual(mapExportRequest(hand), mapExportRequest(library)))
      throw new Error(`batch ${i}: the mapped rows differ`);
  }
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

async function main(): Promise<void> {
  const batches = arg('batches', 40);
  const rounds = arg('rounds', 21);
  const bodies = Array.from({ length: batches }, (_, i) => encodedBatch(SPANS_PER_BATCH, i + 1));
  const spans = batches * SPANS_PER_BATCH;
  const avgBytes = bodies.reduce((n, b) => n + b.length, 0) / spans;
  checkSame(bodies);

  const names: DecoderName[] = ['protobufjs', 'hand-written'];
  const workers = new Map<DecoderName, Worker>();
  /** The next message from `w`, or its error. */
  const reply = <T>(w: Worker) =>
    new Promise<T>((resolve, reject) => {
      const onMessage = (value: T) => {
        w.off('error', onError);
        resolve(value);
      };
      const onError = (e: Error) => {
        w.off('message', onMessage);
        reject(e);
      };
      w.once('message', onMessage);
      w.once('error', onError);
    });
  await Promise.all(
    names.map((name) => {
      const w = new Worker(new URL(import.meta.url), { workerData: { name, bodies } });
      workers.set(name, w);
      return reply<'ready'>(w);
    }),
  );
  const run = (name: DecoderName, job: Job): Promise<number> => {
    const w = workers.get(name)!;
    const answer = reply<number>(w);
    w.postMessage(job);
    return answer;
  };

  const samples = {
    decode: { protobufjs: [] as number[], 'hand-written': [] as number[] },
    map: { protobufjs: [] as number[], 'hand-written': [] as number[] },
  };
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? names : [...names].reverse();
    for (const name of order) samples.decode[name].push(await run(name, { map: false }));
    for (const name of order) samples.map[name].push(await run(name, { map: true }));
  }
  await Promise.all([...workers.values()].map((w) => w.terminate()));

  const fmt = (n: number) => n.toFixed(2).padStart(6);
  console.log(
    `decode: ${batches} batches × ${SPANS_PER_BATCH} spans (~${avgBytes.toFixed(0)} bytes/span), median of ${rounds} rounds, µs/span`,
  );
  console.log('');
  console.log('| path           | protobufjs | hand-written | speed-up |');
  console.log('|----------------|------------|--------------|----------|');
  const ratios = { decode: 0, map: 0 };
  for (const [label, key] of [
    ['decode', 'decode'],
    ['decode + map', 'map'],
  ] as const) {
    const library = median(samples[key].protobufjs);
    const hand = median(samples[key]['hand-written']);
    ratios[key] = library / hand;
    console.log(`| ${label.padEnd(14)} | ${fmt(library)}     | ${fmt(hand)}       | ${ratios[key].toFixed(2)}×    |`);
  }
  console.log('');
  const verdict = ratios.decode >= REQUIRED_SPEEDUP ? 'meets' : 'does NOT meet';
  console.log(
    `The hand-written decoder ${verdict} the ${REQUIRED_SPEEDUP}× rule (decode alone: ${ratios.decode.toFixed(2)}×).`,
  );
}

if (isMainThread) await main();
else worker();
