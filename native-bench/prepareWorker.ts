/** Worker of native-bench/ingest: the ceiling — decode, map and build rows in a loop, results discarded. */
import { parentPort, workerData } from 'node:worker_threads';
import { prepare } from '../src/ingest/prepare.js';

const { bodies, seconds } = workerData as { bodies: Uint8Array[]; seconds: number };
const scope = {
  tenantId: '00000000-0000-4000-8000-000000000001',
  appId: '00000000-0000-4000-8000-000000000002',
  environmentId: '00000000-0000-4000-8000-000000000003',
};
let spans = 0;
const end = performance.now() + seconds * 1000;
for (let i = 0; performance.now() < end; i++) {
  const { rows } = prepare(
    {
      body: bodies[i % bodies.length]!,
      encoding: 'protobuf',
      contentEncoding: undefined,
      maxDecompressedBytes: 64 << 20,
      maxSpansPerTrace: 10_000,
      scope,
    },
    undefined,
  );
  spans += rows.length;
}
parentPort!.postMessage(spans);
