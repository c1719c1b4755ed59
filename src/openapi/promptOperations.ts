/**
 * The notes on git connections, templates and prompts (routes/git.ts, gitSetup.ts, templates.ts,
 * prompts.ts), kept apart from operations.ts for size. The handshake's page, its form and GitHub's
 * return are for a human's browser, not for API clients: they are described with their media types
 * (HTML, a form, a redirect) so the reference covers every route a server answers.
 */
import type { Catalog } from '../contract/catalog.js';
import { LABEL_RULE, NAME_RULE } from '../core/prompts/names.js';
import type { OperationNote } from './note.js';
import { CREATED } from './examples.js';
import { answer, json } from './note.js';

export const GIT_TAG = 'Git';
export const PROMPTS_TAG = 'Prompts and templates';

const COMMIT = '9fceb02d0ae598e95dc970b74767f19372d61af8';
export const STATE = 'p3Yq8cN2vK1mT7wX4zR9bL6hF0dJ5sA2eG8uI3oW1yE';
export const EXPIRES = '2026-11-20T10:15:02.114Z';
export const PAGE_HEADERS = {
  'Cache-Control': '`no-store`: the page carries the handshake\'s token.',
  'Content-Security-Policy': 'Nothing loaded from elsewhere, and the form posts to this server only.',
};
/** Why `labels` are refused, on a new version and on a move. */
const LABELS_REFUSED = `\`labels\` with a label that is not ${LABEL_RULE}, \`latest\` (the server's), or a label given twice`;
const NOT_CONNECTED = '`git_connection_missing`: the app has no git connection, or its handshake has not finished (no repository picked).';
const CACHE_HEADERS = { ETag: 'A hash of the body; send it back in `If-None-Match`.', 'Cache-Control': '`no-cache`: revalidate with `If-None-Match`.' };
const IF_NONE_MATCH = { 'If-None-Match': 'The `ETag` of an earlier answer: 304 while the answer is the same.' };
const NOT_MODIFIED = { status: 304, description: 'Not modified: the `ETag` sent is the answer\'s (no body).', headers: CACHE_HEADERS };
export const TENANT_ADMIN = '`forbidden`: not admin credentials, or an admin pinned to an environment other than production (the connection feeds every environment: a tenant admin\'s call).';

export const CONNECTED: Catalog['GitStatusAnswer']['data'] = { connected: true, provider: 'local', installation_id: 1, repository: 'acme/prompts', branch: 'main' };

const VERSION_EXAMPLE: Catalog['PromptVersionAnswer']['data'] = {
  name: 'support/greeting',
  version: 3,
  type: 'text',
  prompt: 'Hello {{name}}, welcome to {{product}}!',
  config: { model: 'gpt-4o', temperature: 0.2 },
  variables: ['name', 'product'],
  labels: ['production', 'latest'],
  commit_message: null,
  source: 'git',
  source_path: 'prompts/support/greeting.md',
  commit_sha: COMMIT,
  blob_sha: '5716ca5987cbf97d6bb54920bea6adde242d87e6',
  created_at: CREATED,
  created_by: 'key:5b4a3c2d-1e0f-4a9b-8c7d-6e5f4a3b2c1d',
};

const CHAT_VERSION: Catalog['PromptVersionAnswer']['data'] = {
  ...VERSION_EXAMPLE,
  name: 'support/agent',
  version: 1,
  type: 'chat',
  prompt: [
    { role: 'system', content: 'You are the support agent of {{product}}.' },
    { role: 'user', content: '{{question}}' },
  ],
  config: { model: 'gpt-4o-mini' },
  variables: ['product', 'question'],
  labels: ['latest'],
  commit_message: 'First agent prompt',
  source: 'api',
  source_path: null,
  commit_sha: null,
  blob_sha: null,
};

