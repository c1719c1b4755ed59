/**
 * Scores, score configs and comments (spec: Scores). Scores are append-only; each item of a batch is
 * judged on its own and the batch is stored in one transaction. Every read is scoped to the caller's
 * tenant, app and pinned environment: ids of other apps answer 404 exactly like unknown ids.
 */
import {
  validateCommentBody,
  validateCommentListQuery,
  validateCommentParams,
  validatePageQuery,
  validateScoreAggregationQuery,
  validateScoreBatchBody,
  validateScoreBody,
  validateScoreConfigBody,
  validateScoreConfigParams,
  validateScoreConfigPatchBody,
  validateScoreListQuery,
  validateScoreParams,
  validateScoreSearchBody,
} from '../../contract/scores.js';
import { ApiError, ERRORS, validationError } from '../../core/errors.js';
import { parseFilter, validateJsonFilters, type Filter } from '../../core/filter/index.js';
import {
  assertBatchSize,
  batchAnswer,
  type BatchAnswer,
  type BatchItemResult,
  type ItemOutcome,
} from '../../core/scores/batch.js';
import { checkContent, commentTarget } from '../../core/scores/comment.js';
import { checkConfigDefinition } from '../../core/scores/config.js';
import { clientIdOf, prepareChecked, prepareItem, type PreparedScore } from '../../core/scores/item.js';
import type { ItemError } from '../../core/scores/model.js';
import { planAggregation, planList, type ScoreSelection } from '../../core/scores/selection.js';
import { resolveWindow } from '../../core/window.js';
import type { ScoreAnswer } from '../../store/scores/scores.js';
import type { ReadScope } from '../../store/scope.js';
import { bytes, data, json, type Reply } from '../reply.js';
import { paged } from '../paged.js';
import { readScopeOf, actorOf } from '../principal.js';
import { route, type Context } from '../route.js';
import { CREATED, ENV_ID, SCORE_EXAMPLE, SCORE_ID, TRACE_ID } from '../../openapi/examples.js';
import { CSV, PAGE_HEADERS, SCORE_CONFIG_RULES, SCORE_KINDS, SCORE_RULES } from '../../openapi/phrases.js';
import { answer, payload } from '../../openapi/note.js';

const DEFAULT_PAGE = 50;
/** 1000 items with long reasons do not fit the default JSON body limit. */
const BATCH_BODY_BYTES = 16 * 1024 * 1024;
/** With TRACELAKE_FAULT_INJECTION on, this header value makes the score insert fail for real. */
const FAULT_HEADER = 'x-tracelake-fault';

function readScope(ctx: Context): ReadScope {
  return readScopeOf(ctx.principal);
}

function appScope(ctx: Context) {
  return { tenantId: ctx.principal.tenantId, appId: ctx.principal.appId };
}

function createdBy(ctx: Context): string {
  return actorOf(ctx.principal);
}

function injectFault(ctx: Context, headers: Readonly<Record<string, string>>): boolean {
  return ctx.config.faultInjection && headers[FAULT_HEADER] === 'score-insert';
}

/** Stores prepared scores in the caller's environment; every entry point of scores inserts through here. */
export async function insert(ctx: Context, items: PreparedScore[], headers: Readonly<Record<string, string>>) {
  const inserted = await ctx.services.store.run('insertScores', {
    scope: readScope(ctx),
    writeEnvironmentId: ctx.principal.environmentId,
    items,
    createdBy: createdBy(ctx),
    fault: injectFault(ctx, headers),
  });
  if (inserted.insertFailed !== null)
    ctx.services.log.error(
      { requestId: ctx.requestId, err: inserted.insertFailed, items: items.length },
      'score insert failed',
    );
  return inserted;
}

/** The error of the one score of `POST /v1/scores`, as the spec's error shapes. */
export function itemFailure(error: ItemError): ApiError {
  if (error.code === 'invalid_request_body') {
    const field = error.field ?? 'body';
    return validationError('body', { [field]: error.message.replace(`${field}: `, '') });
  }
  return new ApiError(error.code, error.message);
}

function listReply(answer: ScoreAnswer, limit: number, offset: number): Reply {
  if (answer.kind === 'csv')
    return bytes(answer.csv, 'text/csv; charset=utf-8', 200, { 'X-Total-Count': String(answer.total) });
  return json({ data: answer.data, pagination: { total: answer.total, limit, offset } });
}

