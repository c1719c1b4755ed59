/**
 * Names in the prompts domain: prompt names, labels, and the repository paths prompts and templates
 * live at. The repository layout (docs/decisions.md, "Prompts"): every template is a file under
 * `prompts/`; a prompt is `prompts/<name>.md`, where `<name>` may hold folders (`support/greeting`).
 */

/** The directory of the repository that templates are read from; nothing outside it is served. */
export const PROMPTS_DIR = 'prompts';
/** The extension of a prompt file. */
export const PROMPT_EXTENSION = '.md';

/** Labels the server keeps itself: `latest` always names the highest version. */
export const LATEST = 'latest';
export const PRODUCTION = 'production';

const NAME_PART = '[A-Za-z0-9][A-Za-z0-9_.-]*';
const NAME = new RegExp(`^${NAME_PART}(/${NAME_PART})*$`);
export const MAX_NAME_LENGTH = 128;
export const NAME_RULE = `1–${MAX_NAME_LENGTH} characters: letters, digits, "_", "-", "." and "/" between folder names, each part starting with a letter or digit`;

/** Whether `name` is a prompt name (also a safe relative path: no `..`, no empty part). */
export function isPromptName(name: string): boolean {
  return (
    name.length <= MAX_NAME_LENGTH && NAME.test(name) && !name.split('/').some((p) => p === '..' || p.endsWith('.'))
  );
}

const LABEL = /^[a-z0-9][a-z0-9_.-]{0,35}$/;
export const LABEL_RULE = '1–36 lowercase letters, digits, "_", "-" or ".", starting with a letter or digit';

/** Why `labels` cannot be set on a version, or null. `latest` is the server's to move. */
export function labelsProblem(labels: readonly string[]): string | null {
  for (const label of labels) {
    if (!LABEL.test(label)) return `"${label}" is not a label: ${LABEL_RULE}`;
    if (label === LATEST) return '"latest" always names the highest version; it cannot be set';
  }
  if (new Set(labels).size !== labels.length) return 'a label is given twice';
  return null;
}

export type PathCheck = { ok: true; path: string } | { ok: false; reason: string };

/**
 * A template path as asked for (`?path=`), checked: relative, `/`-separated, no `.` or `..` part,
 * no empty part, no backslash or control character, and inside `prompts/`. Nothing is resolved or
 * normalised: a path that is not already in its plain form is refused rather than guessed at.
 */
export function checkTemplatePath(path: string): PathCheck {
  if (path.length === 0 || path.length > 1024) return { ok: false, reason: 'must be 1–1024 characters' };
  if (/[\x00-\x1f\x7f\\]/.test(path))
    return { ok: false, reason: 'must not contain backslashes or control characters' };
  if (path.startsWith('/'))
    return {
      ok: false,
      reason: `must be relative to the repository root, e.g. ${PROMPTS_DIR}/greeting${PROMPT_EXTENSION}`,
    };
  const parts = path.split('/');
  if (parts.some((p) => p === '.' || p === '..')) return { ok: false, reason: 'must not contain "." or ".." parts' };
  if (parts.some((p) => p === ''))
    return { ok: false, reason: 'must not contain empty parts ("//" or a trailing "/")' };
  if (parts[0] !== PROMPTS_DIR || parts.length < 2)
    return { ok: false, reason: `must be a file inside ${PROMPTS_DIR}/` };
  return { ok: true, path };
}

/** The prompt a repository file defines (`prompts/a/b.md` → `a/b`), or null when it defines none. */
export function promptNameOfPath(path: string): string | null {
  if (!path.startsWith(`${PROMPTS_DIR}/`) || !path.endsWith(PROMPT_EXTENSION)) return null;
  const name = path.slice(PROMPTS_DIR.length + 1, -PROMPT_EXTENSION.length);
  return isPromptName(name) ? name : null;
}
