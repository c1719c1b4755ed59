/**
 * The page Tracelake serves where a human finishes a git handshake: the provider's repositories to
 * pick from, each with the branch to read (its default filled in). Plain HTML with one form and no
 * script, so it works from any browser, and in tests from a form post.
 */
import type { GitProviderName } from './connection.js';

export interface RepositoryChoice {
  full_name: string;
  default_branch: string;
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const STYLE =
  'body{font-family:system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem}label{display:block;margin:.4rem 0}';

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body><h1>${escapeHtml(title)}</h1>${body}</body></html>`;
}

/** The repository picker of handshake `state`, posting to `action`. */
export function pickerPage(input: {
  app: string;
  provider: GitProviderName;
  state: string;
  action: string;
  repositories: readonly RepositoryChoice[];
}): string {
  if (input.repositories.length === 0) {
    return page(
      'Connect a repository',
      `<p>The ${escapeHtml(input.provider)} connection of app ${escapeHtml(input.app)} reaches no repository. Add one, then reload this page.</p>`,
    );
  }
  const options = input.repositories
    .map(
      (r, i) =>
        `<label><input type="radio" name="repository" value="${escapeHtml(r.full_name)}"${i === 0 ? ' checked' : ''}> ${escapeHtml(r.full_name)} <small>(default branch ${escapeHtml(r.default_branch)})</small></label>`,
    )
    .join('');
  return page(
    'Connect a repository',
    `<p>Pick the repository whose prompts app ${escapeHtml(input.app)} uses (${escapeHtml(input.provider)}).</p>` +
      `<form method="post" action="${escapeHtml(input.action)}"><input type="hidden" name="state" value="${escapeHtml(input.state)}">${options}` +
      `<label>Branch (empty: the repository's default branch) <input type="text" name="branch" maxlength="255"></label>` +
      `<button type="submit">Connect</button></form>`,
  );
}

/** What the human sees once the connection is made. */
export function connectedPage(repository: string, branch: string): string {
  return page(
    'Repository connected',
    `<p>${escapeHtml(repository)} (branch ${escapeHtml(branch)}) is connected. You can close this page.</p>`,
  );
}
