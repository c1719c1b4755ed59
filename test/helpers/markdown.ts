/**
 * What test/docs/guides.alone.test.ts reads in a Markdown file: its fenced shell blocks, its links and the
 * anchors its headings make on GitHub.
 */

/** A fenced shell block: its first line's number (1-based), the tags after the language, its text. */
export interface ShellBlock {
  line: number;
  language: string;
  tags: string[];
  body: string;
}

/** Languages whose blocks are shell commands. Only `sh` is run; the others are refused by the test. */
export const SHELL_LANGUAGES: ReadonlySet<string> = new Set(['sh', 'bash', 'shell', 'console', 'zsh']);

interface Fence {
  line: number;
  info: string;
  body: string;
}

/** Every fenced code block (``` or ~~~) of a Markdown text, with its info string. */
export function fences(text: string): Fence[] {
  const found: Fence[] = [];
  const lines = text.split('\n');
  let open: { marker: string; line: number; info: string; body: string[] } | null = null;
  lines.forEach((line, i) => {
    if (open === null) {
      const start = /^ {0,3}(`{3,}|~{3,})\s*(.*)$/.exec(line);
      if (start) open = { marker: start[1]!, line: i + 1, info: start[2]!.trim(), body: [] };
      return;
    }
    const close = new RegExp(`^ {0,3}${open.marker[0]}{${open.marker.length},}\\s*$`);
    if (close.test(line)) {
      found.push({ line: open.line, info: open.info, body: open.body.join('\n') + '\n' });
      open = null;
    } else {
      open.body.push(line);
    }
  });
  return found;
}

/** The shell blocks of a Markdown text, in order. */
export function shellBlocks(text: string): ShellBlock[] {
  return fences(text).flatMap((f) => {
    const [language = '', ...tags] = f.info.split(/\s+/).filter(Boolean);
    return SHELL_LANGUAGES.has(language) ? [{ line: f.line, language, tags, body: f.body }] : [];
  });
}

/** The lines of a Markdown text with those inside fenced blocks (and the fences) blanked. */
function outsideFences(text: string): string[] {
  let inFence: string | null = null;
  return text.split('\n').map((line) => {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (inFence === null) {
      if (!marker) return line;
      inFence = marker;
    } else if (marker && marker[0] === inFence[0] && marker.length >= inFence.length && line.trim() === marker) {
      inFence = null;
    }
    return '';
  });
}

/** The text outside fenced blocks and inline code spans, where links live. */
export function prose(text: string): string {
  return outsideFences(text)
    .map((line) => line.replace(/(`+)[^`]*?\1/g, ''))
    .join('\n');
}

/** A link of a Markdown text (inline, image or reference definition) and its line. */
export interface Link {
  line: number;
  target: string;
}

export function links(text: string): Link[] {
  const found: Link[] = [];
  prose(text)
    .split('\n')
    .forEach((line, i) => {
      for (const m of line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g))
        found.push({ line: i + 1, target: m[1]! });
      const definition = /^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/.exec(line);
      if (definition) found.push({ line: i + 1, target: definition[1]! });
    });
  return found;
}

/** GitHub's anchor for a heading's text: lower case, punctuation dropped, spaces as hyphens. */
export function slug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .trim();
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a Markdown file offers: its headings' slugs (repeats numbered as GitHub does) and HTML ids. */
export function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const found = new Set<string>();
  for (const line of outsideFences(text)) {
    const heading = /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = slug(heading);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    found.add(n === 0 ? base : `${base}-${n}`);
  }
  for (const m of text.matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) found.add(m[1]!);
  return found;
}
