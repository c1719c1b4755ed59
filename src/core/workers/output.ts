/**
 * An agent's output, line by line, as the worker reports it: plain lines stay text; lines that are
 * structured events become agent events (the coding-agent session's event shape, core/agents/session.ts,
 * without id and timestamp: the worker stamps those). Three formats:
 *
 *   text                every line is text (codex exec prints its answer as text)
 *   events              Tracelake's own: a line that is a JSON object whose `type` is an event type
 *                       (`assistant_message`, `tool_call`, …) is that event; any other line is text
 *   claude-stream-json  `claude -p --output-format stream-json`: its messages become events
 *
 * A parser keeps what it needs across lines (Claude repeats a response's usage on each of its lines:
 * it is counted once, on the first).
 */
import { cutIndex, parseMendedJson } from '../text.js';

export const OUTPUT_FORMATS = ['text', 'events', 'claude-stream-json'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** The event types of a coding-agent session (core/agents/session.ts). */
export const AGENT_EVENT_TYPES = [
  'user_message',
  'assistant_message',
  'reasoning',
  'tool_call',
  'tool_result',
  'subagent_start',
  'subagent_end',
  'system',
] as const;

export type ParsedLine = { kind: 'text'; text: string } | { kind: 'agent'; event: Record<string, unknown> };

type Json = Record<string, unknown>;

function object(v: unknown): Json | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined;
}

function parseObject(line: string): Json | undefined {
  const trimmed = line.trim();
  if (!trimmed.startsWith('{')) return undefined;
  try {
    // An agent's JSON with half a character (its own text cut inside an emoji) is mended: a batch
    // holding it would be refused whole (core/text.ts).
    return object(parseMendedJson(trimmed));
  } catch {
    return undefined;
  }
}

const count = (v: unknown): number => (typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : 0);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

export class OutputParser {
  /** Claude responses whose usage was counted already. */
  private readonly counted = new Set<string>();

  constructor(readonly format: OutputFormat) {}

  line(line: string): ParsedLine[] {
    if (this.format === 'text') return [{ kind: 'text', text: line }];
    const o = parseObject(line);
    if (this.format === 'events') {
      return o && (AGENT_EVENT_TYPES as readonly unknown[]).includes(o.type)
        ? [{ kind: 'agent', event: o }]
        : [{ kind: 'text', text: line }];
    }
    const mapped = o ? this.claude(o) : null;
    return mapped ?? [{ kind: 'text', text: line }];
  }

  /** One stream-json message → events; null when it is not one this reader knows (kept as text). */
  private claude(o: Json): ParsedLine[] | null {
    const message = object(o.message);
    if (o.type === 'assistant' && message) return this.claudeAssistant(message);
    if (o.type === 'user' && message) return claudeToolResults(message);
    if (o.type === 'system' && o.subtype === 'init') {
      return [
        agent({
          type: 'system',
          kind: 'info',
          text: `claude session ${str(o.session_id) ?? '?'} (${str(o.model) ?? 'model not said'})`,
        }),
      ];
    }
    if (o.type === 'result') {
      const cost = typeof o.total_cost_usd === 'number' ? `, its cost $${o.total_cost_usd}` : '';
      const text = `claude ${str(o.subtype) ?? 'result'}: ${count(o.num_turns)} turns${cost}`;
      return [
        agent({
          type: 'system',
          kind: o.is_error === true ? 'error' : 'info',
          text: o.is_error === true && str(o.result) ? `${text}: ${str(o.result)}` : text,
        }),
      ];
    }
    return null;
  }

  private claudeAssistant(message: Json): ParsedLine[] {
    const blocks = Array.isArray(message.content)
      ? message.content.map(object).filter((b): b is Json => b !== undefined)
      : [];
    const id = str(message.id);
    const usage = object(message.usage);
    const first = id === undefined || !this.counted.has(id);
    if (id !== undefined) this.counted.add(id);
    const out: ParsedLine[] = [];
    const texts = blocks
      .filter((b) => b.type === 'text' && typeof b.text === 'string')
      .map((b) => ({ type: 'text', text: b.text as string }));
    for (const b of blocks)
      if (b.type === 'thinking' && typeof b.thinking === 'string')
        out.push(agent({ type: 'reasoning', text: b.thinking }));
    out.push(
      agent({
        type: 'assistant_message',
        model: str(message.model) || 'unknown',
        content: texts,
        ...(usage && first
          ? {
              usage: {
                inputTokens: count(usage.input_tokens),
                outputTokens: count(usage.output_tokens),
                cacheReadTokens: count(usage.cache_read_input_tokens),
                cacheCreationTokens: count(usage.cache_creation_input_tokens),
              },
            }
          : {}),
        ...(str(message.stop_reason) ? { stopReason: message.stop_reason } : {}),
      }),
    );
    for (const b of blocks) {
      if (b.type === 'tool_use' && typeof b.id === 'string' && typeof b.name === 'string')
        out.push(agent({ type: 'tool_call', callId: b.id, name: b.name, input: b.input ?? null }));
    }
    return out;
  }
}

function claudeToolResults(message: Json): ParsedLine[] | null {
  const blocks = Array.isArray(message.content)
    ? message.content
        .map(object)
        .filter((b): b is Json => b?.type === 'tool_result' && typeof b.tool_use_id === 'string')
    : [];
  // A user line without tool results is the prompt echoed: the worker reports the prompt itself.
  if (blocks.length === 0) return [];
  return blocks.map((b) =>
    agent({
      type: 'tool_result',
      callId: b.tool_use_id,
      content: [{ type: 'text', text: resultText(b.content) }],
      isError: b.is_error === true,
    }),
  );
}

/** A tool result's content: text, or a list of blocks whose text parts are joined. */
function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((c) => object(c))
    .map((c) => (c && typeof c.text === 'string' ? c.text : c ? `[${str(c.type) ?? 'part'}]` : ''))
    .join('\n');
}

function agent(event: Json): ParsedLine {
  return { kind: 'agent', event };
}

/**
 * Splits a byte stream into lines: `push` takes a chunk and answers the complete lines in it
 * (without their `\n` or `\r\n`); `end` answers what is left. A line longer than `maxLine`
 * characters is cut there, or a unit before when that would split a surrogate pair (the rest is the
 * next line), so one runaway line cannot hold memory.
 */
export class LineSplitter {
  private pending = '';
  private readonly decoder = new TextDecoder('utf-8');

  constructor(private readonly maxLine = 1024 * 1024) {}

  push(chunk: Uint8Array): string[] {
    this.pending += this.decoder.decode(chunk, { stream: true });
    const lines: string[] = [];
    for (;;) {
      const nl = this.pending.indexOf('\n');
      if (nl >= 0 && nl <= this.maxLine) {
        lines.push(this.pending.slice(0, nl).replace(/\r$/, ''));
        this.pending = this.pending.slice(nl + 1);
      } else if (this.pending.length > this.maxLine) {
        // Never half a character (core/text.ts); a limit too small to hold a pair takes it whole.
        const cut = cutIndex(this.pending, this.maxLine) || 2;
        lines.push(this.pending.slice(0, cut));
        this.pending = this.pending.slice(cut);
      } else {
        return lines;
      }
    }
  }

  end(): string[] {
    const rest = this.pending + this.decoder.decode();
    this.pending = '';
    return rest === '' ? [] : [rest.replace(/\r$/, '')];
  }
}