/** The string filter of a query, parsed and checked; the store compiles it after the selection. */
function queryFilter(text: string | undefined): Filter | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  return parseFilter(text, 'scores');
}

const scoreRoutesOnly = [
  route({
    method: 'POST',
    path: '/v1/scores',
    permission: 'score.write',
    validate: { body: validateScoreBody },
    note: {
      tag: 'Scores',
      summary: 'Create a score',
      description: 'Scores a trace or span (`resource_id`), or a session (`session_id` alone). Scores are append-only.',
      body: payload('ScoreBody', {
        numeric: { name: 'helpfulness', resource_id: TRACE_ID, score: 0.9, reason: 'Answered with the tracking link' },
      }),
      answers: [answer(201, 'ScoreAnswer', 'The score.', { created: { data: SCORE_EXAMPLE } })],
      errors: [{ status: 400, when: `\`invalid_request_body\`: ${SCORE_RULES}.` }],
    },
    async handler({ body, headers }, ctx) {
      const prepared = prepareChecked(body, 0);
      if (!prepared.ok) throw itemFailure(prepared.error);
      const { outcomes, scores, insertFailed } = await insert(ctx, [prepared.item], headers);
      if (insertFailed !== null)
        throw new ApiError('internal_error', 'The score insert failed; the score was not stored');
      const [outcome] = outcomes as [ItemOutcome];
      if (outcome.error) throw itemFailure(outcome.error);
      return data(scores[0], 201);
    },
  }),
  route({
    method: 'POST',
    path: '/v1/scores/batch',
    permission: 'score.write',
    maxBodyBytes: (config) => Math.max(config.maxBodyBytes, BATCH_BODY_BYTES),
    validate: { body: validateScoreBatchBody },
    note: {
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
                {
                  index: 1,
                  id: null,
                  status: 'error',
                  client_id: 'b',
                  error: {
                    code: 'invalid_request_body',
                    message: 'resource_id: required unless session_id names a session',
                    field: 'resource_id',
                  },
                },
              ],
              summary: { total: 2, succeeded: 1, failed: 1 },
            },
          },
        }),
        answer(400, 'ScoreBatchFailure', 'Every item was refused, or the envelope is malformed.'),
        answer(500, 'ScoreBatchFailure', 'The insert failed: no score of the batch was stored.'),
      ],
      errors: [
        {
          status: 400,
          when: `\`invalid_request_body\` when every item is refused, with \`details\` keyed by the item's index, each \`field: why\`: ${SCORE_RULES}.`,
        },
        { status: 413, when: 'More than 1000 items, or a body over the limit.' },
      ],
    },
    async handler({ body, headers }, ctx) {
      assertBatchSize(body.scores.length);
      const outcomes: ItemOutcome[] = [];
      const items: PreparedScore[] = [];
      body.scores.forEach((raw, index) => {
        const prepared = prepareItem(raw, index, validateScoreBody);
        if (prepared.ok) items.push(prepared.item);
        else outcomes.push({ index, error: prepared.error });
      });
      let insertFailed = false;
      if (items.length > 0) {
        const inserted = await insert(ctx, items, headers);
        outcomes.push(...inserted.outcomes);
        insertFailed = inserted.insertFailed !== null;
      }
      const answer = batchAnswer(outcomes, body.scores.map(clientIdOf), insertFailed);
      const payload = { results: answer.results, summary: answer.summary };
      if (answer.status === 400) return batchFailure('invalid_request_body', payload);
      if (answer.status === 500) return batchFailure('internal_error', payload);
      return data(payload, answer.status);
    },
  }),
  route({
    method: 'GET',
    path: '/v1/scores',
    permission: 'score.read',
    validate: { query: validateScoreListQuery },
    note: {
      tag: 'Scores',
      summary: 'List scores',
      query: 'ScoreListQuery',
      answers: [{ ...answer(200, 'ScorePage', 'A page of scores, latest first.'), media: CSV, headers: PAGE_HEADERS }],
      errors: [{ status: 400, when: `${SCORE_KINDS}; \`invalid_time_window\`.` }],
    },
    async handler({ query }, ctx) {
      const limit = query.limit ?? DEFAULT_PAGE;
      const offset = query.offset ?? 0;
      const page = {
        scope: readScope(ctx),
        selection: planList(query),
        limit,
        offset,
        sortBy: 'created_at' as const,
        sortOrder: 'desc' as const,
        format: query.format ?? 'json',
      };
      return listReply(await ctx.services.store.run('listScores', { page }), limit, offset);
    },
  }),
  route({
    method: 'GET',
    path: '/v1/scores/names',
    permission: 'score.read',
    note: {
      tag: 'Scores',
      summary: 'The score names in use',
      answers: [answer(200, 'ScoreNamesAnswer', 'The names.', { names: { data: ['correctness', 'helpfulness'] } })],
    },
    handler: async (_input, ctx) => data(await ctx.services.store.run('scoreNames', { scope: readScope(ctx) })),
  }),
  route({
    method: 'GET',
    path: '/v1/scores/aggregations',
    permission: 'score.read',
    surface: 'cloud',
    validate: { query: validateScoreAggregationQuery },
    note: {
      tag: 'Scores',
      summary: 'Scores aggregated by name',
      query: 'ScoreAggregationQuery',
      answers: [
        answer(200, 'ScoreAggregationsAnswer', 'One row per score name.', {
          byName: { data: [{ name: 'helpfulness', count: 120, avg_score: 0.82, min_score: 0, max_score: 1 }] },
        }),
      ],
      errors: [{ status: 400, when: `${SCORE_KINDS}; \`invalid_filter\`; \`invalid_time_window\`.` }],
    },
    async handler({ query }, ctx) {
      const scope = readScope(ctx);
      const plan = planAggregation(query, Date.now());
      const filter = queryFilter(query.filter);
      return data(await ctx.services.store.run('aggregateScores', { scope, plan, ...(filter ? { filter } : {}) }));
    },
  }),
  route({
    method: 'POST',
    path: '/v1/scores/search',
    permission: 'score.read',
    surface: 'cloud',
    validate: { body: validateScoreSearchBody },
    note: {
      tag: 'Scores',
      summary: 'Search scores with JSON filters',
      body: payload('ScoreSearchBody', {
        low: { filters: [{ field: 'score', operator: 'lt', value: 0.5 }], sort_by: 'score', sort_order: 'asc' },
      }),
      answers: [
        answer(200, 'ScorePage', 'A page of scores.', {
          page: { data: [SCORE_EXAMPLE], pagination: { total: 1, limit: 50, offset: 0 } },
        }),
      ],
    },
    async handler({ body }, ctx) {
      const scope = readScope(ctx);
      const { fromMs, toMs } = resolveWindow(body, Date.now());
      const selection: ScoreSelection = { equals: [], fromMs, toMs };
      const filter = validateJsonFilters(body.filters ?? [], 'scores');
      const limit = body.limit ?? DEFAULT_PAGE;
      const offset = body.offset ?? 0;
      const page = {
        scope,
        selection,
        limit,
        offset,
        sortBy: body.sort_by ?? 'created_at',
        sortOrder: body.sort_order ?? 'desc',
        format: 'json' as const,
      };
      return listReply(await ctx.services.store.run('listScores', { page, filter }), limit, offset);
    },
  }),
  route({
    method: 'GET',
    path: '/v1/scores/:scoreId',
    permission: 'score.read',
    validate: { params: validateScoreParams },
    note: {
      tag: 'Scores',
      summary: 'One score',
      params: 'ScoreParams',
      answers: [answer(200, 'ScoreAnswer', 'The score.')],
    },
    async handler({ params }, ctx) {
      const score = await ctx.services.store.run('getScore', {
        scope: readScope(ctx),
        id: params.scoreId.toLowerCase(),
      });
      if (!score) throw new ApiError('not_found', `Score ${params.scoreId} not found`);
      return data(score);
    },
  }),
  route({
    method: 'DELETE',
    path: '/v1/scores/:scoreId',
    permission: 'score.delete',
    validate: { params: validateScoreParams },
    note: {
      tag: 'Scores',
      summary: 'Delete a score',
      params: 'ScoreParams',
      answers: [answer(200, 'ScoreAnswer', 'The deleted score.')],
    },
    async handler({ params }, ctx) {
      const score = await ctx.services.store.run('deleteScore', {
        scope: readScope(ctx),
        id: params.scoreId.toLowerCase(),
      });
      if (!score) throw new ApiError('not_found', `Score ${params.scoreId} not found`);
      return data(score);
    },
  }),
];

