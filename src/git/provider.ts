/**
 * The one interface every git provider implements (chosen per connection: `local` directories under
 * TRACELAKE_GIT_ROOT, or GitHub), so prompts, templates and — later — cloud workers read and write
 * repositories without knowing which. Repositories are named `owner/repo` (core/git/names.ts
 * checks the form before a provider sees it); refs are branch names or full commit shas.
 *
 * Providers throw ApiError: `not_found` for a repository (or ref) they do not have,
 * `git_connection_missing` when the provider refuses the connection's credentials, `unavailable`
 * when the provider cannot be reached. A file that is not there is `null`, not an error.
 */

import type { RepositoryInfo } from '../core/git/connection.js';

export type { RepositoryInfo };

export interface FileAtCommit {
  content: Uint8Array;
  /** The blob's object id: equal content, equal sha, whatever the commit. */
  blobSha: string;
}

export interface TreeFile {
  /** Path from the repository root. */
  path: string;
  blobSha: string;
}

/** What reading a connected repository needs: enough for templates, prompts and the setup page. */
export interface GitReader {
  listRepositories(): Promise<RepositoryInfo[]>;
  listBranches(repository: string): Promise<string[]>;
  /** The commit a branch (or a commit sha) names; null when the ref does not exist. */
  resolveRef(repository: string, ref: string): Promise<string | null>;
  readFile(repository: string, commit: string, path: string): Promise<FileAtCommit | null>;
  /** Every file under `dir` at `commit`, recursively; empty when `dir` does not exist. */
  listFiles(repository: string, commit: string, dir: string): Promise<TreeFile[]>;
}

export interface Author {
  name: string;
  email: string;
}

/**
 * What a worker needs of a `local` repository: a working copy of a branch, and its work committed
 * and pushed to a branch of its own. Pushes fast-forward only.
 */
export interface GitWorkspace {
  /** Makes `dir` (absent or empty) a working copy of `branch`; answers the commit checked out. */
  checkout(repository: string, branch: string, dir: string): Promise<{ commit: string }>;
  /**
   * Commits everything changed in the working copy `dir` (added, modified, deleted files) and
   * pushes it to `branch` of its repository, creating the branch or fast-forwarding it.
   * `commit` is null when nothing changed (nothing is pushed then).
   */
  commitAndPush(
    dir: string,
    input: { branch: string; message: string; author: Author },
  ): Promise<{ commit: string | null }>;
  /**
   * The commit a working copy made by `checkout` is at, and whether anything in it changed since
   * (a worker reuses a clean workspace for a session's next turn); null when `dir` is no such copy.
   */
  inspect(dir: string): Promise<{ commit: string; clean: boolean } | null>;
}

/** Files larger than this are not read (a prompt or template is text of a few KiB). */
export const MAX_FILE_BYTES = 1024 * 1024;
/** Files listed at most under one directory (the prompts of one repository). */
export const MAX_LISTED_FILES = 5000;
