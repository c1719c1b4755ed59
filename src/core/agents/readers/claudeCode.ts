/**
 * Claude Code transcripts (`~/.claude/projects/<project>/<session>.jsonl`) → sessions.
 *
 * Each line is one record: `user` (a prompt, or tool results as `tool_result` blocks), `assistant`
 * (one content block per line; the lines of one API response share `message.id` and `requestId`
 * and repeat its usage, so a response is counted once — as ccusage does), `system` (notices; a
 * `compact_boundary` marks a compaction, whose summary follows as a user line with
 * `isCompactSummary`), `summary` (a title, naming the last message it covers by `leafUuid`).
 * Sub-agents (the Task tool) write sidechain lines (`isSidechain: true`): in files of their own
 * (`agent-<agentId>.jsonl`, lines naming the parent `sessionId` and their `agentId`) or, in older
 * versions, in the session's file. Their work is nested under a `subagent_start`, linked to the Task
 * call by the result's `agentId` or by the prompt, and closed by the Task's result.
 */
import type { AgentEvent, AgentSession, ContentPart } from '../session.js';
import { BlobBag } from './blobBag.js';
import { count, emptyStats, jsonLines, record, text, timestamp, type Line, type ReadStats } from './jsonl.js';

export const CLAUDE_CODE = 'claude-code';

/** Line types that carry nothing for a session (file snapshots, the prompt queue). */
const IGNORED = new Set(['file-history-snapshot', 'queue-operation']);
const KNOWN = new Set(['user', 'assistant', 'system', 'summary', ...IGNORED]);

export interface TranscriptFile {
  path: string;
  text: string;
}

export interface ReadResult {
  sessions: AgentSession[];
  blobs: BlobBag;
  stats: ReadStats;
}

interface Entry {
  line: Line;
  file: string;
  order: number;
}

export function readClaudeCode(files: readonly TranscriptFile[], blobs = new BlobBag()): ReadResult {
  const stats = emptyStats();
  const bySession = new Map<string, Entry[]>();
  const titles = new Map<string, string>();
  let order = 0;
  for (const f of files) {
    for (const line of jsonLines(f.text, stats)) {
      const type = line.value.type;
      if (typeof type !== 'string' || !KNOWN.has(type)) {
        stats.unknown++;
        continue;
      }
      if (type === 'summary') {
        const leaf = text(line.value.leafUuid);
        const summary = text(line.value.summary);
        if (leaf && summary) titles.set(leaf, summary);
        continue;
      }
      const sessionId = text(line.value.sessionId);
      if (IGNORED.has(type) || !sessionId || !timestamp(line.value.timestamp)) continue;
      const list = bySession.get(sessionId) ?? [];
      list.push({ line, file: f.path, order: order++ });
      bySession.set(sessionId, list);
    }
  }
  const sessions: AgentSession[] = [];
  // A response copied into a later session (a resumed one) counts where it appeared first, as in ccusage.
  const seenResponses = new Set<string>();
  const ordered = [...bySession].sort(([, a], [, b]) => earliest(a).localeCompare(earliest(b)));
  for (const [id, entries] of ordered) {
    const session = buildSession(id, entries, titles, blobs, seenResponses);
    if (session) sessions.push(session);
  }
  return { sessions, blobs, stats };
}

function earliest(entries: readonly Entry[]): string {
  return entries.reduce((min: string, e) => {
    const t = timestamp(e.line.value.timestamp)!;
    return t < min ? t : min;
  }, '9999');
}

/** One thread of events: the main conversation, or one sub-agent's. */
interface Thread {
  agentId: string | null;
  events: AgentEvent[];
  responses: Map<string, AgentEvent>;
  /** The first user text of a sub-agent: its prompt, which the Task call also names. */
  prompt: string | null;
}