const configRoutes = [
  route({
    method: 'GET',
    path: '/v1/score-configs',
    permission: 'score_config.read',
    validate: { query: validatePageQuery },
    note: {
      tag: 'Score configs',
      summary: 'List score configs',
      query: 'PageQuery',
      answers: [answer(200, 'ScoreConfigPage', 'A page of configs.')],
    },
    async handler({ query }, ctx) {
      return paged(query, (page) => ctx.services.store.run('listScoreConfigs', { scope: appScope(ctx), ...page }));
    },
  }),
  route({
    method: 'GET',
    path: '/v1/score-configs/:name',
    permission: 'score_config.read',
    validate: { params: validateScoreConfigParams },
    note: {
      tag: 'Score configs',
      summary: 'One score config',
      params: 'ScoreConfigParams',
      answers: [answer(200, 'ScoreConfigAnswer', 'The config.')],
    },
    async handler({ params }, ctx) {
      const config = await ctx.services.store.run('getScoreConfig', { scope: appScope(ctx), name: params.name });
      if (!config) throw new ApiError('not_found', `No score config named "${params.name}"`);
      return data(config);
    },
  }),
  route({
    method: 'POST',
    path: '/v1/score-configs',
    permission: 'admin',
    appWide: { what: 'create score configs' },
    validate: { body: validateScoreConfigBody },
    note: {
      tag: 'Score configs',
      summary: 'Create a score config',
      description: "Scores with the config's name are then checked against it (range, categories).",
      body: payload('ScoreConfigBody', {
        categorical: {
          name: 'tone',
          data_type: 'CATEGORICAL',
          categories: [
            { label: 'rude', value: 0 },
            { label: 'neutral', value: 1 },
            { label: 'kind', value: 2 },
          ],
        },
        numeric: { name: 'helpfulness', data_type: 'NUMERIC', min_value: 0, max_value: 1 },
      }),
      answers: [answer(201, 'ScoreConfigAnswer', 'The config.')],
      errors: [
        { status: 400, when: SCORE_CONFIG_RULES },
        { status: 409, when: '`conflict`: a config of that name exists.' },
      ],
    },
    async handler({ body }, ctx) {
      const rules = checkConfigDefinition(body);
      const config = await ctx.services.store.run('createScoreConfig', {
        scope: appScope(ctx),
        name: body.name,
        rules,
        by: createdBy(ctx),
      });
      if (!config) throw new ApiError('conflict', `A score config named "${body.name}" already exists`);
      return data(config, 201);
    },
  }),
  route({
    method: 'PATCH',
    path: '/v1/score-configs/:name',
    permission: 'admin',
    appWide: { what: 'change score configs' },
    validate: { params: validateScoreConfigParams, body: validateScoreConfigPatchBody },
    note: {
      tag: 'Score configs',
      summary: 'Update a score config',
      description: 'The name and data type never change; `null` clears a field.',
      params: 'ScoreConfigParams',
      body: payload('ScoreConfigPatchBody', { range: { max_value: 10 } }),
      answers: [answer(200, 'ScoreConfigAnswer', 'The config.')],
      errors: [{ status: 400, when: SCORE_CONFIG_RULES }],
    },
    async handler({ params, body }, ctx) {
      if (body === undefined) throw validationError('body', { body: 'give the fields to change' });
      const config = await ctx.services.store.run('updateScoreConfig', {
        scope: appScope(ctx),
        name: params.name,
        patch: body,
        by: createdBy(ctx),
      });
      if (!config) throw new ApiError('not_found', `No score config named "${params.name}"`);
      return data(config);
    },
  }),
];

