/**
 * Prompts (spec: `GET /v1/prompts`, template.read) and the rest of their life: versions created
 * over the API or discovered in the connected repository, labels moved, one version fetched by
 * label or number (served from the main thread's cache, with ETag / 304), rendered with its
 * variables, and its versions' metrics from the spans that name it. Writes need an admin.
 */
import {
  validateCreatePromptBody,
  validatePromptFetchQuery,
  validatePromptLabelParams,
  validatePromptListQuery,
  validatePromptMetricsQuery,
  validatePromptParams,
  validatePromptVersionParams,
  validateRenderBody,
  validateSetLabelsBody,
  type CreatePromptBody,
} from '../../contract/prompts.js';
import type { LabelRemoval, PromptMetricsAnswer, RenderedPrompt } from '../../contract/responses.js';
import { ApiError, validationError } from '../../core/errors.js';
import type { ChatMessage } from '../../core/prompts/document.js';
import { MAX_TEMPLATE_CHARS } from '../../core/prompts/limits.js';
import { isPromptName, labelsProblem, LATEST, NAME_RULE, PRODUCTION } from '../../core/prompts/names.js';
import type { JsonValue } from '../../core/span.js';
import { resolveWindow } from '../../core/window.js';
import { promptModules } from '../../promptModules.js';
import { RENDER_MAX_CHARS, RENDER_TIME_BUDGET_MS } from '../promptRenderer.js';
import type { PromptVersionView, Selector } from '../../store/prompts/prompts.js';
import { etagOf, noneMatch } from '../etag.js';
import { actorOf, readScopeOf } from '../principal.js';
import { bytes, data, json } from '../reply.js';
import { paged } from '../paged.js';
import { route, type Context } from '../route.js';
import { CREATED } from '../../openapi/examples.js';
import { answer, payload } from '../../openapi/note.js';
import {
  CACHE_HEADERS,
  CHAT_VERSION,
  COMMIT,
  IF_NONE_MATCH,
  LABELS_REFUSED,
  NOT_CONNECTED,
  NOT_MODIFIED,
  VERSION_EXAMPLE,
} from '../../openapi/promptExamples.js';

const JSON_TYPE = 'application/json';

function appOf(ctx: Context) {
  return { tenantId: ctx.principal.tenantId, appId: ctx.principal.appId };
}

/** After a write: the app's cached answers go. */
function changed(ctx: Context): void {
  ctx.services.prompts.invalidate(ctx.principal.tenantId, ctx.principal.appId);
}

export function selectorOf(query: { label?: string; version?: number }, part: 'query' | 'body'): Selector {
  if (query.label !== undefined && query.version !== undefined)
    throw validationError(part, { version: 'give label or version, not both' });
  return query.version !== undefined ? { version: query.version } : { label: query.label ?? PRODUCTION };
}

function describe(name: string, s: Selector): string {
  return 'version' in s
    ? `Prompt "${name}" has no version ${s.version}`
    : `Prompt "${name}" has no version labelled "${s.label}"`;
}

/** One version's answer, from the cache or the store (and then cached). */
export async function fetchVersion(
  ctx: Context,
  name: string,
  selector: Selector,
): Promise<{ body: string; etag: string }> {
  const { tenantId, appId } = ctx.principal;
  const key = 'version' in selector ? `v:${selector.version}` : `l:${selector.label}`;
  const cache = ctx.services.prompts;
  const hit = cache.get(tenantId, appId, name, key);
  if (hit) return hit;
  const generation = cache.generation(tenantId, appId);
  const view = isPromptName(name)
    ? await ctx.services.store.run('getPromptVersion', { app: appOf(ctx), name, selector })
    : null;
  if (!view) throw new ApiError('not_found', describe(name, selector));
  const body = JSON.stringify({ data: view });
  const answer = { body, etag: etagOf(body) };
  cache.set(tenantId, appId, name, key, generation, answer);
  return answer;
}

/** Finds new prompt files when the connected branch moved; a repository that cannot be read does not stop the listing. */
async function discoverQuietly(ctx: Context): Promise<void> {
  try {
    const report = await ctx.services.git.discoverIfMoved(appOf(ctx), 'git');
    if (report && report.created.length > 0) changed(ctx);
  } catch (e) {
    ctx.services.log.warn(
      { err: e, app_id: ctx.principal.appId },
      'could not look for new prompts in the connected repository',
    );
  }
}

async function contentOf(body: CreatePromptBody) {
  const { promptContent } = await promptModules();
  const type = body.type ?? (typeof body.prompt === 'string' ? 'text' : 'chat');
  const content = promptContent(
    type,
    body.prompt as string | ChatMessage[],
    (body.config ?? {}) as Record<string, JsonValue>,
  );
  if (!content.ok) {
    const error = validationError('body', { prompt: content.error });
    // A template over the size limit: the limit is said as a field too.
    if (content.limit === undefined) throw error;
    throw new ApiError(error.code, error.message, { ...error.fields, limit: content.limit });
  }
  return content.value;
}

