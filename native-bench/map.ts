/**
 * The OTLP mapper alone: `mapExportRequest` over realistic batches (`workload.ts`), already decoded
 * the way the gateway decodes them (protobufjs `toObject`), so only mapping is timed. Prints the
 * median µs per span over several rounds, after a warm-up.
 *
 *   npm run build && node dist/native-bench/map.js [--batches 60] [--rounds 15] [--warmup 5] [--decoder protobufjs|hand]
 *
 * `--decoder hand` decodes with the gateway's hand-written decoder (`src/ingest/protoDecode.ts`)
 * instead of protobufjs: the same objects, but repeated attribute keys arrive as one string.
 */
import { parseArgs } from 'node:util';
import { mapExportRequest } from '../src/core/otlp/map.js';
import { decodeExportRequest, encodeExportRequest } from '../test/helpers/otlpProto.js';
import { decodeTraceRequest } from '../src/ingest/protoDecode.js';
import { exportBatch } from './workload.js';

const { values } = parseArgs({
  options: {
    batches: { type: 'string', default: '60' },
    rounds: { type: 'string', default: '15' },
    warmup: { type: 'string', default: '5' },
    size: { type: 'string', default: '512' },
    decoder: { type: 'string', default: 'protobufjs' },
  },
});
if (values.decoder !== 'protobufjs' && values.decoder !== 'hand') throw new Error('--decoder is protobufjs or hand');
const decode = values.decoder === 'hand' ? decodeTraceRequest : decodeExportRequest;
const batchCount = Number(values.batches);
const rounds = Number(values.rounds);
const warmup = Number(values.warmup);
const size = Number(values.size);

// Untimed: build, encode and decode every batch once.
const batches = Array.from({ length: batchCount }, (_, i) => decode(encodeExportRequest(exportBatch(size, i + 1))));
// As the compute worker passes them: a price function and the default bound per trace.
const costOf = (_model: string, usage: { inputTokens?: number; outputTokens?: number }) =>
  ((usage.inputTokens ?? 0) * 0.15 + (usage.outputTokens ?? 0) * 0.6) / 1e6;

let sink = 0;
function round(): { ms: number; spans: number } {
  let spans = 0;
  const started = performance.now();
  for (const batch of batches) {
    const result = mapExportRequest(batch, { costOf, maxSpansPerTrace: 10_000 });
    spans += result.spans.length;
    sink += result.rejected;
  }
  return { ms: performance.now() - started, spans };
}

for (let i = 0; i < warmup; i++) round();
const perSpan: number[] = [];
let spansPerRound = 0;
for (let i = 0; i < rounds; i++) {
  const { ms, spans } = round();
  spansPerRound = spans;
  perSpan.push((ms * 1000) / spans);
}
const sorted = [...perSpan].sort((a, b) => a - b);
const median = sorted[Math.floor(sorted.length / 2)]!;
console.log(
  `mapExportRequest: ${batchCount} batches x ${size} spans (decoded by ${values.decoder}) = ${spansPerRound} rows per round, ${rounds} rounds after ${warmup} warm-up`,
);
console.log(`  per round µs/span: ${perSpan.map((v) => v.toFixed(2)).join(' ')}`);
console.log(
  `  median ${median.toFixed(2)} µs/span (min ${sorted[0]!.toFixed(2)}, max ${sorted[sorted.length - 1]!.toFixed(2)}) = ${Math.round(1e6 / median).toLocaleString('en-US')} spans/s`,
);
if (sink !== 0) console.log(`  (${sink} spans rejected: the workload should map whole)`);
