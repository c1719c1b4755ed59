/**
 * The `local` provider: repositories are directories under a root — a tenant's directory of
 * TRACELAKE_GIT_ROOT (git/service.ts, `localFor`) — laid out `<root>/<owner>/<repo>` or
 * `<root>/<owner>/<repo>.git` (bare or with a working tree; the full name is `owner/repo`). Read and written in-process with isomorphic-git (docs/decisions.md, "Git": no
 * `git` executable needed, and faster than spawning one per read).
 *
 * A name never becomes a path outside the root: it is checked for the `owner/repo` form first, and
 * the directory's real path (symlinks resolved) must lie inside the root's.
 */
import * as fs from 'node:fs';
import { mkdir, readdir, realpath, stat } from 'node:fs/promises';
import { join, sep } from 'node:path';
import type { default as IsomorphicGit } from 'isomorphic-git';
import { ApiError } from '../core/errors.js';
import { KeyedLock } from '../core/keyedLock.js';
import { parseRepositoryName } from '../core/git/names.js';
import {
  MAX_FILE_BYTES,
  MAX_LISTED_FILES,
  type Author,
  type FileAtCommit,
  type GitReader,
  type GitWorkspace,
  type RepositoryInfo,
  type TreeFile,
} from './provider.js';

/**
 * isomorphic-git, loaded at the first git read or write rather than by every start
 * (native-bench/RESULTS.md, "Figures behind the code").
 */
let loaded: Promise<typeof IsomorphicGit> | undefined;
const isomorphicGit = () => (loaded ??= import('isomorphic-git').then((m) => m.default));

/** Repositories listed at most (a root holding more is not a prompts setup). */
const MAX_REPOSITORIES = 1000;
/** The remote a working copy records for its repository. */
const ORIGIN = 'origin';

/** What of a root a provider reads. */
export interface LocalScope {
  /** Owner directories that are not this provider's (another tenant's directory in a shared root). */
  reserved?: (owner: string) => boolean;
  /** The root may not exist yet: then it holds no repository (rather than the root being unreadable). */
  mayBeAbsent?: boolean;
}

export class LocalGitProvider implements GitReader, GitWorkspace {
  /** isomorphic-git's object cache (parsed pack indexes), shared by every read. */
  private readonly cache: object = {};
  /** Pushes to one branch of one repository, one at a time (a fast-forward check, then the ref). */
  private readonly pushing = new KeyedLock();

  constructor(
    private readonly root: string,
    private readonly scope: LocalScope = {},
  ) {}

  async listRepositories(): Promise<RepositoryInfo[]> {
    const root = await this.realRoot();
    if (root === null) return [];
    const out: RepositoryInfo[] = [];
    for (const owner of await subdirectories(root)) {
      if (this.scope.reserved?.(owner)) continue;
      for (const entry of await subdirectories(join(root, owner))) {
        const name = entry.endsWith('.git') ? entry.slice(0, -4) : entry;
        const fullName = `${owner}/${name}`;
        if (!parseRepositoryName(fullName) || out.some((r) => r.full_name === fullName)) continue;
        const gitdir = await gitdirOf(join(root, owner, entry));
        if (!gitdir) continue;
        out.push({ name, full_name: fullName, default_branch: await this.defaultBranch(gitdir) });
        if (out.length >= MAX_REPOSITORIES) return sorted(out);
      }
    }
    return sorted(out);
  }

  async listBranches(repository: string): Promise<string[]> {
    const git = await isomorphicGit();
    const gitdir = await this.gitdir(repository);
    return (await git.listBranches({ fs, gitdir })).sort();
  }

  async resolveRef(repository: string, ref: string): Promise<string | null> {
    const git = await isomorphicGit();
    const gitdir = await this.gitdir(repository);
    if (/^[0-9a-f]{40}$/.test(ref)) {
      try {
        const commit = await git.readCommit({ fs, gitdir, oid: ref, cache: this.cache });
        return commit.oid;
      } catch {
        return null;
      }
    }
    try {
      return await git.resolveRef({ fs, gitdir, ref: `refs/heads/${ref}` });
    } catch {
      return null;
    }
  }

  async readFile(repository: string, commit: string, path: string): Promise<FileAtCommit | null> {
    const git = await isomorphicGit();
    const gitdir = await this.gitdir(repository);
    try {
      const { oid, blob } = await git.readBlob({ fs, gitdir, oid: commit, filepath: path, cache: this.cache });
      if (blob.byteLength > MAX_FILE_BYTES)
        throw new ApiError('payload_too_large', `${path} is larger than ${MAX_FILE_BYTES} bytes`);
      return { content: blob, blobSha: oid };
    } catch (e) {
      if (e instanceof ApiError) throw e;
      // Not there, or a directory rather than a file.
      if (isCode(e, 'NotFoundError') || isCode(e, 'ObjectTypeError')) return null;
      throw e;
    }
  }

