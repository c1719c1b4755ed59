/**
 * The main thread's access to git: the provider of an app's connection (credentials opened under
 * the server secret, providers kept while the connection is unchanged), and the discovery of the
 * prompts of the connected repository.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ApiError } from '../core/errors.js';
import { openCredentials } from '../core/git/credentials.js';
import { selection, type ConnectionState } from '../core/git/connection.js';
import { PROMPTS_DIR, promptNameOfPath } from '../core/prompts/names.js';
import type { StoreClient } from '../store/storeClient.js';
import { promptModules } from '../promptModules.js';
import type { AppRef, ConnectionRow } from '../store/git/connections.js';
import type { RepositoryPrompt, SyncReport } from '../store/prompts/sync.js';
import { GitHubProvider, type GitHubAuth } from './github.js';
import { LocalGitProvider } from './local.js';
import type { GitReader } from './provider.js';

/** What a connection's sealed credentials hold. */
export type GitCredentials =
  | { kind: 'token'; token: string }
  | { kind: 'app'; appId: number; privateKey: string; slug: string };

export interface GitSettings {
  /** TRACELAKE_GIT_ROOT; null when local repositories are not offered. */
  gitRoot: string | null;
  githubApiUrl: string;
  /** The store's first tenant (the bootstrap's): it keeps the layout of a root shared by no one. */
  firstTenantId: string | null;
}

/** Directories named like a tenant id: never an owner of the first tenant's repositories. */
const TENANT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** How often at most a listing looks whether the connected branch moved (per app). */
const DISCOVERY_INTERVAL_MS = 5_000;
/** Prompt files read at once during discovery. */
const READS_IN_FLIGHT = 8;

const UTF8 = new TextDecoder('utf-8', { fatal: true });

export class GitService {
  /** The local providers, by the directory they read (each keeps its object cache). */
  private readonly locals = new Map<string, LocalGitProvider>();
  private readonly readers = new Map<
    string,
    { sealed: string | null; installationId: number | null; reader: GitReader }
  >();
  private readonly lastLook = new Map<string, number>();

  constructor(
    private readonly store: StoreClient,
    private readonly secret: Buffer,
    readonly settings: GitSettings,
  ) {}

  /**
   * The local repositories of `tenantId`, or null when the server has no git root: those under
   * `<root>/<tenant id>/`. The first tenant reads `<root>/` itself as long as it has no directory
   * of its own there (a store from before the roots were split), less the tenants' directories.
   */
  localFor(tenantId: string): LocalGitProvider | null {
    const root = this.settings.gitRoot;
    if (root === null) return null;
    const own = join(root, tenantId);
    const shared = tenantId === this.settings.firstTenantId && !existsSync(own);
    const dir = shared ? root : own;
    let provider = this.locals.get(dir);
    if (!provider) {
      provider = new LocalGitProvider(
        dir,
        shared ? { reserved: (owner) => TENANT_ID.test(owner) } : { mayBeAbsent: true },
      );
      this.locals.set(dir, provider);
    }
    return provider;
  }

  /** The value the credentials of `app` are bound to (core/git/credentials.ts). */
  static boundTo(app: AppRef): string {
    return `${app.tenantId}/${app.appId}`;
  }

  connection(app: AppRef): Promise<ConnectionRow | null> {
    return this.store.run('gitConnection', { tenantId: app.tenantId, appId: app.appId });
  }

  /** The provider of a connection that got past authorisation. */
  readerOf(row: ConnectionRow & ConnectionState): GitReader {
    const key = GitService.boundTo(row);
    const kept = this.readers.get(key);
    if (kept && kept.sealed === row.credentials && kept.installationId === row.installationId) return kept.reader;
    const reader = this.makeReader(row);
    this.readers.set(key, { sealed: row.credentials, installationId: row.installationId, reader });
    return reader;
  }

  private makeReader(row: ConnectionRow): GitReader {
    if (row.provider === 'local') {
      const local = this.localFor(row.tenantId);
      if (!local)
        throw new ApiError(
          'git_connection_missing',
          'This server has no TRACELAKE_GIT_ROOT any more: local repositories cannot be read; connect again',
        );
      return local;
    }
    const auth = this.githubAuth(row);
    return new GitHubProvider(this.settings.githubApiUrl, auth);
  }

