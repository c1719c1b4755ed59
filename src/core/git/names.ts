/**
 * Names a git connection deals in: repositories in the spec's `owner/repo` form, and refs (branch
 * names or commit shas). Checked here, before they reach a provider, so a name can never become a
 * path outside the git root or an odd URL on GitHub.
 */

/** One part of `owner/repo`: GitHub's own alphabet; `.` and `..` alone are never names. */
const PART = /^[A-Za-z0-9_.-]{1,100}$/;

export interface RepositoryName {
  owner: string;
  name: string;
}

/** `owner/repo` as its two parts; null when it is not that form. */
export function parseRepositoryName(fullName: string): RepositoryName | null {
  const parts = fullName.split('/');
  if (parts.length !== 2) return null;
  const [owner, name] = parts as [string, string];
  if (!isPart(owner) || !isPart(name)) return null;
  return { owner, name };
}

function isPart(p: string): boolean {
  return PART.test(p) && p !== '.' && p !== '..';
}

/** What a repository part must look like, said to the caller. */
export const REPOSITORY_RULE = 'owner/repo, each part 1–100 letters, digits, ".", "_" or "-"';

/** A full commit sha: 40 lowercase hex digits (SHA-1 repositories). */
export const COMMIT_SHA = /^[0-9a-f]{40}$/;

/**
 * Whether `name` is a branch name git accepts (`git check-ref-format --branch`, the rules that
 * matter): no control characters, spaces or `~^:?*[\`, no `..`, `@{` or `//`, no part starting with
 * `.` or ending with `.lock`, not starting or ending with `/`, not ending with `.`, not `@` alone.
 */
export function isBranchName(name: string): boolean {
  if (name.length === 0 || name.length > 255 || name === '@') return false;
  if (/[\x00-\x20\x7f~^:?*[\\]/.test(name)) return false;
  if (name.includes('..') || name.includes('@{') || name.includes('//')) return false;
  if (name.startsWith('/') || name.endsWith('/') || name.endsWith('.') || name.startsWith('-')) return false;
  return name.split('/').every((part) => !part.startsWith('.') && !part.endsWith('.lock'));
}

/** A ref a read may name: a branch name or a full commit sha. */
export function isRef(ref: string): boolean {
  return COMMIT_SHA.test(ref) || isBranchName(ref);
}
