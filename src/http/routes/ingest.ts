/**
 * `POST /v1/traces`: OTLP/HTTP trace ingestion. The body is decoded and mapped in the compute pool,
 * written by the store thread, and answered only after the transaction holding the spans has
 * committed: a 2xx means durable. Spans refused one by one are reported through OTLP
 * `partialSuccess` in the request's own encoding.
 */
import { ApiError } from '../../core/errors.js';
import { planOf, quotaError, type Plan } from '../../core/plans.js';
import { encodingOf } from '../../ingest/decode.js';
import { encodeExportResponse, type PartialSuccess } from '../../ingest/otlpProto.js';
import { bytes, json } from '../reply.js';
import { route, type Context } from '../route.js';

export const ingestRoutes = [
  route<Record<string, string>, Record<string, never>, Buffer>({
    method: 'POST',
    path: '/v1/traces',
    permission: 'trace.write',
    body: 'raw',
    rawKeyOnly: true,
    maxBodyBytes: (config) => config.maxOtlpBodyBytes,
    async handler({ body, headers }, ctx) {
      const encoding = encodingOf(headers['content-type']);
      const scope = writeScope(ctx);
      const decoded = await ctx.services.compute.run(
        'decodeOtlp',
        {
          body,
          encoding,
          contentEncoding: headers['content-encoding'],
          maxDecompressedBytes: ctx.config.maxOtlpDecompressedBytes,
          maxSpansPerTrace: ctx.config.maxSpansPerTrace,
          scope,
        },
        // The body buffer is our own copy (see server.readBody): move it rather than copy it.
        [body.buffer as ArrayBuffer],
      );
      const written = await ctx.services.store.run('writeSpans', {
        rows: decoded.rows,
        blobs: decoded.blobs,
        maxSpansPerTrace: ctx.config.maxSpansPerTrace,
        plan: quotaPlan(planOf(ctx.services.plans, ctx.principal.plan)),
      });
      if (written.refused) throw quotaError(written.refused, ctx.services.plans.upgrade_url, Date.now());
      const errors = [...decoded.errors];
      if (written.overBound > 0) errors.push(`${written.overBound} span(s) over the bound of ${ctx.config.maxSpansPerTrace} spans per trace`);
      const rejected = decoded.rejected + written.overBound;
      const partial: PartialSuccess | null = rejected > 0 ? { rejectedSpans: rejected, errorMessage: errors.join('; ') } : null;
      if (encoding === 'protobuf') return bytes(encodeExportResponse(partial), 'application/x-protobuf');
      return json(partial ? { partialSuccess: { rejectedSpans: String(partial.rejectedSpans), errorMessage: partial.errorMessage } } : {});
    },
  }),
];

/** Where the spans of this request land: the key's pinned environment. */
function writeScope(ctx: Context) {
  const { tenantId, appId, environmentId } = ctx.principal;
  if (environmentId === null) {
    throw new ApiError('forbidden', 'This key is not pinned to an environment; name one with X-Service-Environment');
  }
  return { tenantId, appId, environmentId };
}

/** A plan matters to the writer only when it limits spans or storage. */
function quotaPlan(plan: Plan): Plan | null {
  return plan.monthly_spans === null && plan.storage_bytes === null ? null : plan;
}
