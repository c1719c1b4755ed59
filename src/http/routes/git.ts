/**
 * The git connection of an app (spec: Apps and git): its status, the handshake a human completes,
 * the provider's repositories and branches, and disconnecting. Admin only (Full Access keys and
 * session tokens); credentials go in sealed and never come back out.
 */
import { createPrivateKey } from 'node:crypto';
import {
  validateGitAppParams,
  validateGitBranchesQuery,
  validateGitConnectBody,
  type GitConnectBody,
} from '../../contract/git.js';
import { ApiError, validationError } from '../../core/errors.js';
import { sealCredentials } from '../../core/git/credentials.js';
import {
  githubWebUrl,
  HANDSHAKE_TTL_MS,
  installationUrl,
  isAuthorised,
  newStateToken,
  stateHash,
  statusOf,
} from '../../core/git/connection.js';
import { isBranchName, parseRepositoryName, REPOSITORY_RULE } from '../../core/git/names.js';
import { GitHubProvider } from '../../git/github.js';
import type { GitReader } from '../../git/provider.js';
import { GitService, type GitCredentials } from '../../git/service.js';
import type { AppRef, ConnectionRow } from '../../store/git/connections.js';
import type { GitDisconnection, GitHandshake } from '../../contract/responses.js';
import { data } from '../reply.js';
import { actorOf, administeredApp } from '../principal.js';
import { route, type Context } from '../route.js';
import { answer, payload } from '../../openapi/note.js';
import { CONNECTED, EXPIRES, STATE, TENANT_ADMIN } from '../../openapi/promptExamples.js';

/** The app an admin call names, checked to be one of the caller's tenant (404 otherwise). */
export async function administeredGitApp(ctx: Context, appId: string): Promise<AppRef> {
  const id = administeredApp(ctx.principal, appId);
  const [app] = await ctx.services.store.run('listApps', { tenantId: ctx.principal.tenantId, id });
  if (!app) throw new ApiError('not_found', `App ${appId} not found`);
  return { tenantId: ctx.principal.tenantId, appId: app.id };
}

/** Where humans reach this server: TRACELAKE_PUBLIC_URL, else the Host the request was sent to. */
export function publicBase(ctx: Context, headers: Readonly<Record<string, string>>): string {
  return ctx.config.publicUrl ?? `http://${headers.host ?? `${ctx.config.host}`}`;
}

/** The path of the page where a human picks the repository of handshake `state`. */
export function setupPath(state: string): string {
  return `/v1/git/setup?state=${encodeURIComponent(state)}`;
}

/**
 * Checks that `repository` is one `reader` reaches and picks its branch (`branch`, else the
 * repository's default); a 400 naming the field otherwise.
 */
export async function pickRepository(
  reader: GitReader,
  repository: string,
  branch: string | undefined,
  part: 'body' | 'query',
): Promise<{ repository: string; branch: string }> {
  if (!parseRepositoryName(repository)) throw validationError(part, { repository: `must be ${REPOSITORY_RULE}` });
  if (branch !== undefined && !isBranchName(branch))
    throw validationError(part, { branch: 'is not a valid branch name' });
  const found = (await reader.listRepositories()).find((r) => r.full_name === repository);
  if (!found) throw validationError(part, { repository: `the connection reaches no repository ${repository}` });
  const picked = branch ?? found.default_branch;
  if (!(await reader.listBranches(repository)).includes(picked))
    throw validationError(part, { branch: `${repository} has no branch ${picked}` });
  return { repository, branch: picked };
}

function checkConnectBody(body: GitConnectBody, ctx: Context): void {
  const details: Record<string, string> = {};
  if (body.provider === 'local') {
    if (ctx.services.git.settings.gitRoot === null)
      details.provider = 'this server has no TRACELAKE_GIT_ROOT: local repositories are not offered';
    if (body.token !== undefined) details.token = 'only for provider github';
    if (body.app !== undefined) details.app = 'only for provider github';
  } else {
    if ((body.token === undefined) === (body.app === undefined))
      details.token = 'give either token (a fine-grained token) or app (a GitHub App), not both';
    if (body.app !== undefined && body.repository !== undefined)
      details.repository =
        'a GitHub App connection picks its repository after the installation, on the page the answer links to';
    if (body.app !== undefined && !isPrivateKey(body.app.private_key))
      details['app.private_key'] = 'is not a PEM private key';
  }
  if (body.branch !== undefined && body.repository === undefined) details.branch = 'only with repository';
  if (Object.keys(details).length > 0) throw validationError('body', details);
}

function isPrivateKey(pem: string): boolean {
  try {
    createPrivateKey(pem);
    return true;
  } catch {
    return false;
  }
}

