/**
 * The examples and shared words of the notes on git connections, templates and prompts
 * (routes/git.ts, gitSetup.ts, templates.ts, prompts.ts), kept apart for size. The handshake's page, its form and GitHub's
 * return are for a human's browser, not for API clients: they are described with their media types
 * (HTML, a form, a redirect) so the reference covers every route a server answers.
 */
import type { Catalog } from '../contract/catalog.js';
import { LABEL_RULE } from '../core/prompts/names.js';
import { CREATED } from './examples.js';

export const COMMIT = '9fceb02d0ae598e95dc970b74767f19372d61af8';
export const STATE = 'p3Yq8cN2vK1mT7wX4zR9bL6hF0dJ5sA2eG8uI3oW1yE';
export const EXPIRES = '2026-11-20T10:15:02.114Z';
export const SETUP_PAGE_HEADERS = {
  'Cache-Control': "`no-store`: the page carries the handshake's token.",
  'Content-Security-Policy': 'Nothing loaded from elsewhere, and the form posts to this server only.',
};
/** Why `labels` are refused, on a new version and on a move. */
export const LABELS_REFUSED = `\`labels\` with a label that is not ${LABEL_RULE}, \`latest\` (the server's), or a label given twice`;
export const NOT_CONNECTED =
  '`git_connection_missing`: the app has no git connection, or its handshake has not finished (no repository picked).';
export const CACHE_HEADERS = {
  ETag: 'A hash of the body; send it back in `If-None-Match`.',
  'Cache-Control': '`no-cache`: revalidate with `If-None-Match`.',
};
export const IF_NONE_MATCH = { 'If-None-Match': 'The `ETag` of an earlier answer: 304 while the answer is the same.' };
export const NOT_MODIFIED = {
  status: 304,
  description: "Not modified: the `ETag` sent is the answer's (no body).",
  headers: CACHE_HEADERS,
};
export const TENANT_ADMIN =
  "`forbidden`: not admin credentials, or an admin pinned to an environment other than production (the connection feeds every environment: a tenant admin's call).";

export const CONNECTED: Catalog['GitStatusAnswer']['data'] = {
  connected: true,
  provider: 'local',
  installation_id: 1,
  repository: 'acme/prompts',
  branch: 'main',
};

export const VERSION_EXAMPLE: Catalog['PromptVersionAnswer']['data'] = {
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

export const CHAT_VERSION: Catalog['PromptVersionAnswer']['data'] = {
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