export const promptRoutes = [
  route({
    method: 'GET',
    path: '/v1/prompts',
    permission: 'template.read',
    validate: { query: validatePromptListQuery },
    note: {
      tag: 'Prompts and templates',
      summary: 'List prompts',
      description:
        "Each prompt with its versions and labels, and its highest version's type, variables and config. When the connected branch moved, new prompt files are read first (a repository that cannot be read does not fail the listing).",
      query: 'PromptListQuery',
      answers: [
        answer(200, 'PromptPage', 'A page of prompts.', {
          page: {
            data: [
              {
                name: 'support/greeting',
                type: 'text',
                versions: [1, 2, 3],
                latest_version: 3,
                labels: { latest: 3, production: 3, staging: 2 },
                variables: ['name', 'product'],
                config: { model: 'gpt-4o', temperature: 0.2 },
                source: 'git',
                updated_at: CREATED,
              },
            ],
            pagination: { total: 1, limit: 50, offset: 0 },
          },
        }),
      ],
    },
    async handler({ query }, ctx) {
      await discoverQuietly(ctx);
      return paged(query, (page) =>
        ctx.services.store.run('listPrompts', {
          app: appOf(ctx),
          query: {
            ...(query.name ? { name: query.name } : {}),
            ...(query.label ? { label: query.label } : {}),
            ...page,
          },
        }),
      );
    },
  }),
  route({
    method: 'POST',
    path: '/v1/prompts',
    permission: 'admin',
    validate: { body: validateCreatePromptBody },
    appWide: { what: 'create prompt versions', labels: ({ body }) => body.labels ?? [] },
    note: {
      tag: 'Prompts and templates',
      summary: 'Create a prompt version',
      description:
        "The next version of the prompt (the first creates it): a text template, or chat messages. `type` defaults to what `prompt` is; a prompt keeps the type of its first version. Labels move onto this version; `latest` is the server's.",
      body: payload('CreatePromptBody', {
        text: {
          name: 'support/greeting',
          prompt: 'Hello {{name}}, welcome to {{product}}!',
          config: { model: 'gpt-4o', temperature: 0.2 },
          labels: ['staging'],
          commit_message: 'Friendlier greeting',
        },
        chat: {
          name: 'support/agent',
          type: 'chat',
          prompt: [
            { role: 'system', content: 'You are the support agent of {{product}}.' },
            { role: 'user', content: '{{question}}' },
          ],
          config: { model: 'gpt-4o-mini' },
          commit_message: 'First agent prompt',
        },
      }),
      answers: [answer(201, 'PromptVersionAnswer', 'The version.', { chat: { data: CHAT_VERSION } })],
      errors: [
        {
          status: 400,
          when: `\`invalid_request_body\` with \`details\`: a \`name\` that is not ${NAME_RULE}; ${LABELS_REFUSED}; a \`prompt\` not of the \`type\` (a text prompt is a string, a chat prompt a list of messages), a template that breaks the rules (an unknown \`{{helper}}\`, unbalanced blocks), or templates over ${MAX_TEMPLATE_CHARS} characters, all messages together (\`limit\` says it).`,
        },
        { status: 409, when: "`conflict`: the prompt's versions are of the other type." },
      ],
    },
    async handler({ body }, ctx) {
      if (!isPromptName(body.name)) throw validationError('body', { name: `must be ${NAME_RULE}` });
      const labels = body.labels ?? [];
      const problem = labelsProblem(labels);
      if (problem) throw validationError('body', { labels: problem });
      const version = await ctx.services.store.run('createPromptVersion', {
        app: appOf(ctx),
        version: {
          name: body.name,
          content: await contentOf(body),
          labels,
          commitMessage: body.commit_message ?? null,
          source: 'api',
          sourcePath: null,
          commitSha: null,
          blobSha: null,
          by: actorOf(ctx.principal),
        },
      });
      changed(ctx);
      return data(version, 201);
    },
  }),
  route({
    method: 'POST',
    path: '/v1/prompts/sync',
    permission: 'admin',
    appWide: { what: 'read prompt versions from the git connection' },
    note: {
      tag: 'Prompts and templates',
      summary: 'Read new prompt files from the connected repository',
      description:
        "Every `prompts/**/*.md` at the connection's branch whose content no version was read from becomes the next version of its prompt (with its commit and path, and the labels of its front matter). Files that do not parse are listed in `errors`. CI can call it after a push; `GET /v1/prompts` does it too when the branch moved.",
      answers: [
        answer(200, 'PromptSyncAnswer', 'What the sync read.', {
          report: {
            data: {
              commit_sha: COMMIT,
              created: [{ name: 'support/greeting', version: 3, path: 'prompts/support/greeting.md' }],
              unchanged: ['support/agent'],
              errors: [{ path: 'prompts/broken.md', message: 'front matter: type must be text or chat' }],
            },
          },
        }),
      ],
      errors: [
        { status: 404, when: "`not_found`: the connection's branch is gone." },
        { status: 409, when: NOT_CONNECTED },
        { status: 503, when: '`unavailable`: GitHub, or the git root, cannot be read.' },
      ],
    },
    async handler(_input, ctx) {
      const report = await ctx.services.git.discoverPrompts(appOf(ctx), actorOf(ctx.principal));
      changed(ctx);
      return data(report);
    },
  }),
  route({
    method: 'GET',
    path: '/v1/prompts/:name',
    permission: 'template.read',
    validate: { params: validatePromptParams, query: validatePromptFetchQuery },
    note: {
      tag: 'Prompts and templates',
      summary: 'One version of a prompt',
      description:
        'By `label` (default `production`; `latest` is the highest version) or by `version`, not both. Percent-encode the `/` of a name in folders. Answers are cached by the server and revalidated with `ETag`.',
      params: 'PromptParams',
      query: 'PromptFetchQuery',
      headers: IF_NONE_MATCH,
      answers: [
        {
          ...answer(200, 'PromptVersionAnswer', 'The version.', {
            text: { data: VERSION_EXAMPLE },
            chat: { data: CHAT_VERSION },
          }),
          headers: CACHE_HEADERS,
        },
        NOT_MODIFIED,
      ],
      errors: [
        { status: 400, when: '`invalid_query_parameters`: both `label` and `version`.' },
        { status: 404, when: '`not_found`: no such prompt, or no version with that label or number.' },
      ],
    },
    async handler({ params, query, headers }, ctx) {
      const answer = await fetchVersion(ctx, params.name, selectorOf(query, 'query'));
      const cacheHeaders = { ETag: answer.etag, 'Cache-Control': 'no-cache' };
      if (noneMatch(headers['if-none-match'], answer.etag)) return bytes('', JSON_TYPE, 304, cacheHeaders);
      return bytes(answer.body, JSON_TYPE, 200, cacheHeaders);
    },
  }),
  route({
    method: 'PATCH',
    path: '/v1/prompts/:name/versions/:version',
    permission: 'admin',
    validate: { params: validatePromptVersionParams, body: validateSetLabelsBody },
    appWide: { what: 'move prompt labels', labels: ({ body }) => body.labels },
    note: {
      tag: 'Prompts and templates',
      summary: 'Move labels onto a version',
      description: 'Each label leaves the version it was on.',
      params: 'PromptVersionParams',
      body: payload('SetLabelsBody', { promote: { labels: ['production'] } }),
      answers: [
        answer(200, 'PromptVersionAnswer', 'The version with its labels.', { promoted: { data: VERSION_EXAMPLE } }),
      ],
      errors: [
        { status: 400, when: `\`invalid_request_body\`: ${LABELS_REFUSED}.` },
        { status: 404, when: '`not_found`: no such prompt or version.' },
      ],
    },
    async handler({ params, body }, ctx) {
      const problem = labelsProblem(body.labels);
      if (problem) throw validationError('body', { labels: problem });
      const version = Number(params.version);
      const view = await ctx.services.store.run('setPromptLabels', {
        app: appOf(ctx),
        name: params.name,
        version,
        labels: body.labels,
        by: actorOf(ctx.principal),
      });
      if (!view) throw new ApiError('not_found', describe(params.name, { version }));
      changed(ctx);
      return data(view);
    },
  }),
  route({
    method: 'DELETE',
    path: '/v1/prompts/:name/labels/:label',
    permission: 'admin',
    validate: { params: validatePromptLabelParams },
    appWide: { what: 'remove prompt labels', labels: ({ params }) => [params.label] },
    note: {
      tag: 'Prompts and templates',
      summary: 'Remove a label from a prompt',
      params: 'PromptLabelParams',
      answers: [
        answer(200, 'LabelRemovalAnswer', 'Removed.', {
          removed: { data: { name: 'support/greeting', label: 'staging', removed: true } },
        }),
      ],
      errors: [
        { status: 400, when: '`invalid_path_parameters`: `latest` (it always names the highest version).' },
        { status: 404, when: '`not_found`: the prompt has no such label.' },
      ],
    },
    async handler({ params }, ctx) {
      if (params.label === LATEST)
        throw validationError('path', { label: '"latest" always names the highest version; it cannot be removed' });
      const removed = await ctx.services.store.run('removePromptLabel', {
        app: appOf(ctx),
        name: params.name,
        label: params.label,
      });
      if (!removed) throw new ApiError('not_found', describe(params.name, { label: params.label }));
      changed(ctx);
      return data({ name: params.name, label: params.label, removed: true } satisfies LabelRemoval);
    },
  }),
  route({
    method: 'POST',
    path: '/v1/prompts/:name/render',
    permission: 'template.read',
    validate: { params: validatePromptParams, body: validateRenderBody },
    note: {
      tag: 'Prompts and templates',
      summary: 'Render a version with variables',
      description:
        'The version by `label` (default `production`) or `version`, its template filled in (Handlebars, no HTML escaping, strict: every variable the template reads must be given; `false`, `null` and `""` are values).',
      params: 'PromptParams',
      body: payload('RenderBody', {
        greeting: { variables: { name: 'Ada', product: 'Tracelake' } },
        chat: { variables: { product: 'Tracelake', question: 'Where is my order?' }, label: 'latest' },
      }),
      answers: [
        answer(200, 'RenderedPromptAnswer', 'The rendered prompt.', {
          greeting: {
            data: {
              name: 'support/greeting',
              version: 3,
              type: 'text',
              labels: ['production', 'latest'],
              config: { model: 'gpt-4o', temperature: 0.2 },
              prompt: 'Hello Ada, welcome to Tracelake!',
            },
          },
        }),
      ],
      errors: [
        {
          status: 400,
          when: '`invalid_request_body`: a variable the template reads is missing (`details` names `variables.<name>`), or both `label` and `version`.',
        },
        { status: 404, when: '`not_found`: no such prompt, or no version with that label or number.' },
        {
          status: 422,
          when: `\`render_limit_exceeded\`: the render ran longer than ${RENDER_TIME_BUDGET_MS} ms (\`budget: "time"\`) or its output passed ${RENDER_MAX_CHARS} characters (\`budget: "output"\`); \`limit\` is the budget passed, in ms or characters.`,
        },
      ],
    },
    async handler({ params, body }, ctx) {
      const answer = await fetchVersion(ctx, params.name, selectorOf(body, 'body'));
      const view = (JSON.parse(answer.body) as { data: PromptVersionView }).data;
      const rendered = await ctx.services.renderer.render(view.prompt, body.variables);
      if (!rendered.ok) {
        if ('missing' in rendered)
          throw validationError(
            'body',
            Object.fromEntries(rendered.missing.map((v) => [`variables.${v}`, 'is required by the template'])),
          );
        throw validationError('body', { variables: rendered.error });
      }
      return data({
        name: view.name,
        version: view.version,
        type: view.type,
        labels: view.labels,
        config: view.config,
        prompt: rendered.prompt,
      } satisfies RenderedPrompt);
    },
  }),
  route({
    method: 'GET',
    path: '/v1/prompts/:name/metrics',
    permission: 'metrics.read',
    validate: { params: validatePromptParams, query: validatePromptMetricsQuery },
    note: {
      tag: 'Prompts and templates',
      summary: 'What each version of a prompt did',
      description:
        "From the spans that name the prompt (`tracelake.prompt.name`/`.version`, or Langfuse's attributes) in the window (the search window rules: 7 days by default, at most 90): usage, cost, latency, and the average of each score given to those spans and to their traces.",
      params: 'PromptParams',
      query: 'PromptMetricsQuery',
      answers: [
        answer(200, 'PromptMetricsAnswer', 'One entry per version.', {
          week: {
            data: [
              {
                version: 3,
                spans: 1250,
                traces: 1180,
                input_tokens: 512000,
                output_tokens: 96000,
                tokens: 608000,
                cost: 2.24,
                latency_ms: { avg: 830, p50: 710, p95: 1900 },
                first_seen: '2026-11-14T08:00:12.000Z',
                last_seen: CREATED,
                scores: [{ name: 'helpfulness', count: 140, avg_score: 0.86 }],
                trace_scores: [],
              },
            ],
            window: { start_date: '2026-11-13T09:15:02.114Z', end_date: CREATED },
          },
        }),
      ],
      errors: [
        {
          status: 400,
          when: '`invalid_time_window`: a window over 90 days, or one that ends before it starts; `invalid_query_parameters`: a parameter of the wrong shape.',
        },
      ],
    },
    async handler({ params, query }, ctx) {
      const window = resolveWindow(query, Date.now());
      const metrics = await ctx.services.store.run('promptMetrics', {
        scope: readScopeOf(ctx.principal),
        name: params.name,
        ...window,
      });
      return json({
        data: metrics,
        window: { start_date: new Date(window.fromMs).toISOString(), end_date: new Date(window.toMs).toISOString() },
      } satisfies PromptMetricsAnswer);
    },
  }),
];