const commentRoutes = [
  route({
    method: 'POST',
    path: '/v1/comments',
    permission: 'score.write',
    validate: { body: validateCommentBody },
    note: {
      tag: 'Comments',
      summary: 'Comment on a trace, span or session',
      body: payload('CommentBody', {
        onTrace: { resource_type: 'trace', resource_id: TRACE_ID, content: 'Escalated to a human.' },
      }),
      answers: [
        answer(201, 'CommentAnswer', 'The comment.', {
          created: {
            data: {
              id: SCORE_ID,
              resource_type: 'trace',
              resource_id: TRACE_ID,
              content: 'Escalated to a human.',
              author_user_id: null,
              environment_id: ENV_ID,
              created_at: CREATED,
            },
          },
        }),
      ],
      errors: [
        {
          status: 400,
          when: '`invalid_request_body`: `resource_id` cannot be an id of `resource_type` (a trace id is 32 hex characters, a span id 16), or `content` is blank.',
        },
        { status: 404, when: '`not_found`: no such trace, span or session in the app.' },
      ],
    },
    async handler({ body }, ctx) {
      const comment = await ctx.services.store.run('createComment', {
        scope: readScope(ctx),
        writeEnvironmentId: ctx.principal.environmentId,
        resourceType: body.resource_type,
        target: commentTarget(body.resource_type, body.resource_id, 'body'),
        content: checkContent(body.content),
        authorUserId: body.author_user_id ?? null,
        createdBy: createdBy(ctx),
      });
      return data(comment, 201);
    },
  }),
  route({
    method: 'GET',
    path: '/v1/comments',
    permission: 'score.read',
    validate: { query: validateCommentListQuery },
    note: {
      tag: 'Comments',
      summary: 'The comments on a resource',
      query: 'CommentListQuery',
      answers: [answer(200, 'CommentPage', 'A page of comments.')],
      errors: [
        {
          status: 400,
          when: '`invalid_query_parameters`: `resource_id` cannot be an id of `resource_type` (a trace id is 32 hex characters, a span id 16).',
        },
      ],
    },
    async handler({ query }, ctx) {
      const target = commentTarget(query.resource_type, query.resource_id, 'query');
      return paged(query, (page) =>
        ctx.services.store.run('listComments', {
          scope: readScope(ctx),
          resourceType: query.resource_type,
          resourceId: target.resourceId ?? target.sessionId!,
          ...page,
        }),
      );
    },
  }),
  route({
    method: 'GET',
    path: '/v1/comments/:commentId',
    permission: 'score.read',
    validate: { params: validateCommentParams },
    note: {
      tag: 'Comments',
      summary: 'One comment',
      params: 'CommentParams',
      answers: [answer(200, 'CommentAnswer', 'The comment.')],
    },
    async handler({ params }, ctx) {
      const comment = await ctx.services.store.run('getComment', {
        scope: readScope(ctx),
        id: params.commentId.toLowerCase(),
      });
      if (!comment) throw new ApiError('not_found', `Comment ${params.commentId} not found`);
      return data(comment);
    },
  }),
  route({
    method: 'DELETE',
    path: '/v1/comments/:commentId',
    permission: 'score.write',
    validate: { params: validateCommentParams },
    note: {
      tag: 'Comments',
      summary: 'Delete a comment',
      params: 'CommentParams',
      answers: [answer(200, 'CommentAnswer', 'The deleted comment.')],
    },
    async handler({ params }, ctx) {
      const comment = await ctx.services.store.run('deleteComment', {
        scope: readScope(ctx),
        id: params.commentId.toLowerCase(),
      });
      if (!comment) throw new ApiError('not_found', `Comment ${params.commentId} not found`);
      return data(comment);
    },
  }),
];

/** Scores, score configs and comments. */
export const scoreRoutes = [...scoreRoutesOnly, ...configRoutes, ...commentRoutes];

/**
 * A batch of which no score was stored, in the spec's error shape: the generic message, `details`
 * with each failed item's index and why, and the per-item `results` and `summary` as flat fields of
 * the error (the spec's batch answer always has them; there is no top-level `data` beside `error`).
 */
function batchFailure(
  code: 'invalid_request_body' | 'internal_error',
  payload: { results: BatchItemResult[]; summary: BatchAnswer['summary'] },
) {
  const details = Object.fromEntries(
    payload.results.flatMap((r) => (r.error ? [[String(r.index), r.error.message]] : [])),
  );
  return json({ error: { code, message: ERRORS[code].message, details, ...payload } }, ERRORS[code].status);
}
