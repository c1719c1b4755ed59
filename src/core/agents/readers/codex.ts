/**
 * OpenAI Codex CLI rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`) → sessions.
 *
 * Lines are `{timestamp, type, payload}`: `session_meta` (id, cwd, CLI version, git), `turn_context`
 * (the model of the turns that follow), `response_item` (the model's output items — reasoning, an
 * assistant message, `function_call` / `custom_tool_call` — and the tools' outputs), `event_msg`
 * (`user_message` is what the user typed; `token_count` closes one model response with its usage)
 * and `compacted` (a summary that replaced earlier context). A response's items come before its
 * `token_count`, so they are held until it arrives and then written after the assistant message
 * that carries the usage; items of a response still being written are left for the next read.
 *
 * Usage follows ccusage's reading: `last_token_usage`, else the growth of `total_token_usage`;
 * Codex counts cached input inside `input_tokens` (ours excludes it) and reasoning inside
 * `output_tokens`. The model is the usage's own, else the turn context's, else `gpt-5` (the
 * rollouts of early versions name none).
 */
import type { AgentEvent, AgentSession, ContentPart, TokenUsage } from '../session.js';
import { BlobBag } from './blobBag.js';
import { count, emptyStats, jsonLines, record, text, timestamp, type ReadStats } from './jsonl.js';
import type { ReadResult, TranscriptFile } from './claudeCode.js';

export const CODEX = 'codex';
const FALLBACK_MODEL = 'gpt-5';