  async listFiles(repository: string, commit: string, dir: string): Promise<TreeFile[]> {
    const git = await isomorphicGit();
    const gitdir = await this.gitdir(repository);
    const out: TreeFile[] = [];
    const walk = async (oid: string, prefix: string): Promise<void> => {
      const { tree } = await git.readTree({ fs, gitdir, oid, cache: this.cache });
      for (const entry of tree) {
        if (out.length >= MAX_LISTED_FILES) return;
        const path = `${prefix}/${entry.path}`;
        if (entry.type === 'tree') await walk(entry.oid, path);
        else if (entry.type === 'blob') out.push({ path, blobSha: entry.oid });
      }
    };
    try {
      const { oid } = await git.readTree({ fs, gitdir, oid: commit, filepath: dir, cache: this.cache });
      await walk(oid, dir);
    } catch (e) {
      if (isCode(e, 'NotFoundError') || isCode(e, 'ObjectTypeError')) return [];
      throw e;
    }
    return out;
  }

  async checkout(repository: string, branch: string, dir: string): Promise<{ commit: string }> {
    const git = await isomorphicGit();
    const source = await this.gitdir(repository);
    const commit = await this.resolveRef(repository, branch);
    if (!commit) throw new ApiError('not_found', `Repository ${repository} has no branch ${branch}`);
    await mkdir(dir, { recursive: true });
    if ((await readdir(dir)).length > 0) throw new ApiError('conflict', `${dir} is not empty`);
    const gitdir = join(dir, '.git');
    await git.init({ fs, dir, defaultBranch: branch });
    // A shallow copy: the tip commit and its tree. New commits name it as their parent, so a push
    // only has to hand back what is new.
    const copied = new Set<string>();
    await copyObject(source, gitdir, commit, copied);
    const { commit: parsed } = await git.readCommit({ fs, gitdir: source, oid: commit, cache: this.cache });
    await copyTree(source, gitdir, parsed.tree, copied, this.cache);
    await fs.promises.writeFile(join(gitdir, 'shallow'), `${commit}\n`);
    await git.writeRef({ fs, gitdir, ref: `refs/heads/${branch}`, value: commit, force: true });
    await git.setConfig({ fs, gitdir, path: `remote.${ORIGIN}.url`, value: source });
    await git.setConfig({ fs, gitdir, path: 'tracelake.repository', value: repository });
    await git.checkout({ fs, dir, ref: branch, force: true });
    return { commit };
  }

  async commitAndPush(
    dir: string,
    input: { branch: string; message: string; author: Author },
  ): Promise<{ commit: string | null }> {
    const git = await isomorphicGit();
    const gitdir = join(dir, '.git');
    const repository = await git.getConfig({ fs, gitdir, path: 'tracelake.repository' });
    if (typeof repository !== 'string') throw new ApiError('conflict', `${dir} is not a working copy made by checkout`);
    const source = await this.gitdir(repository);
    let changed = false;
    for (const [filepath, head, workdir, stage] of await git.statusMatrix({ fs, dir, cache: this.cache })) {
      if (head === 1 && workdir === 1 && stage === 1) continue;
      changed = true;
      if (workdir === 0) await git.remove({ fs, dir, filepath, cache: this.cache });
      else await git.add({ fs, dir, filepath, cache: this.cache });
    }
    if (!changed) return { commit: null };
    const commit = await git.commit({
      fs,
      dir,
      message: input.message,
      author: { ...input.author, timestamp: Math.floor(Date.now() / 1000) },
      cache: this.cache,
    });
    await this.pushing.run(`${source}\0${input.branch}`, () => this.push(gitdir, source, commit, input.branch));
    return { commit };
  }

  async inspect(dir: string): Promise<{ commit: string; clean: boolean } | null> {
    const git = await isomorphicGit();
    const gitdir = join(dir, '.git');
    try {
      const repository = await git.getConfig({ fs, gitdir, path: 'tracelake.repository' });
      if (typeof repository !== 'string') return null;
      const commit = await git.resolveRef({ fs, gitdir, ref: 'HEAD' });
      const matrix = await git.statusMatrix({ fs, dir, cache: this.cache });
      return { commit, clean: matrix.every(([, head, workdir, stage]) => head === 1 && workdir === 1 && stage === 1) };
    } catch {
      return null;
    }
  }

  /** Hands the commits the source lacks (and their trees) to it, then moves its branch: fast-forward only. */
  private async push(gitdir: string, source: string, commit: string, branch: string): Promise<void> {
    const git = await isomorphicGit();
    const copied = new Set<string>();
    const pending = [commit];
    while (pending.length > 0) {
      const oid = pending.pop()!;
      if (copied.has(oid) || (await hasObject(source, oid))) continue;
      const { commit: c } = await git.readCommit({ fs, gitdir, oid });
      await copyTree(gitdir, source, c.tree, copied, {}, source);
      await copyObject(gitdir, source, oid, copied);
      pending.push(...c.parent);
    }
    let current: string | null = null;
    try {
      current = await git.resolveRef({ fs, gitdir: source, ref: `refs/heads/${branch}` });
    } catch {
      current = null;
    }
    if (
      current !== null &&
      current !== commit &&
      !(await git.isDescendent({ fs, gitdir: source, oid: commit, ancestor: current, depth: -1 }))
    ) {
      throw new ApiError('conflict', `Branch ${branch} has moved on: the push is not a fast-forward`);
    }
    await git.writeRef({ fs, gitdir: source, ref: `refs/heads/${branch}`, value: commit, force: true });
  }

