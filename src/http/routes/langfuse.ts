/**
 * The parts of Langfuse's public API its clients call besides trace export (docs/guide/langfuse.md):
 * scores (`langfuse.score.create` batches `score-create` events to `/api/public/ingestion`;
 * `POST /api/public/scores` takes one) and prompts (`langfuse.prompt.get`), answered from
 * Tracelake's own score store and git-backed prompts in the shapes `@langfuse/client` reads. The
 * export itself is `POST /api/public/otel/v1/traces` (routes/ingest.ts). Any other call under
 * `/api/public/` answers 501 naming what is served (`langfuseUnsupported`), never a 404.
 */
import {
  scoreFromLangfuse,
  validateLangfuseIngestionBody,
  validateLangfuseIngestionEvent,
  validateLangfusePromptQuery,
  validateLangfuseScoreBody,
} from '../../contract/langfuse.js';
import { validateScoreBody } from '../../contract/scores.js';
import { ApiError, validationError } from '../../core/errors.js';
import { assertBatchSize } from '../../core/scores/batch.js';
import { firstIssue, prepareItem, type PreparedScore } from '../../core/scores/item.js';
import { payload } from '../../openapi/note.js';
import { SCORE_RULES } from '../../openapi/phrases.js';
import { json } from '../reply.js';
import { route, type Context } from '../route.js';
import { fetchVersion, selectorOf } from './prompts.js';
import { insert, itemFailure } from './scores.js';

const LANGFUSE = 'Langfuse compatibility' as const;

/** What this server serves of Langfuse's API, for the 501 of everything else. */
const SERVED =
  'POST /api/public/otel/v1/traces, POST /api/public/ingestion (score-create events), POST /api/public/scores and GET /api/public/v2/prompts/{name}';

/** A 501 for a call under `/api/public/` that no route serves; null for any other path. */
export function langfuseUnsupported(method: string, path: string): ApiError | null {
  if (!path.startsWith('/api/public/')) return null;
  return new ApiError(
    'not_implemented',
    `${method} ${path} is a Langfuse API call Tracelake does not serve; of Langfuse's API it serves ${SERVED} (docs/guide/langfuse.md)`,
  );
}

/** One event's outcome in Langfuse's 207 answer. */
interface EventError {
  id: string;
  status: number;
  message: string;
  error?: string;
}

/** The Tracelake score an event or body stands for, checked as `POST /v1/scores` checks one; or why not. */
function prepareLangfuseScore(
  body: unknown,
  index: number,
): { ok: true; item: PreparedScore } | { ok: false; message: string } {
  const shaped = validateLangfuseScoreBody(body);
  if (!shaped.success) return { ok: false, message: firstIssue(shaped.errors).message };
  const score = scoreFromLangfuse(shaped.data);
  if ('refused' in score) return { ok: false, message: score.refused };
  const prepared = prepareItem(score, index, validateScoreBody);
  return prepared.ok ? prepared : { ok: false, message: prepared.error.message };
}

/** The prompt as Langfuse's API answers it (`@langfuse/client` builds its prompt clients from this). */
interface LangfusePrompt {
  name: string;
  version: number;
  type: 'text' | 'chat';
  prompt: unknown;
  config: unknown;
  labels: string[];
  tags: string[];
  commitMessage: string | null;
}

