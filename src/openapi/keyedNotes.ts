/**
 * The notes of the routes that do not carry their own yet, keyed like the route table
 * (`GET /v1/traces/:traceId`); each moves onto its route declaration (http/routes/*.ts). The
 * helpers (note.ts) take catalog names with their examples, so tsc checks each example against its
 * type and typia checks the tags (test/unit/openapi/operations.test.ts).
 */
import { CREATED, ENV_ID, SCORE_EXAMPLE, SCORE_ID, SUMMARY_EXAMPLE, TRACE_ID } from './examples.js';
import { answer, payload, type OperationNote } from './note.js';
import { METRICS_OPERATIONS } from './metricsOperations.js';

const CSV = { 'text/csv': 'With `format=csv`: the same rows as CSV (a header line, then one line per row).' };
const PAGE_HEADERS = { 'X-Total-Count': 'With `format=csv` (and the span exports): the number of matching rows.' };

const SYSTEM = 'Health and system';
const REFERENCE = 'Reference';
const WEB_UI = 'Web UI';

/** A tenant-wide route given an `app_id` of no app of the caller's tenant. */
export const NO_SUCH_APP = { status: 404, when: '`not_found`: `app_id` names no app of the tenant.' };
/** Why a list of traces or spans refuses its query beyond its schema. */
const LIST_REFUSALS = '`invalid_query_parameters`: `environment` names no environment of the app; `invalid_filter`: `filter` does not parse or names an unknown field; `invalid_time_window`: the window\'s start is not before its end, or it spans more than 90 days.';
/** Why a list or aggregation of scores refuses its kinds. */
const SCORE_KINDS = '`invalid_query_parameters`: `data_type` is not NUMERIC, BOOLEAN or CATEGORICAL, or `source` not api, annotation, eval or sdk (any case)';
/** Why a score is refused beyond its schema: the one of `POST /v1/scores`, or an item of a batch. */
const SCORE_RULES =
  '`resource_id` is missing, or neither a trace id (32 hex characters) nor a span id (16) nor the `session_id` scored; `data_type` is not NUMERIC, BOOLEAN or CATEGORICAL (any case), or `dataType` disagrees with it, or the score config of the name has another type; `source` is not api, annotation, eval or sdk; the `score` or `label` does not fit the type or the score config (a score missing, outside the config\'s range or not its category\'s value, a BOOLEAN score other than 0 or 1, a `label` not one of the categories)';
/** Why a score config is refused beyond its schema (on create and update). */
const SCORE_CONFIG_RULES =
  '`invalid_request_body`: `data_type` is not NUMERIC, BOOLEAN or CATEGORICAL (any case); `min_value` or `max_value` on a config that is not NUMERIC, or `max_value` below `min_value`; `categories` empty on a CATEGORICAL config, on one of another type, or with a label twice.';
/** A search body's refusals beyond its schema. */
const SEARCH_REFUSALS = '`invalid_request_body`: `environment` names no environment of the app; `invalid_filter`: a filter names an unknown field, an operator or value its field does not take, or an environment the app lacks; `invalid_time_window`: the window\'s start is not before its end, or it spans more than 90 days.';

