/**
 * `POST /v1/traces`: OTLP/HTTP trace ingestion. The ingest coordinator checks the body (decoding
 * waits until after the answer), admits its spans, and the request is answered once its record is
 * in the fsynced ingest log: a 2xx means durable. The spans become readable when a compute thread
 * has decoded them into a segment and it is committed (within a second; docs/decisions.md);
 * `X-Tracelake-Wait: visible` answers only then. Spans refused one by one are reported through OTLP
 * `partialSuccess` in the request's own encoding.
 */
import type { OtlpExportAnswer } from '../../contract/responses.js';
import { ApiError, validationError } from '../../core/errors.js';
import { planOf, quotaError, quotaPlan } from '../../core/plans.js';
import { encodingOf } from '../../ingest/decode.js';
import { encodeExportResponse, type PartialSuccess } from '../../ingest/exportResponse.js';
import { keyPrefixOf } from '../refusalLog.js';
import { bytes, json } from '../reply.js';
import { route, type AnyRoute, type Context } from '../route.js';
import { payload } from '../../openapi/note.js';

const otlpTraces = route({
  method: 'POST',
  path: '/v1/traces',
  permission: 'trace.write',
  body: 'raw',
  rawKeyOnly: true,
  logRefusals: true,
  maxBodyBytes: (config) => config.maxOtlpBodyBytes,
  inflateUpTo: (config) => config.maxOtlpDecompressedBytes,
  // Decoded on a compute thread into objects several times its size: docs/decisions.md,
  // "Request bodies at the edge".
  bodyWeight: 4,
  note: {
    tag: 'Ingestion',
    summary: 'Ingest OpenTelemetry traces (OTLP/HTTP)',
    description:
      "The exporter's own format, protobuf or JSON, optionally gzip- or deflate-encoded. A 200 means the spans are durable (in the fsynced ingest log); they are readable once written as a segment, within a second. Spans refused one by one (e.g. over the per-trace bound) are reported through `partialSuccess`.",
    headers: {
      'Content-Encoding': '`gzip`, `deflate` or `identity`.',
      'X-Tracelake-Wait': '`visible`: answer only once the spans can be read.',
    },
    body: {
      media: {
        'application/x-protobuf': 'An OTLP ExportTraceServiceRequest (protobuf).',
        'application/json': 'An OTLP ExportTraceServiceRequest (OTLP/JSON): `{"resourceSpans": […]}`.',
      },
    },
    answers: [
      {
        status: 200,
        description: "Accepted and durable, in the request's own encoding.",
        headers: { 'X-Tracelake-Visible': '`true` when the spans were already readable when answered.' },
        ...payload('OtlpExportAnswer', {
          accepted: {},
          partly: { partialSuccess: { rejectedSpans: '3', errorMessage: 'trace 4bf9…: more than 10000 spans' } },
        }),
        media: { 'application/x-protobuf': 'An OTLP ExportTraceServiceResponse (protobuf).' },
      },
    ],
    errors: [
      {
        status: 429,
        when: "Rate limited, or the plan's monthly span quota or storage cap is reached (`span_limit_exceeded`, `storage_cap_exceeded`, with `Retry-After`).",
      },
    ],
  },
  async handler({ body, headers }, ctx) {
    const encoding = encodingOf(headers['content-type']);
    const outcome = await ctx.services.ingest.ingest(
      {
        body,
        encoding,
        // The router undid it (inflateUpTo).
        contentEncoding: undefined,
        maxDecompressedBytes: ctx.config.maxOtlpDecompressedBytes,
        maxSpansPerTrace: ctx.config.maxSpansPerTrace,
        scope: writeScope(ctx),
        plan: quotaPlan(planOf(ctx.services.plans, ctx.principal.plan)),
      },
      waitsForVisibility(headers['x-tracelake-wait']),
    );
    if (outcome.refused) throw quotaError(outcome.refused, ctx.services.plans.upgrade_url, Date.now());
    const partial: PartialSuccess | null =
      outcome.rejected > 0 ? { rejectedSpans: outcome.rejected, errorMessage: outcome.errors.join('; ') } : null;
    if (partial) {
      const { tenantId, appId } = ctx.principal;
      ctx.services.refusals.note(
        {
          tenant_id: tenantId,
          app_id: appId,
          key_prefix: keyPrefixOf(headers.authorization),
          reason: 'partial_success',
          status: 200,
          rejected_spans: partial.rejectedSpans,
          message: outcome.errors[0] ?? '',
        },
        Date.now(),
      );
    }
    const visibility = { 'X-Tracelake-Visible': String(outcome.visible) };
    if (encoding === 'protobuf') return bytes(encodeExportResponse(partial), 'application/x-protobuf', 200, visibility);
    return json(
      (partial
        ? { partialSuccess: { rejectedSpans: String(partial.rejectedSpans), errorMessage: partial.errorMessage } }
        : {}) satisfies OtlpExportAnswer,
      200,
      visibility,
    );
  },
});

/**
 * The same ingestion at the URL the Langfuse SDKs export to (`LangfuseSpanProcessor`: OTLP/HTTP to
 * `<LANGFUSE_BASE_URL>/api/public/otel/v1/traces`, Basic auth): one handler, two addresses, so
 * admission, budgets, the ingest log and the answers are those of `/v1/traces`.
 */
const langfuseOtlpTraces: AnyRoute = {
  ...otlpTraces,
  path: '/api/public/otel/v1/traces',
  note: {
    ...otlpTraces.note!,
    tag: 'Langfuse compatibility',
    summary: 'Ingest traces from the Langfuse SDK (OTLP/HTTP)',
    description: `What the Langfuse SDKs' span processor exports, with \`LANGFUSE_BASE_URL\` set to this server: handled exactly as \`POST /v1/traces\`. Authorization may be Basic, the app id as user and the API key as password (\`LANGFUSE_PUBLIC_KEY\` and \`LANGFUSE_SECRET_KEY\`). Langfuse attributes (\`langfuse.observation.*\`, \`langfuse.trace.*\`) are mapped as docs/guide/langfuse.md says.`,
  },
};

export const ingestRoutes = [otlpTraces, langfuseOtlpTraces];

/**
 * `X-Tracelake-Wait: visible` asks to be answered once the spans can be read; an empty value is no
 * header; any other value is refused.
 */
function waitsForVisibility(header: string | undefined): boolean {
  const value = (header ?? '').trim().toLowerCase();
  if (value === '') return false;
  if (value === 'visible') return true;
  throw validationError('headers', { 'x-tracelake-wait': 'must be "visible"' });
}

/** Where the spans of this request land: the key's pinned environment. */
export function writeScope(ctx: Context) {
  const { tenantId, appId, environmentId } = ctx.principal;
  if (environmentId === null) {
    throw new ApiError('forbidden', 'This key is not pinned to an environment; name one with X-Service-Environment');
  }
  return { tenantId, appId, environmentId };
}