export const langfuseRoutes = [
  route({
    method: 'POST',
    path: '/api/public/ingestion',
    permission: 'score.write',
    validate: { body: validateLangfuseIngestionBody },
    note: {
      tag: LANGFUSE,
      summary: 'Langfuse ingestion batch (scores only)',
      description:
        "What `langfuse.score.create` sends on `flush()`. Each event is answered on its own in Langfuse's 207: `score-create` events become Tracelake scores (the observation, else the trace, else the session is scored; a text value is a category's label; `comment` is the reason). Every other event type is answered 501 in `errors`: Tracelake takes traces over OpenTelemetry (`/api/public/otel/v1/traces`).",
      body: payload('LangfuseIngestionBody', {
        score: {
          batch: [
            {
              id: 'b1f6c0de-0000-4000-8000-000000000001',
              type: 'score-create',
              body: { name: 'helpfulness', value: 0.9, traceId: '4bf92f3577b34da6a3ce929d0e0e4736' },
            },
          ],
        },
      }),
      answers: [
        {
          status: 207,
          description: 'Per event: `{"successes": [{"id", "status": 201}], "errors": [{"id", "status", "message"}]}`.',
          media: { 'application/json': 'The successes and errors, by event id.' },
        },
      ],
      errors: [{ status: 413, when: 'More than 1000 events.' }],
    },
    async handler({ body, headers }, ctx) {
      if (body.batch.length > 0) assertBatchSize(body.batch.length);
      const errors: EventError[] = [];
      const items: PreparedScore[] = [];
      const eventIds: string[] = [];
      body.batch.forEach((raw, index) => {
        const event = validateLangfuseIngestionEvent(raw);
        if (!event.success) {
          errors.push({ id: '', status: 400, message: `batch[${index}]: ${firstIssue(event.errors).message}` });
          return;
        }
        const { id, type } = event.data;
        eventIds[index] = id;
        if (type !== 'score-create') {
          errors.push({
            id,
            status: 501,
            message: `${type} events are not taken: Tracelake takes traces over OpenTelemetry (POST /api/public/otel/v1/traces, as the Langfuse SDK's span processor sends them) and scores as score-create events`,
            error: 'not_implemented',
          });
          return;
        }
        const prepared = prepareLangfuseScore(event.data.body, index);
        if (prepared.ok) items.push(prepared.item);
        else errors.push({ id, status: 400, message: prepared.message, error: 'invalid_request_body' });
      });
      const successes: { id: string; status: number }[] = [];
      if (items.length > 0) {
        const inserted = await insert(ctx, items, headers);
        for (const outcome of inserted.outcomes) {
          const id = eventIds[outcome.index]!;
          if (inserted.insertFailed !== null)
            errors.push({
              id,
              status: 500,
              message: 'The score insert failed; it was not stored',
              error: 'internal_error',
            });
          else if (outcome.error) {
            const failure = itemFailure(outcome.error);
            errors.push({ id, status: failure.status, message: outcome.error.message, error: failure.code });
          } else successes.push({ id, status: 201 });
        }
      }
      return json({ successes, errors }, 207);
    },
  }),
  route({
    method: 'POST',
    path: '/api/public/scores',
    permission: 'score.write',
    validate: { body: validateLangfuseScoreBody },
    note: {
      tag: LANGFUSE,
      summary: 'Create a score (Langfuse)',
      description:
        'One Langfuse score, stored as `POST /v1/scores` stores one (see `POST /api/public/ingestion` for the mapping).',
      body: payload('LangfuseScoreBody', {
        numeric: { name: 'helpfulness', value: 0.9, traceId: '4bf92f3577b34da6a3ce929d0e0e4736' },
      }),
      answers: [{ status: 200, description: 'Stored.', media: { 'application/json': '`{"id": "<the score id>"}`.' } }],
      errors: [
        {
          status: 400,
          when: `\`invalid_request_body\`: \`details.score\` when the Langfuse score has none of \`traceId\`, \`observationId\`, \`sessionId\`, has a \`datasetRunId\`, or a TEXT or CORRECTION \`dataType\`; else as \`POST /v1/scores\` refuses the score it stands for: ${SCORE_RULES}.`,
        },
        { status: 404, when: '`not_found`: the trace, observation or session scored is not in the app.' },
      ],
    },
    async handler({ body, headers }, ctx) {
      const prepared = prepareLangfuseScore(body, 0);
      if (!prepared.ok) throw validationError('body', { score: prepared.message });
      const { outcomes, scores, insertFailed } = await insert(ctx, [prepared.item], headers);
      if (insertFailed !== null)
        throw new ApiError('internal_error', 'The score insert failed; the score was not stored');
      const [outcome] = outcomes;
      if (outcome?.error) throw itemFailure(outcome.error);
      return json({ id: (scores[0] as { id: string }).id }, 200);
    },
  }),
  route({
    method: 'GET',
    path: '/api/public/v2/prompts/:name',
    permission: 'template.read',
    validate: { query: validateLangfusePromptQuery },
    note: {
      tag: LANGFUSE,
      summary: 'Get a prompt (Langfuse)',
      description:
        "What `langfuse.prompt.get(name, {label | version})` fetches: a version of a Tracelake prompt (by `label`, default `production`, or `version`) in Langfuse's shape, `{name, version, type, prompt, config, labels, tags, commitMessage}`. Tracelake prompts have no tags (`[]`).",
      query: 'LangfusePromptQuery',
      answers: [{ status: 200, description: 'The version.', media: { 'application/json': "Langfuse's Prompt." } }],
      errors: [
        { status: 400, when: '`invalid_query_parameters`: both `label` and `version`.' },
        { status: 404, when: '`not_found`: no such prompt, or no version with that label or number.' },
      ],
    },
    async handler({ params, query }, ctx: Context) {
      const { body } = await fetchVersion(ctx, params.name, selectorOf(query, 'query'));
      const version = (JSON.parse(body) as { data: LangfusePrompt & { commit_message: string | null } }).data;
      return json({
        name: version.name,
        version: version.version,
        type: version.type,
        prompt: version.prompt,
        config: version.config,
        labels: version.labels,
        tags: [],
        commitMessage: version.commit_message,
      } satisfies LangfusePrompt);
    },
  }),
];
