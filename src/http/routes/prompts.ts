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
  type PromptFetchQuery,
  type PromptLabelParams,
  type PromptListQuery,
  type PromptMetricsQuery,
  type PromptParams,
  type PromptVersionParams,
  type RenderBody,
  type SetLabelsBody,
} from '../../contract/prompts.js';
import type { LabelRemoval, PromptMetricsAnswer, RenderedPrompt } from '../../contract/responses.js';
import { ApiError, validationError } from '../../core/errors.js';
import type { ChatMessage } from '../../core/prompts/document.js';
import { isPromptName, labelsProblem, LATEST, NAME_RULE, PRODUCTION } from '../../core/prompts/names.js';
import type { JsonValue } from '../../core/span.js';
import { resolveWindow } from '../../core/window.js';
import { promptModules } from '../../promptModules.js';
import type { PromptVersionView, Selector } from '../../store/prompts/prompts.js';
import { etagOf, noneMatch } from '../etag.js';
import { actorOf, readScopeOf } from '../principal.js';
import { bytes, data, json } from '../reply.js';
import { route, type Context } from '../route.js';

const DEFAULT_PAGE = 50;
const JSON_TYPE = 'application/json';

function appOf(ctx: Context) {
  return { tenantId: ctx.principal.tenantId, appId: ctx.principal.appId };
}

/** After a write: the app's cached answers go. */
function changed(ctx: Context): void {
  ctx.services.prompts.invalidate(ctx.principal.tenantId, ctx.principal.appId);
}

function selectorOf(query: { label?: string; version?: number }, part: 'query' | 'body'): Selector {
  if (query.label !== undefined && query.version !== undefined) throw validationError(part, { version: 'give label or version, not both' });
  return query.version !== undefined ? { version: query.version } : { label: query.label ?? PRODUCTION };
}

function describe(name: string, s: Selector): string {
  return 'version' in s ? `Prompt "${name}" has no version ${s.version}` : `Prompt "${name}" has no version labelled "${s.label}"`;
}

/** One version's answer, from the cache or the store (and then cached). */
async function fetchVersion(ctx: Context, name: string, selector: Selector): Promise<{ body: string; etag: string }> {
  const { tenantId, appId } = ctx.principal;
  const key = 'version' in selector ? `v:${selector.version}` : `l:${selector.label}`;
  const cache = ctx.services.prompts;
  const hit = cache.get(tenantId, appId, name, key);
  if (hit) return hit;
  const generation = cache.generation(tenantId, appId);
  const view = isPromptName(name) ? await ctx.services.store.run('getPromptVersion', { app: appOf(ctx), name, selector }) : null;
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
    ctx.services.log.warn({ err: e, app_id: ctx.principal.appId }, 'could not look for new prompts in the connected repository');
  }
}

async function contentOf(body: CreatePromptBody) {
  const { promptContent } = await promptModules();
  const type = body.type ?? (typeof body.prompt === 'string' ? 'text' : 'chat');
  const content = promptContent(type, body.prompt as string | ChatMessage[], (body.config ?? {}) as Record<string, JsonValue>);
  if (!content.ok) throw validationError('body', { prompt: content.error });
  return content.value;
}

