/**
 * A prompt file of the repository (`prompts/<name>.md`) read into a prompt version:
 *
 *   ---
 *   type: chat            # text (default) or chat
 *   labels: [production]  # labels the version gets when this file content first appears
 *   model: gpt-4o         # every other key is model configuration, kept as given
 *   temperature: 0.2
 *   ---
 *   system:
 *   You are a support agent for {{product}}.
 *
 *   user:
 *   {{question}}
 *
 * The front matter is YAML and optional. A text prompt is the body as it is; a chat prompt is split
 * into messages at lines that name a role alone (`system:`, `user:`, `assistant:`, `developer:`,
 * `tool:`), the convention of Microsoft's Prompty files.
 */
import { parse as parseYaml } from 'yaml';
import type { JsonValue } from '../span.js';
import { MAX_TEMPLATE_CHARS, templateSizeProblem } from './limits.js';
import { labelsProblem } from './names.js';
import { checkTemplate, renderTemplate, type Variables } from './template.js';

export type PromptType = 'text' | 'chat';
export const CHAT_ROLES = ['system', 'user', 'assistant', 'developer', 'tool'] as const;
export type ChatRole = (typeof CHAT_ROLES)[number];

export interface ChatMessage {
  role: ChatRole;
  content: string;
}

/** The content of one prompt version, wherever it came from. */
export interface PromptContent {
  type: PromptType;
  prompt: string | ChatMessage[];
  config: Record<string, JsonValue>;
  /** Top-level template variables, in order of first use across the messages. */
  variables: string[];
}

export interface PromptDocument extends PromptContent {
  labels: string[];
}

/** A refusal for size says the `limit` it passed. */
export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string; limit?: number };

const FRONT_MATTER = /^---[ \t]*\r?\n([\s\S]*?)\r?\n?^---[ \t]*(?:\r?\n|$)/m;
const ROLE_LINE = new RegExp(`^(${CHAT_ROLES.join('|')})[ \\t]*:[ \\t]*$`, 'i');

/** Reads a prompt file's text. */
export function parsePromptFile(text: string): Parsed<PromptDocument> {
  const source = text.replace(/^\uFEFF/, '');
  let meta: Record<string, unknown> = {};
  let body = source;
  if (/^---[ \t]*\r?\n/.test(source)) {
    const m = FRONT_MATTER.exec(source);
    if (m?.index !== 0) return { ok: false, error: 'the front matter opened with "---" is never closed' };
    let parsed: unknown;
    try {
      parsed = parseYaml(m[1]!);
    } catch (e) {
      return { ok: false, error: `the front matter is not YAML: ${(e as Error).message.split('\n')[0]}` };
    }
    if (parsed !== null && (typeof parsed !== 'object' || Array.isArray(parsed)))
      return { ok: false, error: 'the front matter must be a YAML mapping' };
    meta = (parsed ?? {}) as Record<string, unknown>;
    body = source.slice(m[0].length);
  }
  const { type = 'text', labels = [], ...config } = meta;
  if (type !== 'text' && type !== 'chat')
    return { ok: false, error: `type must be text or chat, not ${JSON.stringify(type)}` };
  if (!Array.isArray(labels) || !labels.every((l): l is string => typeof l === 'string'))
    return { ok: false, error: 'labels must be a list of strings' };
  const labelError = labelsProblem(labels);
  if (labelError) return { ok: false, error: labelError };
  const prompt = type === 'chat' ? splitMessages(body) : { ok: true as const, value: trimEnd(body) };
  if (!prompt.ok) return prompt;
  const content = promptContent(type, prompt.value, config as Record<string, JsonValue>);
  return content.ok ? { ok: true, value: { ...content.value, labels } } : content;
}

/** A version's content checked (every template compiles) with its variables listed. */
export function promptContent(
  type: PromptType,
  prompt: string | ChatMessage[],
  config: Record<string, JsonValue>,
): Parsed<PromptContent> {
  if ((type === 'text') !== (typeof prompt === 'string')) {
    return { ok: false, error: type === 'text' ? 'a text prompt is a string' : 'a chat prompt is a list of messages' };
  }
  const texts = typeof prompt === 'string' ? [prompt] : prompt.map((m) => m.content);
  const tooLong = templateSizeProblem(texts.reduce((sum, text) => sum + text.length, 0));
  if (tooLong) return { ok: false, error: tooLong, limit: MAX_TEMPLATE_CHARS };
  const variables = new Set<string>();
  for (const [i, text] of texts.entries()) {
    const check = checkTemplate(text);
    if (!check.ok)
      return {
        ok: false,
        error:
          typeof prompt === 'string'
            ? `the template does not compile: ${check.error}`
            : `message ${i} does not compile: ${check.error}`,
      };
    for (const v of check.variables) variables.add(v);
  }
  return { ok: true, value: { type, prompt, config, variables: [...variables] } };
}

function splitMessages(body: string): Parsed<ChatMessage[]> {
  const messages: ChatMessage[] = [];
  let current: { role: ChatRole; lines: string[] } | null = null;
  for (const line of body.split(/\r?\n/)) {
    const role = ROLE_LINE.exec(line.trim())?.[1]?.toLowerCase() as ChatRole | undefined;
    if (role) {
      if (current) messages.push(finish(current));
      current = { role, lines: [] };
    } else if (current) current.lines.push(line);
    else if (line.trim() !== '')
      return {
        ok: false,
        error: `a chat prompt starts with a role line (${CHAT_ROLES.map((r) => `${r}:`).join(', ')}); found text before the first`,
      };
  }
  if (current) messages.push(finish(current));
  if (messages.length === 0)
    return { ok: false, error: 'a chat prompt needs at least one message (a line such as "user:" then its text)' };
  return { ok: true, value: messages };
}

function finish(m: { role: ChatRole; lines: string[] }): ChatMessage {
  return {
    role: m.role,
    content: m.lines
      .join('\n')
      .replace(/^\s*\n/, '')
      .replace(/\s+$/, ''),
  };
}

/** The body without the newlines that end the file. */
function trimEnd(body: string): string {
  return body.replace(/(\r?\n)+$/, '');
}

export type RenderedPrompt =
  | { ok: true; prompt: string | ChatMessage[] }
  | { ok: false; missing: string[] }
  | { ok: false; error: string }
  | { ok: false; overBudget: true };

/**
 * A version's prompt with `variables` filled in; refused whole when any variable is missing, or
 * when the output passes `maxChars` characters (all messages together).
 */
export function renderPrompt(
  prompt: string | ChatMessage[],
  variables: Variables,
  maxChars = Number.POSITIVE_INFINITY,
): RenderedPrompt {
  if (typeof prompt === 'string') {
    const r = renderTemplate(prompt, variables, maxChars);
    return r.ok ? { ok: true, prompt: r.text } : r;
  }
  const out: ChatMessage[] = [];
  const missing = new Set<string>();
  let left = maxChars;
  for (const m of prompt) {
    const r = renderTemplate(m.content, variables, left);
    if (r.ok) {
      out.push({ role: m.role, content: r.text });
      left -= r.text.length;
    } else if ('missing' in r) for (const v of r.missing) missing.add(v);
    else return r;
  }
  return missing.size > 0 ? { ok: false, missing: [...missing] } : { ok: true, prompt: out };
}