function buildSession(
  id: string,
  entries: Entry[],
  titles: ReadonlyMap<string, string>,
  blobs: BlobBag,
  seenResponses: Set<string>,
): AgentSession | null {
  const first = entries[0]!.line.value;
  const main: Thread = { agentId: null, events: [], responses: new Map(), prompt: null };
  const subs = new Map<string, Thread>();
  /** Sidechain lines of older versions carry no agentId: their chain's first line names the thread. */
  const chainOf = new Map<string, string>();
  const uuids = new Set<string>();
  let title: string | null = null;
  let version: string | null = null;
  let cwd: string | null = null;
  let branch: string | null = null;

  for (const { line, file } of entries) {
    const v = line.value;
    const uuid = text(v.uuid) ?? `${file}:${line.number}`;
    if (uuids.has(uuid)) continue; // a line copied again (resumed sessions repeat their history)
    uuids.add(uuid);
    title = titles.get(uuid) ?? title;
    version = text(v.version) ?? version;
    cwd = text(v.cwd) ?? cwd;
    branch = text(v.gitBranch) ?? branch;
    let thread = main;
    if (v.isSidechain === true) {
      const parent = text(v.parentUuid);
      const agentId = text(v.agentId) ?? (parent && chainOf.get(parent)) ?? `chain-${uuid}`;
      chainOf.set(uuid, agentId);
      thread = subs.get(agentId) ?? { agentId, events: [], responses: new Map(), prompt: null };
      subs.set(agentId, thread);
    }
    addLine(thread, v, uuid, blobs, seenResponses);
  }
  if (main.events.length === 0 && subs.size === 0) return null;
  const events = nest(main, subs);
  return {
    id,
    agent: { name: CLAUDE_CODE, version },
    startedAt: events[0]?.timestamp ?? timestamp(first.timestamp)!,
    endedAt: null,
    title,
    cwd,
    git: branch ? { repository: null, branch, commit: null } : null,
    events,
  };
}

function addLine(
  thread: Thread,
  v: Record<string, unknown>,
  uuid: string,
  blobs: BlobBag,
  seenResponses: Set<string>,
): void {
  const at = timestamp(v.timestamp)!;
  const message = record(v.message);
  switch (v.type) {
    case 'user': {
      const content = message?.content;
      if (v.isCompactSummary === true) {
        thread.events.push({ id: uuid, timestamp: at, type: 'system', kind: 'compaction', text: plainText(content) });
        return;
      }
      const blocks =
        typeof content === 'string' ? [{ type: 'text', text: content }] : Array.isArray(content) ? content : [];
      const parts: ContentPart[] = [];
      for (const b of blocks.map(record)) {
        if (!b) continue;
        if (b.type === 'tool_result') {
          const callId = text(b.tool_use_id);
          if (!callId) continue;
          const result = record(v.toolUseResult);
          thread.events.push({
            id: `${uuid}:${callId}`,
            timestamp: at,
            type: 'tool_result',
            callId,
            content: partsOf(b.content, blobs),
            isError: b.is_error === true,
          });
          // The Task tool's result is the end of its sub-agent; the agentId links the two when written.
          const agentId = text(result?.agentId);
          if (agentId)
            thread.events.push({
              id: `${uuid}:${callId}:end`,
              timestamp: at,
              type: 'subagent_end',
              agentId,
              result: plainText(b.content),
            });
        } else {
          parts.push(...partsOf([b], blobs));
        }
      }
      if (parts.length === 0) return;
      if (v.isMeta === true) {
        thread.events.push({
          id: uuid,
          timestamp: at,
          type: 'system',
          kind: 'info',
          text: parts.map((p) => (p.type === 'text' ? p.text : '')).join('\n'),
        });
        return;
      }
      thread.prompt ??= parts.find((p) => p.type === 'text')?.text ?? null;
      thread.events.push({ id: uuid, timestamp: at, type: 'user_message', content: parts });
      return;
    }
    case 'assistant': {
      if (!message) return;
      const messageId = text(message.id) ?? uuid;
      const requestId = text(v.requestId) ?? '';
      const responseKey = `${messageId}:${requestId}`;
      const blocks = Array.isArray(message.content) ? message.content.map(record) : [];
      let response = thread.responses.get(messageId);
      if (!response) {
        const usage = record(message.usage);
        const counted = seenResponses.has(responseKey);
        seenResponses.add(responseKey);
        response = {
          id: messageId,
          timestamp: at,
          type: 'assistant_message',
          model: text(message.model) ?? 'unknown',
          content: [],
          // A response written again (a resumed session copies it) is counted where it first appeared.
          usage:
            usage && !counted
              ? {
                  inputTokens: count(usage.input_tokens),
                  outputTokens: count(usage.output_tokens),
                  cacheReadTokens: count(usage.cache_read_input_tokens),
                  cacheCreationTokens: count(usage.cache_creation_input_tokens),
                }
              : null,
          stopReason: text(message.stop_reason) ?? null,
        };
        thread.events.push(response);
        thread.responses.set(messageId, response);
      }
      for (const b of blocks) {
        if (!b) continue;
        if (b.type === 'text' && text(b.text))
          (response as { content: ContentPart[] }).content.push(blobs.text(b.text as string));
        else if (b.type === 'thinking' && text(b.thinking))
          thread.events.push({ id: `${uuid}:thinking`, timestamp: at, type: 'reasoning', text: b.thinking as string });
        else if (b.type === 'tool_use' && text(b.id) && text(b.name))
          thread.events.push({
            id: `${uuid}:${b.id}`,
            timestamp: at,
            type: 'tool_call',
            callId: b.id as string,
            name: b.name as string,
            input: b.input ?? null,
          });
      }
      return;
    }
    case 'system': {
      const subtype = text(v.subtype);
      thread.events.push({
        id: uuid,
        timestamp: at,
        type: 'system',
        kind: subtype === 'compact_boundary' ? 'compaction' : (subtype ?? 'info'),
        text: text(v.content) ?? null,
      });
    }
  }
}

