/**
 * The `github` provider: a fine-grained personal access token, or a GitHub App installation (an
 * installation token minted from the App's private key, renewed by @octokit/auth-app), through
 * Octokit against TRACELAKE_GITHUB_API_URL (api.github.com, or a GitHub Enterprise `/api/v3`).
 * Only the REST endpoints listed in docs/decisions.md ("Git") are used; tests run them against a
 * local fake (test/helpers/fakeGithub.ts).
 */
import type { Octokit } from '@octokit/rest';
import { ApiError } from '../core/errors.js';
import { parseRepositoryName, type RepositoryName } from '../core/git/names.js';
import {
  MAX_FILE_BYTES,
  MAX_LISTED_FILES,
  type FileAtCommit,
  type GitReader,
  type RepositoryInfo,
  type TreeFile,
} from './provider.js';

export type GitHubAuth =
  | { kind: 'token'; token: string }
  | { kind: 'app'; appId: number; privateKey: string; installationId: number };

/** GitHub answers slower than a disk: a request is abandoned after this long. */
const TIMEOUT_MS = 15_000;

/**
 * Octokit and its App authentication, loaded at the first GitHub request rather than by every start
 * (native-bench/RESULTS.md, "Figures behind the code").
 */
let octokitModules: Promise<[typeof import('@octokit/rest'), typeof import('@octokit/auth-app')]> | undefined;

/** A client for `apiUrl` as `auth`. */
async function client(
  apiUrl: string,
  auth: GitHubAuth | { kind: 'app-only'; appId: number; privateKey: string },
): Promise<Octokit> {
  const [{ Octokit }, { createAppAuth }] = await (octokitModules ??= Promise.all([
    import('@octokit/rest'),
    import('@octokit/auth-app'),
  ]));
  const request = {
    fetch: (url: string, init: RequestInit) => fetch(url, { ...init, signal: AbortSignal.timeout(TIMEOUT_MS) }),
  };
  // Octokit logs failed requests to the console by default; they are answered (and logged) by us.
  const log = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
  const base = { baseUrl: apiUrl.replace(/\/+$/, ''), userAgent: 'tracelake', request, log };
  if (auth.kind === 'token') return new Octokit({ ...base, auth: auth.token });
  const appAuth = {
    appId: auth.appId,
    privateKey: auth.privateKey,
    ...(auth.kind === 'app' ? { installationId: auth.installationId } : {}),
  };
  return new Octokit({ ...base, authStrategy: createAppAuth, auth: appAuth });
}

/** Maps Octokit's failures to the API's: refused credentials are a connection to redo. */
function failure(e: unknown, what: string): never {
  const status = (e as { status?: number }).status;
  if (status === 404) throw new ApiError('not_found', `GitHub has no ${what} (or the connection cannot see it)`);
  if (status === 401 || status === 403)
    throw new ApiError(
      'git_connection_missing',
      `GitHub refused the connection's credentials (${status}) for ${what}: connect again`,
    );
  throw new ApiError('unavailable', `GitHub could not be reached for ${what}: ${(e as Error).message}`);
}

function repoOf(repository: string): RepositoryName {
  const r = parseRepositoryName(repository);
  if (!r) throw new ApiError('not_found', `No repository ${repository}`);
  return r;
}

/**
 * Checks that `installationId` is an installation of the App (the JWT of its private key reads it);
 * answers the account it is installed on.
 */
export async function verifyInstallation(
  apiUrl: string,
  app: { appId: number; privateKey: string },
  installationId: number,
): Promise<{ account: string | null }> {
  try {
    const octokit = await client(apiUrl, { kind: 'app-only', appId: app.appId, privateKey: app.privateKey });
    const { data } = await octokit.rest.apps.getInstallation({ installation_id: installationId });
    const account = data.account && 'login' in data.account ? data.account.login : null;
    return { account };
  } catch (e) {
    return failure(e, `installation ${installationId} of App ${app.appId}`);
  }
}

export class GitHubProvider implements GitReader {
  /** Made at the first request (loading Octokit). */
  private octokit: Promise<Octokit> | undefined;

  constructor(
    private readonly apiUrl: string,
    private readonly auth: GitHubAuth,
  ) {}

  private client(): Promise<Octokit> {
    return (this.octokit ??= client(this.apiUrl, this.auth));
  }

  async listRepositories(): Promise<RepositoryInfo[]> {
    try {
      const octokit = await this.client();
      const repos =
        this.auth.kind === 'app'
          ? await octokit.paginate(octokit.rest.apps.listReposAccessibleToInstallation, { per_page: 100 })
          : await octokit.paginate(octokit.rest.repos.listForAuthenticatedUser, { per_page: 100 });
      return repos
        .map((r) => ({ name: r.name, full_name: r.full_name, default_branch: r.default_branch ?? 'main' }))
        .sort((a, b) => (a.full_name < b.full_name ? -1 : 1));
    } catch (e) {
      return failure(e, 'repository list');
    }
  }

  async listBranches(repository: string): Promise<string[]> {
    const { owner, name } = repoOf(repository);
    try {
      const octokit = await this.client();
      const branches = await octokit.paginate(octokit.rest.repos.listBranches, { owner, repo: name, per_page: 100 });
      return branches.map((b) => b.name).sort();
    } catch (e) {
      return failure(e, `repository ${repository}`);
    }
  }

  async resolveRef(repository: string, ref: string): Promise<string | null> {
    const { owner, name } = repoOf(repository);
    try {
      const { data } = await (await this.client()).rest.repos.getCommit({ owner, repo: name, ref });
      return data.sha;
    } catch (e) {
      // An unknown ref is 404 or 422 ("No commit found for SHA").
      const status = (e as { status?: number }).status;
      if (status === 404 || status === 422) return null;
      return failure(e, `ref ${ref} of ${repository}`);
    }
  }

  async readFile(repository: string, commit: string, path: string): Promise<FileAtCommit | null> {
    const { owner, name } = repoOf(repository);
    let data: unknown;
    try {
      ({ data } = await (await this.client()).rest.repos.getContent({ owner, repo: name, path, ref: commit }));
    } catch (e) {
      if ((e as { status?: number }).status === 404) return null;
      return failure(e, `${path} of ${repository}`);
    }
    // A directory is a list; a symlink or submodule is not a file to serve.
    const file = data as { type?: string; encoding?: string; content?: string; sha?: string; size?: number };
    if (Array.isArray(data) || file.type !== 'file' || typeof file.sha !== 'string') return null;
    if ((file.size ?? 0) > MAX_FILE_BYTES || file.encoding !== 'base64')
      throw new ApiError('payload_too_large', `${path} is larger than ${MAX_FILE_BYTES} bytes`);
    return { content: Buffer.from(file.content ?? '', 'base64'), blobSha: file.sha };
  }

  async listFiles(repository: string, commit: string, dir: string): Promise<TreeFile[]> {
    const { owner, name } = repoOf(repository);
    try {
      const { data } = await (await this.client()).rest.git.getTree({
        owner,
        repo: name,
        tree_sha: commit,
        recursive: 'true',
      });
      const prefix = `${dir}/`;
      return data.tree
        .filter(
          (e) =>
            e.type === 'blob' && typeof e.path === 'string' && e.path.startsWith(prefix) && typeof e.sha === 'string',
        )
        .slice(0, MAX_LISTED_FILES)
        .map((e) => ({ path: e.path!, blobSha: e.sha! }));
    } catch (e) {
      return failure(e, `the tree of ${repository} at ${commit}`);
    }
  }
}