export const KEYED_NOTES: Readonly<Record<string, OperationNote>> = {
  'GET /v1/traces': {
    tag: 'Traces',
    summary: 'List traces',
    description: 'Latest first by default; `filter` is the string filter expression (`GET /v1/filter-schema` lists fields and operators).',
    query: 'TraceListQuery',
    answers: [{ ...answer(200, 'TraceSearchPage', 'A page of trace summaries.'), media: CSV, headers: PAGE_HEADERS }],
    errors: [{ status: 400, when: LIST_REFUSALS }],
  },
  'POST /v1/traces/search': {
    tag: 'Traces',
    summary: 'Search traces with JSON filters',
    description: 'Top-level filters are combined with AND; an `or` group holds predicates of which one must match.',
    body: payload('TraceSearchBody', {
      slowAndExpensive: {
        filters: [
          { field: 'latency_ms', operator: 'between', value: [1000, 5000] },
          { or: [{ field: 'model', operator: 'equals', value: 'gpt-4o' }, { field: 'model', operator: 'startsWith', value: 'claude' }] },
        ],
        sort_by: 'cost',
        sort_order: 'desc',
        limit: 20,
      },
    }),
    answers: [answer(200, 'TraceSearchPage', 'A page of trace summaries.', { page: { data: [SUMMARY_EXAMPLE], pagination: { total: 1, limit: 20, offset: 0 } } })],
    errors: [{ status: 400, when: SEARCH_REFUSALS }],
  },
  'GET /v1/spans': {
    tag: 'Spans',
    summary: 'List spans',
    description: 'The convenience parameters and `filter` are combined with AND. `format=parquet` or `arrow` streams every matching span as a file (or the page `limit`/`offset` name).',
    query: 'SpanListQuery',
    answers: [
      {
        ...answer(200, 'SpanPage', 'A page of spans.'),
        media: {
          ...CSV,
          'application/vnd.apache.parquet': 'With `format=parquet`: the spans as a Parquet file.',
          'application/vnd.apache.arrow.stream': 'With `format=arrow`: the spans as an Arrow IPC stream.',
        },
        headers: PAGE_HEADERS,
      },
    ],
    errors: [{ status: 400, when: LIST_REFUSALS }],
  },
  'POST /v1/spans/search': {
    tag: 'Spans',
    summary: 'Search spans with JSON filters',
    body: payload('SpanSearchBody', { generations: { filters: [{ field: 'type', operator: 'equals', value: 'GENERATION' }, { field: 'tokens', operator: 'gt', value: 1000 }] } }),
    answers: [answer(200, 'SpanPage', 'A page of spans.')],
    errors: [{ status: 400, when: SEARCH_REFUSALS }],
  },
  'GET /v1/filter-schema': {
    tag: 'Traces',
    summary: 'Filterable fields and operators',
    description: 'Per resource (traces, spans, scores): each field\'s type and operators, the operators\' string and JSON spellings, and the limits.',
    answers: [answer(200, 'FilterSchemaAnswer', 'The filter schema.')],
  },
  'POST /v1/scores': {
    tag: 'Scores',
    summary: 'Create a score',
    description: 'Scores a trace or span (`resource_id`), or a session (`session_id` alone). Scores are append-only.',
    body: payload('ScoreBody', { numeric: { name: 'helpfulness', resource_id: TRACE_ID, score: 0.9, reason: 'Answered with the tracking link' } }),
    answers: [answer(201, 'ScoreAnswer', 'The score.', { created: { data: SCORE_EXAMPLE } })],
    errors: [{ status: 400, when: `\`invalid_request_body\`: ${SCORE_RULES}.` }],
  },
  'POST /v1/scores/batch': {
    tag: 'Scores',
    summary: 'Create up to 1000 scores',
    description: 'Each item is judged on its own; the stored ones are stored in one transaction.',
    body: payload('ScoreBatchRequest', {
      two: {
        scores: [
          { name: 'helpfulness', resource_id: TRACE_ID, score: 0.9, client_id: 'a' },
          { name: 'helpfulness', score: 1, client_id: 'b' },
        ],
      },
    }),
    answers: [
      answer(201, 'ScoreBatchAnswer', 'Every item was stored.'),
      answer(207, 'ScoreBatchAnswer', 'Some items were refused; each result says why.', {
        partly: {
          data: {
            results: [
              { index: 0, id: SCORE_ID, status: 'success', client_id: 'a' },
              { index: 1, id: null, status: 'error', client_id: 'b', error: { code: 'invalid_request_body', message: 'resource_id: required unless session_id names a session', field: 'resource_id' } },
            ],
            summary: { total: 2, succeeded: 1, failed: 1 },
          },
        },
      }),
      answer(400, 'ScoreBatchFailure', 'Every item was refused, or the envelope is malformed.'),
      answer(500, 'ScoreBatchFailure', 'The insert failed: no score of the batch was stored.'),
    ],
    errors: [
      { status: 400, when: `\`invalid_request_body\` when every item is refused, with \`details\` keyed by the item's index, each \`field: why\`: ${SCORE_RULES}.` },
      { status: 413, when: 'More than 1000 items, or a body over the limit.' },
    ],
  },
  'GET /v1/scores': {
    tag: 'Scores',
    summary: 'List scores',
    query: 'ScoreListQuery',
    answers: [{ ...answer(200, 'ScorePage', 'A page of scores, latest first.'), media: CSV, headers: PAGE_HEADERS }],
    errors: [{ status: 400, when: `${SCORE_KINDS}; \`invalid_time_window\`.` }],
  },
  'GET /v1/scores/names': {
    tag: 'Scores',
    summary: 'The score names in use',
    answers: [answer(200, 'ScoreNamesAnswer', 'The names.', { names: { data: ['correctness', 'helpfulness'] } })],
  },
  'GET /v1/scores/aggregations': {
    tag: 'Scores',
    summary: 'Scores aggregated by name',
    query: 'ScoreAggregationQuery',
    answers: [answer(200, 'ScoreAggregationsAnswer', 'One row per score name.', { byName: { data: [{ name: 'helpfulness', count: 120, avg_score: 0.82, min_score: 0, max_score: 1 }] } })],
    errors: [{ status: 400, when: `${SCORE_KINDS}; \`invalid_filter\`; \`invalid_time_window\`.` }],
  },
  'POST /v1/scores/search': {
    tag: 'Scores',
    summary: 'Search scores with JSON filters',
    body: payload('ScoreSearchBody', { low: { filters: [{ field: 'score', operator: 'lt', value: 0.5 }], sort_by: 'score', sort_order: 'asc' } }),
    answers: [answer(200, 'ScorePage', 'A page of scores.', { page: { data: [SCORE_EXAMPLE], pagination: { total: 1, limit: 50, offset: 0 } } })],
  },
  'GET /v1/scores/:scoreId': { tag: 'Scores', summary: 'One score', params: 'ScoreParams', answers: [answer(200, 'ScoreAnswer', 'The score.')] },
  'DELETE /v1/scores/:scoreId': { tag: 'Scores', summary: 'Delete a score', params: 'ScoreParams', answers: [answer(200, 'ScoreAnswer', 'The deleted score.')] },
  'GET /v1/score-configs': { tag: 'Score configs', summary: 'List score configs', query: 'PageQuery', answers: [answer(200, 'ScoreConfigPage', 'A page of configs.')] },
  'GET /v1/score-configs/:name': { tag: 'Score configs', summary: 'One score config', params: 'ScoreConfigParams', answers: [answer(200, 'ScoreConfigAnswer', 'The config.')] },
  'POST /v1/score-configs': {
    tag: 'Score configs',
    summary: 'Create a score config',
    description: 'Scores with the config\'s name are then checked against it (range, categories).',
    body: payload('ScoreConfigBody', {
      categorical: { name: 'tone', data_type: 'CATEGORICAL', categories: [{ label: 'rude', value: 0 }, { label: 'neutral', value: 1 }, { label: 'kind', value: 2 }] },
      numeric: { name: 'helpfulness', data_type: 'NUMERIC', min_value: 0, max_value: 1 },
    }),
    answers: [answer(201, 'ScoreConfigAnswer', 'The config.')],
    errors: [
      { status: 400, when: SCORE_CONFIG_RULES },
      { status: 409, when: '`conflict`: a config of that name exists.' },
    ],
  },
  'PATCH /v1/score-configs/:name': {
    tag: 'Score configs',
    summary: 'Update a score config',
    description: 'The name and data type never change; `null` clears a field.',
    params: 'ScoreConfigParams',
    body: payload('ScoreConfigPatchBody', { range: { max_value: 10 } }),
    answers: [answer(200, 'ScoreConfigAnswer', 'The config.')],
    errors: [{ status: 400, when: SCORE_CONFIG_RULES }],
  },
  'POST /v1/comments': {
    tag: 'Comments',
    summary: 'Comment on a trace, span or session',
    body: payload('CommentBody', { onTrace: { resource_type: 'trace', resource_id: TRACE_ID, content: 'Escalated to a human.' } }),
    answers: [
      answer(201, 'CommentAnswer', 'The comment.', {
        created: { data: { id: SCORE_ID, resource_type: 'trace', resource_id: TRACE_ID, content: 'Escalated to a human.', author_user_id: null, environment_id: ENV_ID, created_at: CREATED } },
      }),
    ],
    errors: [
      { status: 400, when: '`invalid_request_body`: `resource_id` cannot be an id of `resource_type` (a trace id is 32 hex characters, a span id 16), or `content` is blank.' },
      { status: 404, when: '`not_found`: no such trace, span or session in the app.' },
    ],
  },
  'GET /v1/comments': {
    tag: 'Comments',
    summary: 'The comments on a resource',
    query: 'CommentListQuery',
    answers: [answer(200, 'CommentPage', 'A page of comments.')],
    errors: [{ status: 400, when: '`invalid_query_parameters`: `resource_id` cannot be an id of `resource_type` (a trace id is 32 hex characters, a span id 16).' }],
  },
  'GET /v1/comments/:commentId': { tag: 'Comments', summary: 'One comment', params: 'CommentParams', answers: [answer(200, 'CommentAnswer', 'The comment.')] },
  'DELETE /v1/comments/:commentId': { tag: 'Comments', summary: 'Delete a comment', params: 'CommentParams', answers: [answer(200, 'CommentAnswer', 'The deleted comment.')] },
  ...METRICS_OPERATIONS,
};
