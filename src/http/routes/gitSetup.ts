/**
 * Where a human finishes a git handshake, without API credentials: the handshake's state token (in
 * the link `POST …/git/connect` answered) is the capability. GitHub sends the human back to
 * `/v1/git/github/callback` after installing the App; the picker page lists the repositories the
 * connection reaches, and its form completes the connection.
 */
import { validateGitHubCallbackQuery, validateGitSetupQuery } from '../../contract/git.js';
import { ApiError, validationError } from '../../core/errors.js';
import { handshakeOpen, stateHash, type ConnectionState } from '../../core/git/connection.js';
import { connectedPage, pickerPage } from '../../core/git/setupPage.js';
import { verifyInstallation } from '../../git/github.js';
import type { ConnectionRow } from '../../store/git/connections.js';
import { bytes } from '../reply.js';
import { route, type Context } from '../route.js';
import { pickRepository, setupPath } from './git.js';
import { SETUP_PAGE_HEADERS } from '../../openapi/promptExamples.js';

const HTML = 'text/html; charset=utf-8';
/** The page carries the state token: no caching, no referrer, nothing loaded from elsewhere. */
const PAGE_HEADERS = {
  'Cache-Control': 'no-store',
  'Referrer-Policy': 'no-referrer',
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'",
};

/** The open handshake of `state`, or 404 (unknown, finished or expired). */
async function handshakeOf(ctx: Context, state: string): Promise<ConnectionRow & ConnectionState> {
  const row = await ctx.services.store.run('gitConnectionByState', { stateHash: stateHash(state) });
  if (!row || !handshakeOpen(row, Date.now()))
    throw new ApiError(
      'not_found',
      'This handshake link is unknown, already used or expired: start again with POST /v1/apps/{appId}/git/connect',
    );
  return row;
}

function requireInstalled(row: ConnectionRow): void {
  if (row.provider === 'github' && row.phase === 'pending')
    throw new ApiError(
      'git_connection_missing',
      'The GitHub App is not installed yet: install it from the link the connect call answered',
    );
}

