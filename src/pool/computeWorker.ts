/** The compute pool's worker: decodes and maps OTLP bodies into span rows. */
import { workerData } from 'node:worker_threads';
import { compilePriceTable, costOf, parsePriceTable } from '../core/cost/pricing.js';
import { mapExportRequest } from '../core/otlp/map.js';
import { decodeRequest, decompress } from '../ingest/decode.js';
import { toRows } from '../ingest/rows.js';
import { dispatchTask } from './taskPool.js';
import type { ComputeTasks, ComputeWorkerData } from './tasks.js';

const prices = compilePriceTable(parsePriceTable((workerData as ComputeWorkerData).pricing));

const handlers: { [K in keyof ComputeTasks]: (input: ComputeTasks[K]['in']) => Promise<ComputeTasks[K]['out']> } = {
  async decodeOtlp({ body, encoding, contentEncoding, maxDecompressedBytes, maxSpansPerTrace, scope }) {
    const bytes = decompress(body, contentEncoding, maxDecompressedBytes);
    const request = decodeRequest(bytes, encoding);
    const mapped = mapExportRequest(request, {
      maxSpansPerTrace,
      costOf: (model, usage) => {
        const price = prices.find(model);
        return price ? costOf(price, usage) : undefined;
      },
    });
    const { rows, blobs } = toRows(scope, mapped.spans);
    return { rows, blobs, rejected: mapped.rejected, errors: mapped.errors };
  },
};

export default (message: { task: keyof ComputeTasks; input: unknown }) => dispatchTask<ComputeTasks>(handlers, message);