export const promptRoutes = [
  route<Record<string, string>, PromptListQuery>({
    method: 'GET',
    path: '/v1/prompts',
    permission: 'template.read',
    validate: { query: validatePromptListQuery },
    async handler({ query }, ctx) {
      await discoverQuietly(ctx);
      const limit = query.limit ?? DEFAULT_PAGE;
      const offset = query.offset ?? 0;
      const page = await ctx.services.store.run('listPrompts', { app: appOf(ctx), query: { ...(query.name ? { name: query.name } : {}), ...(query.label ? { label: query.label } : {}), limit, offset } });
      return json({ data: page.data, pagination: { total: page.total, limit, offset } });
    },
  }),
  route<Record<string, string>, Record<string, never>, CreatePromptBody>({
    method: 'POST',
    path: '/v1/prompts',
    permission: 'admin',
    validate: { body: validateCreatePromptBody },
    async handler({ body }, ctx) {
      if (!isPromptName(body.name)) throw validationError('body', { name: `must be ${NAME_RULE}` });
      const labels = body.labels ?? [];
      const problem = labelsProblem(labels);
      if (problem) throw validationError('body', { labels: problem });
      const version = await ctx.services.store.run('createPromptVersion', {
        app: appOf(ctx),
        version: { name: body.name, content: await contentOf(body), labels, commitMessage: body.commit_message ?? null, source: 'api', sourcePath: null, commitSha: null, blobSha: null, by: actorOf(ctx.principal) },
      });
      changed(ctx);
      return data(version, 201);
    },
  }),
  route({
    method: 'POST',
    path: '/v1/prompts/sync',
    permission: 'admin',
    async handler(_input, ctx) {
      const report = await ctx.services.git.discoverPrompts(appOf(ctx), actorOf(ctx.principal));
      changed(ctx);
      return data(report);
    },
  }),
  route<PromptParams, PromptFetchQuery>({
    method: 'GET',
    path: '/v1/prompts/:name',
    permission: 'template.read',
    validate: { params: validatePromptParams, query: validatePromptFetchQuery },
    async handler({ params, query, headers }, ctx) {
      const answer = await fetchVersion(ctx, params.name, selectorOf(query, 'query'));
      const cacheHeaders = { ETag: answer.etag, 'Cache-Control': 'no-cache' };
      if (noneMatch(headers['if-none-match'], answer.etag)) return bytes('', JSON_TYPE, 304, cacheHeaders);
      return bytes(answer.body, JSON_TYPE, 200, cacheHeaders);
    },
  }),
  route<PromptVersionParams, Record<string, never>, SetLabelsBody>({
    method: 'PATCH',
    path: '/v1/prompts/:name/versions/:version',
    permission: 'admin',
    validate: { params: validatePromptVersionParams, body: validateSetLabelsBody },
    async handler({ params, body }, ctx) {
      const problem = labelsProblem(body.labels);
      if (problem) throw validationError('body', { labels: problem });
      const version = Number(params.version);
      const view = await ctx.services.store.run('setPromptLabels', { app: appOf(ctx), name: params.name, version, labels: body.labels, by: actorOf(ctx.principal) });
      if (!view) throw new ApiError('not_found', describe(params.name, { version }));
      changed(ctx);
      return data(view);
    },
  }),
  route<PromptLabelParams>({
    method: 'DELETE',
    path: '/v1/prompts/:name/labels/:label',
    permission: 'admin',
    validate: { params: validatePromptLabelParams },
    async handler({ params }, ctx) {
      if (params.label === LATEST) throw validationError('path', { label: '"latest" always names the highest version; it cannot be removed' });
      const removed = await ctx.services.store.run('removePromptLabel', { app: appOf(ctx), name: params.name, label: params.label });
      if (!removed) throw new ApiError('not_found', describe(params.name, { label: params.label }));
      changed(ctx);
      return data({ name: params.name, label: params.label, removed: true } satisfies LabelRemoval);
    },
  }),
  route<PromptParams, Record<string, never>, RenderBody>({
    method: 'POST',
    path: '/v1/prompts/:name/render',
    permission: 'template.read',
    validate: { params: validatePromptParams, body: validateRenderBody },
    async handler({ params, body }, ctx) {
      const answer = await fetchVersion(ctx, params.name, selectorOf(body, 'body'));
      const view = (JSON.parse(answer.body) as { data: PromptVersionView }).data;
      const rendered = (await promptModules()).renderPrompt(view.prompt, body.variables);
      if (!rendered.ok) {
        if ('missing' in rendered) throw validationError('body', Object.fromEntries(rendered.missing.map((v) => [`variables.${v}`, 'is required by the template'])));
        throw validationError('body', { variables: rendered.error });
      }
      return data({ name: view.name, version: view.version, type: view.type, labels: view.labels, config: view.config, prompt: rendered.prompt } satisfies RenderedPrompt);
    },
  }),
  route<PromptParams, PromptMetricsQuery>({
    method: 'GET',
    path: '/v1/prompts/:name/metrics',
    permission: 'metrics.read',
    validate: { params: validatePromptParams, query: validatePromptMetricsQuery },
    async handler({ params, query }, ctx) {
      const window = resolveWindow(query.start_date, query.end_date, Date.now());
      const metrics = await ctx.services.store.run('promptMetrics', { scope: readScopeOf(ctx.principal), name: params.name, ...window });
      return json({ data: metrics, window: { start_date: new Date(window.fromMs).toISOString(), end_date: new Date(window.toMs).toISOString() } } satisfies PromptMetricsAnswer);
    },
  }),
];