  /** The GitHub credentials of a connection, opened. */
  credentialsOf(row: ConnectionRow): GitCredentials {
    const opened =
      row.credentials === null
        ? null
        : (openCredentials(this.secret, GitService.boundTo(row), row.credentials) as GitCredentials | null);
    if (!opened)
      throw new ApiError(
        'git_connection_missing',
        'The credentials of this git connection cannot be read under the server secret (was the secret reset?): connect again',
      );
    return opened;
  }

  private githubAuth(row: ConnectionRow): GitHubAuth {
    const c = this.credentialsOf(row);
    if (c.kind === 'token') return c;
    if (row.installationId === null)
      throw new ApiError('git_connection_missing', 'The GitHub App is not installed yet: finish the handshake');
    return { kind: 'app', appId: c.appId, privateKey: c.privateKey, installationId: row.installationId };
  }

  /** The connected repository and branch with its provider, or 409 `git_connection_missing`. */
  async connected(app: AppRef): Promise<{ row: ConnectionRow; repository: string; branch: string; reader: GitReader }> {
    const row = await this.connection(app);
    const picked = selection(row);
    if (!row || !picked)
      throw new ApiError(
        'git_connection_missing',
        row
          ? 'The git handshake of this app is not finished: no repository is selected yet'
          : 'This app has no git connection: POST /v1/apps/{appId}/git/connect',
      );
    return { row, ...picked, reader: this.readerOf(row) };
  }

  /**
   * Reads the prompt files of the connected branch (`prompts/**.md`) and has the store make a
   * version of each one it has not read yet.
   */
  async discoverPrompts(app: AppRef, by: string): Promise<SyncReport> {
    const { repository, branch, reader } = await this.connected(app);
    const commit = await reader.resolveRef(repository, branch);
    if (!commit) throw new ApiError('not_found', `Branch ${branch} of ${repository} does not exist (any more)`);
    this.lastLook.set(GitService.boundTo(app), Date.now());
    const files = (await reader.listFiles(repository, commit, PROMPTS_DIR)).flatMap((f) => {
      const name = promptNameOfPath(f.path);
      return name ? [{ ...f, name }] : [];
    });
    const prompts: RepositoryPrompt[] = [];
    for (let i = 0; i < files.length; i += READS_IN_FLIGHT) {
      const batch = files.slice(i, i + READS_IN_FLIGHT);
      const read = await Promise.all(batch.map((f) => reader.readFile(repository, commit, f.path)));
      for (const [j, f] of batch.entries()) {
        const file = read[j];
        prompts.push({
          name: f.name,
          path: f.path,
          blobSha: f.blobSha,
          document: file ? await documentOf(file.content) : { error: 'the file vanished while it was read' },
        });
      }
    }
    return this.store.run('syncPrompts', {
      app: { tenantId: app.tenantId, appId: app.appId },
      commitSha: commit,
      prompts,
      by,
    });
  }

  /**
   * Discovers prompts when the connected branch moved since the last discovery — looked at no more
   * often than every few seconds per app. Null when nothing was looked at or nothing moved.
   */
  async discoverIfMoved(app: AppRef, by: string): Promise<SyncReport | null> {
    const key = GitService.boundTo(app);
    const now = Date.now();
    if (now - (this.lastLook.get(key) ?? 0) < DISCOVERY_INTERVAL_MS) return null;
    this.lastLook.set(key, now);
    const row = await this.connection(app);
    const picked = selection(row);
    if (!row || !picked) return null;
    const commit = await this.readerOf(row).resolveRef(picked.repository, picked.branch);
    if (!commit || commit === row.syncedCommit) return null;
    return this.discoverPrompts(app, by);
  }

  /** Forgets what was kept for `app` (its connection changed). */
  forget(app: AppRef): void {
    const key = GitService.boundTo(app);
    this.readers.delete(key);
    this.lastLook.delete(key);
  }
}

async function documentOf(content: Uint8Array): Promise<RepositoryPrompt['document']> {
  let text: string;
  try {
    text = UTF8.decode(content);
  } catch {
    return { error: 'the file is not UTF-8 text' };
  }
  const parsed = (await promptModules()).parsePromptFile(text);
  return parsed.ok ? parsed.value : { error: parsed.error };
}