export const PROMPT_OPERATIONS: Readonly<Record<string, OperationNote>> = {
  'GET /v1/templates': {
    tag: PROMPTS_TAG,
    summary: 'A template file of the connected repository',
    description: 'A file under `prompts/`, at the connection\'s branch or `ref` (a branch or a full commit sha), with its blob and commit and what it declares: its variables and, for a prompt file (`.md`), the front matter. A file that cannot be used as a template is served all the same, with `error` saying why.',
    query: 'TemplateQuery',
    headers: IF_NONE_MATCH,
    answers: [
      {
        ...answer(200, 'TemplateAnswer', 'The file.', {
          prompt: {
            data: {
              path: 'prompts/support/greeting.md',
              repository: 'acme/prompts',
              ref: 'main',
              commit_sha: COMMIT,
              sha: '5716ca5987cbf97d6bb54920bea6adde242d87e6',
              content: '---\nlabels: [production]\nmodel: gpt-4o\ntemperature: 0.2\n---\nHello {{name}}, welcome to {{product}}!\n',
              prompt_name: 'support/greeting',
              type: 'text',
              variables: ['name', 'product'],
              config: { model: 'gpt-4o', temperature: 0.2 },
              labels: ['production'],
              error: null,
            },
          },
        }),
        headers: CACHE_HEADERS,
      },
      NOT_MODIFIED,
    ],
    errors: [
      { status: 400, when: '`invalid_query_parameters`: a `path` that is not a plain relative path of a file inside `prompts/` (a leading `/`, a `.`, `..` or empty part, a backslash or a control character), a `ref` that is neither a branch name nor a commit sha, or a file that is not UTF-8 text.' },
      { status: 404, when: '`not_found`: no such ref, or no such file at it.' },
      { status: 409, when: NOT_CONNECTED },
      { status: 413, when: '`payload_too_large`: the file is over the size a template may have.' },
      { status: 503, when: '`unavailable`: GitHub, or the git root, cannot be read.' },
    ],
  },
  'GET /v1/prompts': {
    tag: PROMPTS_TAG,
    summary: 'List prompts',
    description: 'Each prompt with its versions and labels, and its highest version\'s type, variables and config. When the connected branch moved, new prompt files are read first (a repository that cannot be read does not fail the listing).',
    query: 'PromptListQuery',
    answers: [
      answer(200, 'PromptPage', 'A page of prompts.', {
        page: {
          data: [
            { name: 'support/greeting', type: 'text', versions: [1, 2, 3], latest_version: 3, labels: { latest: 3, production: 3, staging: 2 }, variables: ['name', 'product'], config: { model: 'gpt-4o', temperature: 0.2 }, source: 'git', updated_at: CREATED },
          ],
          pagination: { total: 1, limit: 50, offset: 0 },
        },
      }),
    ],
  },
  'POST /v1/prompts': {
    tag: PROMPTS_TAG,
    summary: 'Create a prompt version',
    description: 'The next version of the prompt (the first creates it): a text template, or chat messages. `type` defaults to what `prompt` is; a prompt keeps the type of its first version. Labels move onto this version; `latest` is the server\'s.',
    body: json('CreatePromptBody', {
      text: { name: 'support/greeting', prompt: 'Hello {{name}}, welcome to {{product}}!', config: { model: 'gpt-4o', temperature: 0.2 }, labels: ['staging'], commit_message: 'Friendlier greeting' },
      chat: { name: 'support/agent', type: 'chat', prompt: [{ role: 'system', content: 'You are the support agent of {{product}}.' }, { role: 'user', content: '{{question}}' }], config: { model: 'gpt-4o-mini' }, commit_message: 'First agent prompt' },
    }),
    answers: [answer(201, 'PromptVersionAnswer', 'The version.', { chat: { data: CHAT_VERSION } })],
    errors: [
      {
        status: 400,
        when: `\`invalid_request_body\` with \`details\`: a \`name\` that is not ${NAME_RULE}; ${LABELS_REFUSED}; a \`prompt\` not of the \`type\` (a text prompt is a string, a chat prompt a list of messages), or a template that breaks the rules (an unknown \`{{helper}}\`, unbalanced blocks).`,
      },
      { status: 409, when: '`conflict`: the prompt\'s versions are of the other type.' },
    ],
  },
  'POST /v1/prompts/sync': {
    tag: PROMPTS_TAG,
    summary: 'Read new prompt files from the connected repository',
    description: 'Every `prompts/**/*.md` at the connection\'s branch whose content no version was read from becomes the next version of its prompt (with its commit and path, and the labels of its front matter). Files that do not parse are listed in `errors`. CI can call it after a push; `GET /v1/prompts` does it too when the branch moved.',
    answers: [
      answer(200, 'PromptSyncAnswer', 'What the sync read.', {
        report: { data: { commit_sha: COMMIT, created: [{ name: 'support/greeting', version: 3, path: 'prompts/support/greeting.md' }], unchanged: ['support/agent'], errors: [{ path: 'prompts/broken.md', message: 'front matter: type must be text or chat' }] } },
      }),
    ],
    errors: [
      { status: 404, when: '`not_found`: the connection\'s branch is gone.' },
      { status: 409, when: NOT_CONNECTED },
      { status: 503, when: '`unavailable`: GitHub, or the git root, cannot be read.' },
    ],
  },
  'GET /v1/prompts/:name': {
    tag: PROMPTS_TAG,
    summary: 'One version of a prompt',
    description: 'By `label` (default `production`; `latest` is the highest version) or by `version`, not both. Percent-encode the `/` of a name in folders. Answers are cached by the server and revalidated with `ETag`.',
    params: 'PromptParams',
    query: 'PromptFetchQuery',
    headers: IF_NONE_MATCH,
    answers: [{ ...answer(200, 'PromptVersionAnswer', 'The version.', { text: { data: VERSION_EXAMPLE }, chat: { data: CHAT_VERSION } }), headers: CACHE_HEADERS }, NOT_MODIFIED],
    errors: [
      { status: 400, when: '`invalid_query_parameters`: both `label` and `version`.' },
      { status: 404, when: '`not_found`: no such prompt, or no version with that label or number.' },
    ],
  },
  'PATCH /v1/prompts/:name/versions/:version': {
    tag: PROMPTS_TAG,
    summary: 'Move labels onto a version',
    description: 'Each label leaves the version it was on.',
    params: 'PromptVersionParams',
    body: json('SetLabelsBody', { promote: { labels: ['production'] } }),
    answers: [answer(200, 'PromptVersionAnswer', 'The version with its labels.', { promoted: { data: VERSION_EXAMPLE } })],
    errors: [
      { status: 400, when: `\`invalid_request_body\`: ${LABELS_REFUSED}.` },
      { status: 404, when: '`not_found`: no such prompt or version.' },
    ],
  },
  'DELETE /v1/prompts/:name/labels/:label': {
    tag: PROMPTS_TAG,
    summary: 'Remove a label from a prompt',
    params: 'PromptLabelParams',
    answers: [answer(200, 'LabelRemovalAnswer', 'Removed.', { removed: { data: { name: 'support/greeting', label: 'staging', removed: true } } })],
    errors: [
      { status: 400, when: '`invalid_path_parameters`: `latest` (it always names the highest version).' },
      { status: 404, when: '`not_found`: the prompt has no such label.' },
    ],
  },
  'POST /v1/prompts/:name/render': {
    tag: PROMPTS_TAG,
    summary: 'Render a version with variables',
    description: 'The version by `label` (default `production`) or `version`, its template filled in (Handlebars, no HTML escaping, strict: every variable the template reads must be given; `false`, `null` and `""` are values).',
    params: 'PromptParams',
    body: json('RenderBody', { greeting: { variables: { name: 'Ada', product: 'Tracelake' } }, chat: { variables: { product: 'Tracelake', question: 'Where is my order?' }, label: 'latest' } }),
    answers: [
      answer(200, 'RenderedPromptAnswer', 'The rendered prompt.', {
        greeting: { data: { name: 'support/greeting', version: 3, type: 'text', labels: ['production', 'latest'], config: { model: 'gpt-4o', temperature: 0.2 }, prompt: 'Hello Ada, welcome to Tracelake!' } },
      }),
    ],
    errors: [
      { status: 400, when: '`invalid_request_body`: a variable the template reads is missing (`details` names `variables.<name>`), or both `label` and `version`.' },
      { status: 404, when: '`not_found`: no such prompt, or no version with that label or number.' },
    ],
  },
  'GET /v1/prompts/:name/metrics': {
    tag: PROMPTS_TAG,
    summary: 'What each version of a prompt did',
    description: 'From the spans that name the prompt (`tracelake.prompt.name`/`.version`, or Langfuse\'s attributes) in the window (the search window rules: 7 days by default, at most 90): usage, cost, latency, and the average of each score given to those spans and to their traces.',
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
    errors: [{ status: 400, when: '`invalid_time_window`: a window over 90 days, or one that ends before it starts; `invalid_query_parameters`: a parameter of the wrong shape.' }],
  },
};