const KNOWN = new Set(['session_meta', 'turn_context', 'response_item', 'event_msg', 'compacted']);
const ROLLOUT_ID = /rollout-.*?([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/i;

export function readCodex(files: readonly TranscriptFile[], blobs = new BlobBag()): ReadResult {
  const stats = emptyStats();
  const sessions = files.flatMap((f) => {
    const s = readRollout(f, blobs, stats);
    return s ? [s] : [];
  });
  return { sessions, blobs, stats };
}

interface RawUsage {
  input: number;
  cached: number;
  output: number;
  reasoning: number;
}

function readRollout(file: TranscriptFile, blobs: BlobBag, stats: ReadStats): AgentSession | null {
  const lines = jsonLines(file.text, stats);
  // Versions that write `event_msg` user messages also log the context they inject as user items.
  const typedPrompts = lines.some(
    (l) => l.value.type === 'event_msg' && record(l.value.payload)?.type === 'user_message',
  );
  let id = ROLLOUT_ID.exec(file.path)?.[1] ?? null;
  let version: string | null = null;
  let cwd: string | null = null;
  let git: AgentSession['git'] = null;
  let startedAt: string | null = null;
  let model: string | null = null;
  let previousTotal: RawUsage | null = null;
  const events: AgentEvent[] = [];
  /** Items of the model response in progress, and where it began. */
  let held: AgentEvent[] = [];
  let responseStart: { line: number; at: string } | null = null;
  let text_: ContentPart[] = [];

  for (const { number, value } of lines) {
    const type = typeof value.type === 'string' ? value.type : '';
    if (!KNOWN.has(type)) {
      stats.unknown++;
      continue;
    }
    const payload = record(value.payload) ?? {};
    const at = timestamp(value.timestamp) ?? timestamp(payload.timestamp);
    if (!at) continue;
    const eid = `l${number}`;
    startedAt ??= at;
    if (type === 'session_meta') {
      id = text(payload.id) ?? id;
      startedAt = timestamp(payload.timestamp) ?? startedAt;
      version = text(payload.cli_version) ?? version;
      cwd = text(payload.cwd) ?? cwd;
      const g = record(payload.git);
      if (g)
        git = {
          repository: text(g.repository_url) ?? null,
          branch: text(g.branch) ?? null,
          commit: text(g.commit_hash) ?? null,
        };
      continue;
    }
    if (type === 'turn_context') {
      model = text(payload.model) ?? model;
      continue;
    }
    if (type === 'compacted') {
      events.push({ id: eid, timestamp: at, type: 'system', kind: 'compaction', text: text(payload.message) ?? null });
      continue;
    }
    const kind = payload.type;
    const beginResponse = () => (responseStart ??= { line: number, at });
    if (type === 'response_item') {
      if (kind === 'message' && payload.role === 'user') {
        if (!typedPrompts)
          events.push({ id: eid, timestamp: at, type: 'user_message', content: contentOf(payload.content, blobs) });
      } else if (kind === 'message' && payload.role === 'assistant') {
        beginResponse();
        text_.push(...contentOf(payload.content, blobs));
      } else if (kind === 'reasoning') {
        beginResponse();
        const summary = Array.isArray(payload.summary)
          ? payload.summary.map(record).flatMap((s) => (s && typeof s.text === 'string' ? [s.text] : []))
          : [];
        if (summary.length > 0) held.push({ id: eid, timestamp: at, type: 'reasoning', text: summary.join('\n\n') });
      } else if (
        (kind === 'function_call' || kind === 'custom_tool_call' || kind === 'local_shell_call') &&
        text(payload.call_id)
      ) {
        beginResponse();
        held.push({
          id: eid,
          timestamp: at,
          type: 'tool_call',
          callId: payload.call_id as string,
          name: text(payload.name) ?? (kind === 'local_shell_call' ? 'local_shell' : 'tool'),
          input: argumentsOf(payload),
        });
      } else if ((kind === 'function_call_output' || kind === 'custom_tool_call_output') && text(payload.call_id)) {
        const { content, isError } = outputOf(payload.output, blobs);
        events.push({
          id: eid,
          timestamp: at,
          type: 'tool_result',
          callId: payload.call_id as string,
          content,
          isError,
        });
      }
      continue;
    }
    // event_msg
    if (kind === 'user_message') {
      const parts: ContentPart[] = text(payload.message) ? [blobs.text(payload.message as string)] : [];
      for (const image of Array.isArray(payload.images) ? payload.images : []) {
        const m = typeof image === 'string' ? /^data:([^;,]+);base64,(.+)$/s.exec(image) : null;
        const part = m ? blobs.addBase64(m[1]!, m[2]!) : undefined;
        if (part) parts.push(part);
      }
      if (parts.length > 0) events.push({ id: eid, timestamp: at, type: 'user_message', content: parts });
    } else if (kind === 'token_count') {
      const info = record(payload.info);
      const last = rawUsage(info?.last_token_usage);
      const total = rawUsage(info?.total_token_usage);
      const usage = last ?? (total ? minus(total, previousTotal) : null);
      if (total) previousTotal = total;
      if (!usage || usage.input + usage.cached + usage.output + usage.reasoning === 0) continue;
      const start = responseStart ?? { line: number, at };
      model = text(info?.model) ?? text(info?.model_name) ?? text(payload.model) ?? model ?? FALLBACK_MODEL;
      events.push(
        {
          id: `l${start.line}:response`,
          timestamp: start.at,
          type: 'assistant_message',
          model,
          content: text_,
          usage: tokenUsage(usage),
        },
        ...held,
      );
      held = [];
      text_ = [];
      responseStart = null;
    }
  }
  if (!id || events.length === 0) return null;
  return { id, agent: { name: CODEX, version }, startedAt: startedAt!, endedAt: null, cwd, git, events };
}

/** Arguments as the tool got them: parsed when they are JSON text. */
function argumentsOf(p: Record<string, unknown>): unknown {
  const raw = p.arguments ?? p.input ?? p.action ?? null;
  if (typeof raw !== 'string') return raw;
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

/** A tool's output: JSON `{output, metadata: {exit_code}}` from shell calls, or plain text. */
function outputOf(raw: unknown, blobs: BlobBag): { content: ContentPart[]; isError: boolean } {
  let out: unknown = raw;
  if (typeof raw === 'string') {
    try {
      out = JSON.parse(raw);
    } catch {
      out = raw;
    }
  }
  const o = record(out);
  const body = o
    ? typeof o.output === 'string'
      ? o.output
      : JSON.stringify(o)
    : typeof out === 'string'
      ? out
      : JSON.stringify(out);
  const exit = record(o?.metadata)?.exit_code;
  return { content: body === '' ? [] : [blobs.text(body)], isError: typeof exit === 'number' && exit !== 0 };
}

function contentOf(content: unknown, blobs: BlobBag): ContentPart[] {
  if (!Array.isArray(content)) return [];
  return content.map(record).flatMap((c): ContentPart[] => {
    if (!c) return [];
    if ((c.type === 'input_text' || c.type === 'output_text' || c.type === 'text') && text(c.text))
      return [blobs.text(c.text as string)];
    if (c.type === 'input_image' && typeof c.image_url === 'string') {
      const m = /^data:([^;,]+);base64,(.+)$/s.exec(c.image_url);
      const part = m ? blobs.addBase64(m[1]!, m[2]!) : undefined;
      return part ? [part] : [];
    }
    return [];
  });
}

function rawUsage(v: unknown): RawUsage | null {
  const u = record(v);
  if (!u) return null;
  return {
    input: count(u.input_tokens),
    cached: count(u.cached_input_tokens ?? u.cache_read_input_tokens),
    output: count(u.output_tokens),
    reasoning: count(u.reasoning_output_tokens),
  };
}

function minus(a: RawUsage, b: RawUsage | null): RawUsage {
  return {
    input: Math.max(0, a.input - (b?.input ?? 0)),
    cached: Math.max(0, a.cached - (b?.cached ?? 0)),
    output: Math.max(0, a.output - (b?.output ?? 0)),
    reasoning: Math.max(0, a.reasoning - (b?.reasoning ?? 0)),
  };
}

/** Codex's counts in the session's terms: cached input apart from the rest. */
function tokenUsage(u: RawUsage): TokenUsage {
  const cached = Math.min(u.cached, u.input);
  return {
    inputTokens: u.input - cached,
    outputTokens: u.output,
    cacheReadTokens: cached,
    cacheCreationTokens: 0,
    reasoningTokens: u.reasoning,
  };
}
