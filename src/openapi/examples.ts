/**
 * Example values shared by the routes' notes (http/routes/*.ts), typed by the catalog so that tsc
 * checks them; test/unit/openapi/operations.test.ts validates every example with typia as well.
 */
import type { Catalog, CatalogName } from '../contract/catalog.js';

/** Named examples of one catalog type. */
export type Examples<K extends CatalogName> = Readonly<Record<string, Catalog[K]>>;

export const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
export const ROOT_SPAN = '00f067aa0ba902b7';
export const CHILD_SPAN = 'b7ad6b7169203331';
export const APP_ID = '6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b';
export const ENV_ID = '0c9e8d7f-6a5b-4c3d-8e2f-1a0b9c8d7e6f';
export const SCORE_ID = '3d2c1b0a-9f8e-4d7c-8b6a-5f4e3d2c1b0a';
export const CREATED = '2026-11-20T09:15:02.114Z';

export const SUMMARY_EXAMPLE: Catalog['TraceSearchPage']['data'][number] = {
  id: TRACE_ID,
  name: 'checkout-agent',
  status: 'OK',
  start: '2026-11-20T09:15:00.000Z',
  end: '2026-11-20T09:15:02.000Z',
  latency_ms: 2000,
  cost: 0.0123,
  tokens: 1840,
  span_count: 2,
  input_preview: 'Where is my order #1042?',
  output_preview: 'Your order shipped yesterday.',
  tags: ['support'],
  session_id: 'chat-7f3a',
  user_id: 'user-42',
  environment: 'production',
};

export const SPAN_EXAMPLE: Catalog['TraceSpansAnswer']['data'][number] = {
  id: CHILD_SPAN,
  trace_id: TRACE_ID,
  parent_id: ROOT_SPAN,
  name: 'chat gpt-4o',
  type: 'GENERATION',
  span_kind: 'llm',
  status: 'OK',
  status_message: null,
  timestamp: '2026-11-20T09:15:00.200Z',
  end_time: '2026-11-20T09:15:01.900Z',
  duration_ms: 1700,
  model: 'gpt-4o',
  prompt_name: null,
  service_name: 'checkout',
  input_tokens: 1600,
  output_tokens: 240,
  cached_input_tokens: 0,
  tokens: 1840,
  cost: 0.0123,
  session_id: 'chat-7f3a',
  user_id: 'user-42',
  tags: [],
  input_preview: 'Where is my order #1042?',
  output_preview: 'Your order shipped yesterday.',
  metadata: { customer: 'acme' },
};

export const SCORE_EXAMPLE: Catalog['ScoreAnswer']['data'] = {
  id: SCORE_ID,
  name: 'helpfulness',
  score: 0.9,
  data_type: 'NUMERIC',
  label: null,
  reason: 'Answered with the tracking link',
  source: 'api',
  user_id: null,
  resource_id: TRACE_ID,
  resource_type: 'trace',
  trace_id: TRACE_ID,
  session_id: null,
  config_id: null,
  environment_id: ENV_ID,
  created_at: CREATED,
};

export const APP_EXAMPLE: Catalog['AppAnswer']['data'] = {
  id: APP_ID,
  tenant_id: '9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d',
  name: 'checkout',
  display_name: 'Checkout assistant',
  entry_point: null,
  runtime: 'nodejs',
  commit_sha: null,
  runtime_app_name: null,
  runtime_machine_id: null,
  created_at: CREATED,
  created_by: 'key:5b4a3c2d-1e0f-4a9b-8c7d-6e5f4a3b2c1d',
  updated_at: CREATED,
  updated_by: 'key:5b4a3c2d-1e0f-4a9b-8c7d-6e5f4a3b2c1d',
  retention_days: null,
};

export const ENVIRONMENT_EXAMPLE: Catalog['EnvironmentAnswer']['data'] = {
  id: ENV_ID,
  app_id: APP_ID,
  name: 'staging',
  kind: 'preview',
  is_default: false,
  created_at: CREATED,
  updated_at: CREATED,
};

/** Examples of error bodies, by status (each an ErrorBody). */
export const ERROR_EXAMPLES: Readonly<Record<number, Examples<'ErrorBody'>>> = {
  400: {
    validation: {
      error: {
        code: 'invalid_request_body',
        message: 'Invalid request body',
        details: { limit: 'must be an integer from 1 to 1000' },
      },
    },
    filter: { error: { code: 'invalid_filter', message: 'Unknown field "modle" (did you mean "model"?)' } },
  },
  401: { missingKey: { error: { code: 'unauthorized', message: 'Missing Authorization header' } } },
  403: {
    permission: {
      error: {
        code: 'forbidden',
        message: 'This endpoint requires the trace.read permission',
        required_permission: 'trace.read',
      },
    },
  },
  429: {
    rateLimited: {
      error: {
        code: 'rate_limited',
        message: 'Too many requests for this tenant; retry in 1 s',
        retry_after_seconds: 1,
      },
    },
  },
  501: {
    local: { error: { code: 'not_available_locally', message: 'Not available on the local development server' } },
  },
  503: {
    overloaded: { error: { code: 'overloaded', message: 'More than 2048 requests in flight', retry_after_seconds: 1 } },
  },
};