  private async defaultBranch(gitdir: string): Promise<string> {
    const git = await isomorphicGit();
    try {
      return (await git.currentBranch({ fs, gitdir, test: false })) ?? 'main';
    } catch {
      return 'main';
    }
  }

  /** The root's real path; null when it may be absent and is. */
  private async realRoot(): Promise<string | null> {
    try {
      return await realpath(this.root);
    } catch (e) {
      if (this.scope.mayBeAbsent && isCode(e, 'ENOENT')) return null;
      throw new ApiError('unavailable', `The git root ${this.root} cannot be read`);
    }
  }

  /** The git directory of `repository`, checked to lie inside the root. */
  private async gitdir(repository: string): Promise<string> {
    const name = parseRepositoryName(repository);
    if (!name || this.scope.reserved?.(name.owner)) throw new ApiError('not_found', `No repository ${repository}`);
    const root = await this.realRoot();
    if (root === null) throw new ApiError('not_found', `No repository ${repository} under the git root`);
    for (const candidate of [join(root, name.owner, name.name), join(root, name.owner, `${name.name}.git`)]) {
      let real: string;
      try {
        real = await realpath(candidate);
      } catch {
        continue;
      }
      if (!real.startsWith(root + sep)) continue;
      const gitdir = await gitdirOf(real);
      if (gitdir) return gitdir;
    }
    throw new ApiError('not_found', `No repository ${repository} under the git root`);
  }
}

/** `dir`'s git directory: itself when bare, `dir/.git` for a working tree; null when it is neither. */
async function gitdirOf(dir: string): Promise<string | null> {
  for (const gitdir of [join(dir, '.git'), dir]) {
    if ((await isFile(join(gitdir, 'HEAD'))) && (await isDirectory(join(gitdir, 'objects')))) return gitdir;
  }
  return null;
}

async function subdirectories(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir, { withFileTypes: true }))
      .filter((e) => e.isDirectory() && !e.name.startsWith('.'))
      .map((e) => e.name)
      .sort();
  } catch {
    return [];
  }
}

async function isFile(path: string): Promise<boolean> {
  return stat(path).then(
    (s) => s.isFile(),
    () => false,
  );
}

async function isDirectory(path: string): Promise<boolean> {
  return stat(path).then(
    (s) => s.isDirectory(),
    () => false,
  );
}

function sorted(repos: RepositoryInfo[]): RepositoryInfo[] {
  return repos.sort((a, b) => (a.full_name < b.full_name ? -1 : a.full_name > b.full_name ? 1 : 0));
}

function isCode(e: unknown, code: string): boolean {
  return typeof e === 'object' && e !== null && (e as { code?: unknown }).code === code;
}

async function hasObject(gitdir: string, oid: string): Promise<boolean> {
  const git = await isomorphicGit();
  try {
    await git.readObject({ fs, gitdir, oid, format: 'deflated' });
    return true;
  } catch (e) {
    if (isCode(e, 'NotFoundError')) return false;
    throw e;
  }
}

async function copyObject(from: string, to: string, oid: string, copied: Set<string>): Promise<void> {
  const git = await isomorphicGit();
  if (copied.has(oid)) return;
  const o = await git.readObject({ fs, gitdir: from, oid, format: 'content' });
  if (o.format !== 'content') throw new Error(`unexpected object format ${o.format}`);
  await git.writeObject({ fs, gitdir: to, type: o.type, object: o.object, format: 'content' });
  copied.add(oid);
}

/** Copies a tree and everything under it; with `skipPresentIn`, objects that repository has already are skipped. */
async function copyTree(
  from: string,
  to: string,
  oid: string,
  copied: Set<string>,
  cache: object,
  skipPresentIn?: string,
): Promise<void> {
  const git = await isomorphicGit();
  if (copied.has(oid) || (skipPresentIn && (await hasObject(skipPresentIn, oid)))) {
    copied.add(oid);
    return;
  }
  const { tree } = await git.readTree({ fs, gitdir: from, oid, cache });
  for (const entry of tree) {
    if (entry.type === 'tree') await copyTree(from, to, entry.oid, copied, cache, skipPresentIn);
    else if (
      entry.type === 'blob' &&
      !copied.has(entry.oid) &&
      !(skipPresentIn && (await hasObject(skipPresentIn, entry.oid)))
    )
      await copyObject(from, to, entry.oid, copied);
  }
  await copyObject(from, to, oid, copied);
}