export const gitRoutes = (secret: Buffer) => [
  route({
    method: 'GET',
    path: '/v1/apps/:appId/git',
    permission: 'admin',
    validate: { params: validateGitAppParams },
    note: {
      tag: 'Git',
      summary: 'The git connection of an app',
      description:
        '`connected: false` without a connection or while a handshake waits for a human; `connected: true` with `repository: null` once authorised and before a repository is picked. A headless client polls this until `connected` is true.',
      params: 'GitAppParams',
      answers: [
        answer(200, 'GitStatusAnswer', "The connection's status.", {
          connected: { data: CONNECTED },
          none: { data: { connected: false, provider: null, installation_id: null, repository: null, branch: null } },
        }),
      ],
      errors: [{ status: 404, when: "`not_found`: no such app of the caller's tenant." }],
    },
    async handler({ params }, ctx) {
      const app = await administeredGitApp(ctx, params.appId);
      return data(statusOf(await ctx.services.git.connection(app), Date.now()));
    },
  }),
  route({
    method: 'POST',
    path: '/v1/apps/:appId/git/connect',
    permission: 'admin',
    // The connection feeds every environment's prompts.
    appWide: { what: "change an app's git connection" },
    validate: { params: validateGitAppParams, body: validateGitConnectBody },
    note: {
      tag: 'Git',
      summary: 'Start connecting an app to a git repository',
      description:
        "`local`: a repository under the server's `TRACELAKE_GIT_ROOT`. `github`: a fine-grained `token` (authorised at once), or a GitHub App (`app`), installed by a human on GitHub, who is then sent back to `/v1/git/github/callback`. With `repository` (local or token), the app is connected at once; otherwise `url` is where a human finishes — Tracelake's own page listing the repositories, or the App's installation page — within an hour (`expires_at`). A new connect replaces the app's connection. Credentials are stored sealed and never come back out.",
      params: 'GitAppParams',
      body: payload('GitConnectBody', {
        local: { provider: 'local', repository: 'acme/prompts', branch: 'main' },
        token: {
          provider: 'github',
          token: 'github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUV',
        },
        githubApp: {
          provider: 'github',
          app: {
            app_id: 123456,
            private_key: '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA…\n-----END RSA PRIVATE KEY-----\n',
            slug: 'acme-tracelake',
          },
        },
      }),
      answers: [
        answer(200, 'GitHandshakeAnswer', 'The handshake: where a human finishes it, or the connection made at once.', {
          connected: { data: { provider: 'local', url: null, state: null, expires_at: null, status: CONNECTED } },
          picker: {
            data: {
              provider: 'github',
              url: `https://tracelake.example.com/v1/git/setup?state=${STATE}`,
              state: STATE,
              expires_at: EXPIRES,
              status: { connected: true, provider: 'github', installation_id: 2, repository: null, branch: null },
            },
          },
          githubApp: {
            data: {
              provider: 'github',
              url: `https://github.com/apps/acme-tracelake/installations/new?state=${STATE}`,
              state: STATE,
              expires_at: EXPIRES,
              status: { connected: false, provider: 'github', installation_id: null, repository: null, branch: null },
            },
          },
        }),
      ],
      errors: [
        {
          status: 400,
          when: '`invalid_request_body` with `details`: a field that does not fit the provider (both or neither of `token` and `app`, `repository` with an App, `branch` without `repository`, a key that is not PEM), `local` on a server without a git root, a token GitHub refuses, or a repository or branch the connection does not reach.',
        },
        { status: 403, when: TENANT_ADMIN },
        { status: 404, when: "`not_found`: no such app of the caller's tenant." },
        { status: 503, when: '`unavailable`: GitHub, or the git root, cannot be read.' },
      ],
    },
    async handler({ params, body, headers }, ctx) {
      const app = await administeredGitApp(ctx, params.appId);
      checkConnectBody(body, ctx);
      const git = ctx.services.git;
      const seal = (c: GitCredentials) => sealCredentials(secret, GitService.boundTo(app), c);
      const state = newStateToken();
      const expiresAtMs = Date.now() + HANDSHAKE_TTL_MS;
      const common = { ...app, installationId: null, by: actorOf(ctx.principal) };
      let started: ConnectionRow;
      let url: string | null;
      if (body.app !== undefined) {
        // GitHub shows the human the App's installation, then sends them to its setup URL
        // (/v1/git/github/callback) with the state and the installation id.
        const credentials = seal({
          kind: 'app',
          appId: body.app.app_id,
          privateKey: body.app.private_key,
          slug: body.app.slug,
        });
        started = await ctx.services.store.run('startGitHandshake', {
          ...common,
          provider: 'github',
          phase: 'pending',
          credentials,
          stateHash: stateHash(state),
          stateExpiresAtMs: expiresAtMs,
          repository: null,
          branch: null,
        });
        url = installationUrl(githubWebUrl(git.settings.githubApiUrl), body.app.slug, state);
      } else {
        const reader: GitReader =
          body.provider === 'local'
            ? git.localFor(app.tenantId)!
            : new GitHubProvider(git.settings.githubApiUrl, { kind: 'token', token: body.token! });
        if (body.provider === 'github')
          await reader.listRepositories().catch((e: unknown) => {
            if (e instanceof ApiError && e.code === 'git_connection_missing')
              throw validationError('body', { token: 'GitHub refused this token' });
            throw e;
          });
        const credentials = body.token === undefined ? null : seal({ kind: 'token', token: body.token });
        // The token (or the server's own root) authorises at once; only the pick is left.
        const phase = body.provider === 'local' ? 'pending' : 'authorised';
        if (body.repository !== undefined) {
          const picked = await pickRepository(reader, body.repository, body.branch, 'body');
          started = await ctx.services.store.run('startGitHandshake', {
            ...common,
            provider: body.provider,
            phase: 'connected',
            credentials,
            stateHash: null,
            stateExpiresAtMs: null,
            ...picked,
          });
          url = null;
        } else {
          started = await ctx.services.store.run('startGitHandshake', {
            ...common,
            provider: body.provider,
            phase,
            credentials,
            stateHash: stateHash(state),
            stateExpiresAtMs: expiresAtMs,
            repository: null,
            branch: null,
          });
          url = `${publicBase(ctx, headers)}${setupPath(state)}`;
        }
      }
      git.forget(app);
      const pending = url !== null;
      return data({
        provider: started.provider,
        url,
        state: pending ? state : null,
        expires_at: pending ? new Date(expiresAtMs).toISOString() : null,
        status: statusOf(started, Date.now()),
      } satisfies GitHandshake);
    },
  }),
  route({
    method: 'GET',
    path: '/v1/apps/:appId/git/repositories',
    permission: 'admin',
    validate: { params: validateGitAppParams },
    note: {
      tag: 'Git',
      summary: 'The repositories the connection reaches',
      params: 'GitAppParams',
      answers: [
        answer(200, 'GitRepositoryListAnswer', 'The repositories.', {
          two: {
            data: [
              { name: 'prompts', full_name: 'acme/prompts', default_branch: 'main' },
              { name: 'shop', full_name: 'acme/shop', default_branch: 'trunk' },
            ],
          },
        }),
      ],
      errors: [
        { status: 404, when: "`not_found`: no such app of the caller's tenant." },
        {
          status: 409,
          when: "`git_connection_missing`: the authorisation has not completed, or the provider refuses the connection's credentials (connect again).",
        },
        { status: 503, when: '`unavailable`: GitHub, or the git root, cannot be read.' },
      ],
    },
    async handler({ params }, ctx) {
      const app = await administeredGitApp(ctx, params.appId);
      const row = await ctx.services.git.connection(app);
      if (!isAuthorised(row))
        throw new ApiError('git_connection_missing', 'The git authorisation of this app has not completed');
      return data(await ctx.services.git.readerOf(row).listRepositories());
    },
  }),
  route({
    method: 'GET',
    path: '/v1/apps/:appId/git/branches',
    permission: 'admin',
    validate: { params: validateGitAppParams, query: validateGitBranchesQuery },
    note: {
      tag: 'Git',
      summary: 'The branches of a repository',
      description: '`repository` as `full_name` (`owner/repo`).',
      params: 'GitAppParams',
      query: 'GitBranchesQuery',
      answers: [answer(200, 'GitBranchListAnswer', 'The branch names.', { two: { data: ['main', 'staging'] } })],
      errors: [
        { status: 400, when: '`invalid_query_parameters`: `repository` is not `owner/repo`.' },
        { status: 404, when: '`not_found`: no such app, or the connection reaches no such repository.' },
        { status: 409, when: '`git_connection_missing`: the authorisation has not completed.' },
      ],
    },
    async handler({ params, query }, ctx) {
      const app = await administeredGitApp(ctx, params.appId);
      const row = await ctx.services.git.connection(app);
      if (!isAuthorised(row))
        throw new ApiError('git_connection_missing', 'The git authorisation of this app has not completed');
      if (!parseRepositoryName(query.repository))
        throw validationError('query', { repository: `must be ${REPOSITORY_RULE}` });
      return data(await ctx.services.git.readerOf(row).listBranches(query.repository));
    },
  }),
  route({
    method: 'DELETE',
    path: '/v1/apps/:appId/git',
    permission: 'admin',
    appWide: { what: "change an app's git connection" },
    validate: { params: validateGitAppParams },
    note: {
      tag: 'Git',
      summary: 'Disconnect an app from git',
      description: 'Prompt versions read from the repository stay.',
      params: 'GitAppParams',
      answers: [answer(200, 'GitDisconnectionAnswer', 'Disconnected.', { done: { data: { disconnected: true } } })],
      errors: [
        { status: 403, when: TENANT_ADMIN },
        { status: 404, when: '`not_found`: no such app, or it has no git connection.' },
      ],
    },
    async handler({ params }, ctx) {
      const app = await administeredGitApp(ctx, params.appId);
      const removed = await ctx.services.store.run('disconnectGit', app);
      ctx.services.git.forget(app);
      if (!removed) throw new ApiError('not_found', 'This app has no git connection');
      return data({ disconnected: true } satisfies GitDisconnection);
    },
  }),
];
