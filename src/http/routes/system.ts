/**
 * Capabilities and pricing (unauthenticated). Capabilities are derived from the route table and the
 * surface rules, so a feature is reported exactly when this server answers it.
 */
import type { Config } from '../../config.js';
import type { Capabilities, CapabilityLimits } from '../../contract/responses.js';
import { LIMITS } from '../../core/filter/index.js';
import { data } from '../reply.js';
import { route, type AnyRoute, type Method } from '../route.js';
import { refusalFor } from '../surface.js';
import { answer } from '../../openapi/note.js';

/** Feature name → the endpoint whose presence means the feature is there. */
const FEATURES: Record<string, [Method, string]> = {
  otlp_ingest: ['POST', '/v1/traces'],
  trace_read: ['GET', '/v1/traces/:traceId'],
  trace_list: ['GET', '/v1/traces'],
  trace_search: ['POST', '/v1/traces/search'],
  span_list: ['GET', '/v1/spans'],
  span_search: ['POST', '/v1/spans/search'],
  sessions: ['GET', '/v1/sessions'],
  scores: ['POST', '/v1/scores'],
  score_batch: ['POST', '/v1/scores/batch'],
  score_search: ['POST', '/v1/scores/search'],
  score_aggregations: ['GET', '/v1/scores/aggregations'],
  filter_schema: ['GET', '/v1/filter-schema'],
  api_keys: ['POST', '/v1/api-keys'],
  apps: ['POST', '/v1/apps'],
  environments: ['GET', '/v1/environments'],
  metrics: ['GET', '/v1/metrics'],
  prompts: ['GET', '/v1/prompts'],
  templates: ['GET', '/v1/templates'],
  git: ['GET', '/v1/apps/:appId/git'],
  agents_sync: ['POST', '/v1/agents/sync'],
  evals: ['POST', '/v1/evals/trials'],
  experiments: ['GET', '/v1/experiments'],
  workers: ['POST', '/v1/workers/environments/:envId/turns'],
  health_dependencies: ['GET', '/v1/health/ingestion'],
};

/** The spec's Limits, plus this server's configured body caps. */
function limits(config: Config): CapabilityLimits {
  return {
    filters: LIMITS,
    search_limit: { min: 1, max: 1000, default: 50 },
    span_list_limit: { min: 1, max: 500 },
    search_window_days: { default: 7, max: 90 },
    score_batch_size: { min: 1, max: 1000 },
    client_id_max: 128,
    max_body_bytes: config.maxBodyBytes,
    max_otlp_body_bytes: config.maxOtlpBodyBytes,
    max_otlp_decompressed_bytes: config.maxOtlpDecompressedBytes,
  };
}

export function systemRoutes(all: () => readonly AnyRoute[]) {
  return [
    route({
      method: 'GET',
      path: '/v1/capabilities',
      permission: 'none',
      note: {
        tag: 'Health and system',
        summary: 'What this server offers',
        description:
          'Features are true exactly when this server answers them (its mode and this version); limits include the configured body caps.',
        answers: [answer(200, 'CapabilitiesAnswer', 'The capabilities.')],
      },
      handler(_input, ctx) {
        const served = new Set(all().map((r) => `${r.method} ${r.path}`));
        const features = Object.fromEntries(
          Object.entries(FEATURES).map(([name, [method, path]]) => [
            name,
            served.has(`${method} ${path}`) && refusalFor(ctx.config.mode, path.replace(/:[^/]+/g, 'x')) === null,
          ]),
        );
        return data({
          mode: ctx.config.mode,
          version: ctx.services.version,
          api_version: '1.0',
          features,
          limits: limits(ctx.config),
        } satisfies Capabilities);
      },
    }),
    route({
      method: 'GET',
      path: '/v1/pricing',
      permission: 'none',
      note: {
        tag: 'Health and system',
        summary: 'Model prices used for span costs',
        answers: [answer(200, 'PricingAnswer', 'The price table (`data/pricing.json`).')],
      },
      handler: (_input, ctx) => data(ctx.services.pricing),
    }),
  ];
}