/** Tool result or message content (a string, or text and image blocks) as parts. */
function partsOf(content: unknown, blobs: BlobBag): ContentPart[] {
  if (typeof content === 'string') return content === '' ? [] : [blobs.text(content)];
  if (!Array.isArray(content)) return [];
  const parts: ContentPart[] = [];
  for (const b of content.map(record)) {
    if (b?.type === 'text' && text(b.text)) parts.push(blobs.text(b.text as string));
    else if (b?.type === 'image') {
      const source = record(b.source);
      const part =
        source?.type === 'base64' && text(source.data)
          ? blobs.addBase64(text(source.media_type) ?? 'application/octet-stream', source.data as string)
          : undefined;
      if (part) parts.push(part);
    }
  }
  return parts;
}

function plainText(content: unknown): string | null {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return null;
  const texts = content.map(record).flatMap((b) => (b?.type === 'text' && typeof b.text === 'string' ? [b.text] : []));
  return texts.length > 0 ? texts.join('\n\n') : null;
}

/**
 * The main thread with each sub-agent's events nested under a `subagent_start`, all in time order
 * (each thread keeps its own order). A sub-agent is linked to the Task call that launched it by the
 * `agentId` its result names, else by its prompt; a sub-agent whose result carried no agentId is
 * ended where that result is.
 */
function nest(main: Thread, subs: ReadonlyMap<string, Thread>): AgentEvent[] {
  const calls = main.events.filter((e) => e.type === 'tool_call') as Extract<AgentEvent, { type: 'tool_call' }>[];
  const ended = new Set<string>();
  /** The Task call whose result named the sub-agent (its end follows that result). */
  const callOfAgent = new Map<string, string>();
  main.events.forEach((e, i) => {
    if (e.type !== 'subagent_end') return;
    ended.add(e.agentId);
    const result = main.events[i - 1];
    if (result?.type === 'tool_result') callOfAgent.set(e.agentId, result.callId);
  });
  const lists: AgentEvent[][] = [];
  const claimed = new Set<string>();
  for (const sub of subs.values()) {
    if (sub.events.length === 0) continue;
    const startId = `subagent:${sub.agentId}`;
    const linked = callOfAgent.get(sub.agentId!);
    const byPrompt =
      linked !== undefined
        ? calls.find((c) => c.callId === linked)
        : sub.prompt === null
          ? undefined
          : calls.find((c) => !claimed.has(c.callId) && record(c.input)?.prompt === sub.prompt);
    if (byPrompt) claimed.add(byPrompt.callId);
    const start: AgentEvent = {
      id: startId,
      timestamp: sub.events[0]!.timestamp,
      type: 'subagent_start',
      agentId: sub.agentId!,
      name: (byPrompt && text(record(byPrompt.input)?.subagent_type)) ?? null,
      prompt: sub.prompt,
      callId: byPrompt?.callId ?? null,
    };
    lists.push([start, ...sub.events.map((e) => ({ ...e, parentId: startId }))]);
    // Linked by prompt only: its end is the Task call's result.
    if (byPrompt && !ended.has(sub.agentId!)) {
      const at = main.events.findIndex((e) => e.type === 'tool_result' && e.callId === byPrompt.callId);
      if (at >= 0) {
        const r = main.events[at] as Extract<AgentEvent, { type: 'tool_result' }>;
        main.events.splice(at + 1, 0, {
          id: `${r.id}:end`,
          timestamp: r.timestamp,
          type: 'subagent_end',
          agentId: sub.agentId!,
          result: r.content.map((p) => (p.type === 'text' ? p.text : '')).join('\n\n') || null,
        });
      }
    }
  }
  const known = new Set(subs.keys());
  return mergeByTime([main.events.filter((e) => e.type !== 'subagent_end' || known.has(e.agentId)), ...lists]);
}

/** A stable merge of lists each in order: by timestamp, ties to the earlier list. */
function mergeByTime(lists: AgentEvent[][]): AgentEvent[] {
  const at = lists.map(() => 0);
  const out: AgentEvent[] = [];
  for (;;) {
    let best = -1;
    for (let i = 0; i < lists.length; i++) {
      const e = lists[i]![at[i]!];
      if (e && (best < 0 || e.timestamp < lists[best]![at[best]!]!.timestamp)) best = i;
    }
    if (best < 0) return out;
    out.push(lists[best]![at[best]!++]!);
  }
}
