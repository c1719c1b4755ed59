/**
 * Real git repositories for tests, made with the `git` executable (not the library under test):
 * working repositories and bare ones under a root laid out as TRACELAKE_GIT_ROOT expects
 * (`<root>/<owner>/<repo>[.git]`).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'Test Author',
  GIT_AUTHOR_EMAIL: 'author@example.com',
  GIT_COMMITTER_NAME: 'Test Author',
  GIT_COMMITTER_EMAIL: 'author@example.com',
  GIT_CONFIG_NOSYSTEM: '1',
  HOME: '/nonexistent',
};

/** Runs git in `cwd`; its stdout, trimmed. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env: ENV, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/** Writes `files` (path → content; null deletes) into the working tree `dir`, commits them, and answers the commit. */
export function commit(dir: string, files: Record<string, string | null>, message = 'change'): string {
  for (const [path, content] of Object.entries(files)) {
    const full = join(dir, path);
    if (content === null) rmSync(full, { force: true });
    else {
      mkdirSync(dirname(full), { recursive: true });
      writeFileSync(full, content);
    }
  }
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '--allow-empty', '-m', message);
  return git(dir, 'rev-parse', 'HEAD');
}

/** A working repository at `dir` on branch `branch`, with a first commit of `files`. */
export function workingRepo(dir: string, files: Record<string, string>, branch = 'main'): string {
  mkdirSync(dir, { recursive: true });
  git(dir, 'init', '-q', '-b', branch);
  return commit(dir, files, 'first');
}

/**
 * A bare repository `<root>/<owner>/<name>.git` holding what `source` (a working repository) has,
 * every branch; `source` gets it as its `origin`, so `git push origin` updates it.
 */
export function bareRepo(root: string, owner: string, name: string, source: string): string {
  const bare = join(root, owner, `${name}.git`);
  mkdirSync(dirname(bare), { recursive: true });
  git(dirname(bare), 'clone', '-q', '--bare', source, bare);
  git(source, 'remote', 'add', 'origin', bare);
  return bare;
}