export const gitSetupRoutes = [
  route({
    method: 'GET',
    path: '/v1/git/setup',
    permission: 'none',
    validate: { query: validateGitSetupQuery },
    note: {
      tag: 'Git',
      summary: 'The page where a human picks the repository',
      description:
        "For a browser, from the `url` the connect call answered; the handshake's `state` token is the credential. Plain HTML with one form and no script.",
      query: 'GitSetupQuery',
      answers: [
        {
          status: 200,
          description: 'The picker page.',
          media: {
            'text/html': 'An HTML page listing the repositories, with a form that posts to `POST /v1/git/setup`.',
          },
          headers: SETUP_PAGE_HEADERS,
        },
      ],
      errors: [
        { status: 404, when: '`not_found`: the handshake is unknown, finished or expired (start again).' },
        { status: 409, when: '`git_connection_missing`: the GitHub App is not installed yet.' },
        { status: 503, when: '`unavailable`: GitHub, or the git root, cannot be read.' },
      ],
    },
    async handler({ query }, ctx) {
      const row = await handshakeOf(ctx, query.state);
      requireInstalled(row);
      const repositories = await ctx.services.git.readerOf(row).listRepositories();
      return bytes(
        pickerPage({
          app: row.appId,
          provider: row.provider,
          state: query.state,
          action: '/v1/git/setup',
          repositories,
        }),
        HTML,
        200,
        PAGE_HEADERS,
      );
    },
  }),
  route({
    method: 'POST',
    path: '/v1/git/setup',
    permission: 'none',
    body: 'raw',
    note: {
      tag: 'Git',
      summary: "The picker page's form: connect the repository picked",
      description: "What the page's form posts; the handshake's `state` token is the credential.",
      body: {
        media: {
          'application/x-www-form-urlencoded':
            "The form: `state` (the handshake's token), `repository` (`owner/repo`) and optionally `branch` (default: the repository's default branch).",
        },
      },
      answers: [
        {
          status: 200,
          description: 'Connected.',
          media: { 'text/html': 'An HTML page naming the repository and branch connected.' },
          headers: SETUP_PAGE_HEADERS,
        },
      ],
      errors: [
        {
          status: 400,
          when: '`invalid_request_body` with `details`: no `state` or `repository`, or a repository or branch the connection does not reach.',
        },
        {
          status: 404,
          when: '`not_found`: the handshake is unknown, finished, expired, or was replaced while the page was open.',
        },
        { status: 409, when: '`git_connection_missing`: the GitHub App is not installed yet.' },
        { status: 415, when: '`unsupported_media_type`: not `application/x-www-form-urlencoded`.' },
      ],
    },
    async handler({ body, headers }, ctx) {
      if (!/^application\/x-www-form-urlencoded\b/i.test(headers['content-type'] ?? '')) {
        throw new ApiError('unsupported_media_type', 'Expected the picker form (application/x-www-form-urlencoded)');
      }
      const form = new URLSearchParams((body ?? Buffer.alloc(0)).toString('utf8'));
      const state = form.get('state');
      const repository = form.get('repository');
      const branch = form.get('branch') || undefined;
      if (!state) throw validationError('body', { state: 'is required' });
      if (!repository) throw validationError('body', { repository: 'is required: pick one' });
      const row = await handshakeOf(ctx, state);
      requireInstalled(row);
      const picked = await pickRepository(ctx.services.git.readerOf(row), repository, branch, 'body');
      const done = await ctx.services.store.run('selectGitRepository', {
        tenantId: row.tenantId,
        appId: row.appId,
        stateHash: stateHash(state),
        ...picked,
      });
      if (!done) throw new ApiError('not_found', 'This handshake was replaced while the page was open: start again');
      ctx.services.git.forget(row);
      return bytes(connectedPage(picked.repository, picked.branch), HTML, 200, PAGE_HEADERS);
    },
  }),
  route({
    method: 'GET',
    path: '/v1/git/github/callback',
    permission: 'none',
    validate: { query: validateGitHubCallbackQuery },
    note: {
      tag: 'Git',
      summary: 'Where GitHub sends the human back after installing the App',
      description:
        "The GitHub App's setup URL must be `<TRACELAKE_PUBLIC_URL>/v1/git/github/callback`. The installation is checked with the App's own JWT to be one of the App's; the human is then sent to the picker page.",
      query: 'GitHubCallbackQuery',
      answers: [{ status: 302, description: 'To the picker page.', headers: { Location: '`/v1/git/setup?state=…`' } }],
      errors: [
        {
          status: 404,
          when: "`not_found`: the handshake is unknown, finished, expired or replaced, or the installation is not the App's.",
        },
        { status: 409, when: '`conflict`: the handshake is not waiting for a GitHub App installation.' },
        { status: 503, when: '`unavailable`: GitHub cannot be reached.' },
      ],
    },
    async handler({ query }, ctx) {
      const row = await handshakeOf(ctx, query.state);
      if (row.provider !== 'github' || row.phase !== 'pending')
        throw new ApiError('conflict', 'This handshake is not waiting for a GitHub App installation');
      const credentials = ctx.services.git.credentialsOf(row);
      if (credentials.kind !== 'app')
        throw new ApiError('conflict', 'This handshake is not waiting for a GitHub App installation');
      // The installation must be one of this App's: its JWT (from the sealed private key) reads it.
      await verifyInstallation(ctx.services.git.settings.githubApiUrl, credentials, query.installation_id);
      const authorised = await ctx.services.store.run('authoriseGit', {
        tenantId: row.tenantId,
        appId: row.appId,
        stateHash: stateHash(query.state),
        installationId: query.installation_id,
        credentials: row.credentials!,
      });
      if (authorised?.phase !== 'authorised')
        throw new ApiError('not_found', 'This handshake was replaced meanwhile: start again');
      ctx.services.git.forget(row);
      return bytes('', HTML, 302, { ...PAGE_HEADERS, Location: setupPath(query.state) });
    },
  }),
];
