/**
 * One coding-agent session → span records (core/span.ts), the same records the OTLP mapper makes,
 * so sessions go through the segment engine like any trace:
 *
 *   session            → the trace's root AGENT span (service_name = the agent's name)
 *   assistant message  → GENERATION (model, tokens, cost from the price table, input and output)
 *   tool call          → TOOL span holding its result (ERROR when the result says so)
 *   sub-agent          → child AGENT span, under the tool call that launched it; its events beneath
 *   user message, reasoning, system notice, orphan tool result → EVENT rows
 *
 * Ids derive from the session and event ids (ids.ts), and a span is written only once it is final:
 * a tool call waits for its result, a sub-agent for its end, unless the session has ended or the
 * conversation went on without them (stored spans never change, so a half-known span would stay so).
 * The root span is written at the first sync; the trace summary (end, latency, totals) follows later
 * syncs, since it folds every span in.
 */
import type { JsonValue, SpanRecord, SpanStatus } from '../span.js';
import type { CostFn } from '../otlp/fields.js';
import { MAX_INT64 } from '../otlp/int64.js';
import { cutText } from '../text.js';
import { sessionSpanId, sessionTraceId, type SessionKey } from './ids.js';
import type { AgentEvent, AgentSession, ContentPart, ToolCallEvent, ToolResultEvent } from './session.js';

export interface MapSessionOptions {
  costOf?: CostFn;
  /** Text of the request's text blobs by SHA-256: parts naming them are shown as their text. */
  blobTexts?: ReadonlyMap<string, string>;
}

/** What a span of a session says beyond what all its spans share. */
type SpanFields = Partial<
  Omit<
    SpanRecord,
    | 'traceId'
    | 'promptName'
    | 'serviceName'
    | 'sessionId'
    | 'userId'
    | 'runId'
    | 'tags'
    | 'graph'
    | 'resource'
    | 'scope'
  >
> &
  Pick<SpanRecord, 'spanId' | 'parentId' | 'name' | 'type' | 'spanKind' | 'startNs' | 'endNs'>;

/** The span-tree parent of an event: the root, or a sub-agent's AGENT span. */
const ROOT = '';

interface Thread {
  spanId: string;
  /** When the thread's previous event happened: a generation runs from there to its own timestamp. */
  lastNs: bigint;
  /** What came in since the thread's last assistant message: the next generation's input. */
  pending: JsonValue[];
}

export function mapSession(
  session: AgentSession,
  scope: { tenantId: string; appId: string },
  options: MapSessionOptions = {},
): SpanRecord[] {
  const key: SessionKey = { ...scope, agent: session.agent.name, sessionId: session.id };
  const traceId = sessionTraceId(key);
  const spanId = (role: string, eventId: string) => sessionSpanId(key, role, eventId);
  const ended = session.endedAt != null;
  const startNs = nsOf(session.startedAt);
  const times = session.events.map((e) => nsOf(e.timestamp));
  const lastNs = times.reduce(maxNs, startNs);
  const render = (parts: readonly ContentPart[]) => renderContent(parts, options.blobTexts);

  const tags = [`agent:${session.agent.name}`];
  const resource = compact({ 'service.name': session.agent.name, 'service.version': session.agent.version ?? null });
  const scopeOf = { name: 'tracelake.agents', version: '1' };
  // Every field in one fixed order: records of one shape keep the mapping fast (spreading partial
  // records over defaults kept V8 changing the objects' shapes: native-bench/RESULTS.md, "Figures
  // behind the code").
  const span = (s: SpanFields): SpanRecord => ({
    traceId,
    spanId: s.spanId,
    parentId: s.parentId,
    name: s.name,
    type: s.type,
    spanKind: s.spanKind,
    status: s.status ?? 'UNSET',
    statusMessage: s.statusMessage ?? null,
    startNs: s.startNs,
    endNs: s.endNs,
    model: s.model ?? null,
    promptName: null,
    serviceName: session.agent.name,
    inputTokens: s.inputTokens ?? null,
    outputTokens: s.outputTokens ?? null,
    cachedInputTokens: s.cachedInputTokens ?? null,
    tokens: s.tokens ?? null,
    cost: s.cost ?? null,
    input: s.input ?? null,
    output: s.output ?? null,
    sessionId: session.id,
    userId: session.userId ?? null,
    runId: null,
    tags,
    metadata: s.metadata ?? {},
    graph: {},
    attributes: s.attributes ?? {},
    resource,
    scope: scopeOf,
  });

  const results = new Map<string, ToolResultEvent>();
  const calls = new Map<string, ToolCallEvent>();
  const ends = new Map<string, { ns: bigint; result: string | null }>();
  const lastOfThread = new Map<string, bigint>();
  /** Threads in which a user spoke after each event index: a pending tool call there was abandoned. */
  const lastUserAt = new Map<string, number>();
  session.events.forEach((e, i) => {
    const thread = e.parentId ?? ROOT;
    const ns = times[i]!;
    if (ns > (lastOfThread.get(thread) ?? 0n)) lastOfThread.set(thread, ns);
    if (e.type === 'tool_result') results.set(e.callId, e);
    else if (e.type === 'tool_call') calls.set(e.callId, e);
    else if (e.type === 'subagent_end') ends.set(e.agentId, { ns, result: e.result ?? null });
    else if (e.type === 'user_message') lastUserAt.set(thread, i);
  });

  // The tool calls each assistant message made: they follow it in its thread, before the next message.
  const callsOf = new Map<string, { id: string; name: string }[]>();
  const lastMessage = new Map<string, string>();
  for (const e of session.events) {
    const thread = e.parentId ?? ROOT;
    if (e.type === 'assistant_message') lastMessage.set(thread, e.id);
    else if (e.type === 'user_message') lastMessage.delete(thread);
    else if (e.type === 'tool_call' && lastMessage.has(thread)) {
      const list = callsOf.get(lastMessage.get(thread)!) ?? [];
      list.push({ id: e.callId, name: e.name });
      callsOf.set(lastMessage.get(thread)!, list);
    }
  }

  const rootId = spanId('session', '');
  const firstPrompt = session.events.find((e) => e.type === 'user_message' && (e.parentId ?? null) === null);
  const spans: SpanRecord[] = [
    span({
      spanId: rootId,
      parentId: null,
      name: session.title ?? `${session.agent.name} session`,
      type: 'SPAN',
      spanKind: 'agent',
      startNs,
      endNs: session.endedAt != null ? maxNs(nsOf(session.endedAt), startNs) : lastNs,
      input: firstPrompt?.type === 'user_message' ? render(firstPrompt.content) : null,
      metadata: compact({
        agent: session.agent.name,
        agent_version: session.agent.version ?? null,
        cwd: session.cwd ?? null,
        git_repository: session.git?.repository ?? null,
        git_branch: session.git?.branch ?? null,
        git_commit: session.git?.commit ?? null,
        title: session.title ?? null,
      }),
    }),
  ];

  const threads = new Map<string, Thread>([[ROOT, { spanId: rootId, lastNs: startNs, pending: [] }]]);
  const threadOf = (e: AgentEvent, ns: bigint): Thread => {
    const id = e.parentId ?? ROOT;
    let t = threads.get(id);
    if (!t) threads.set(id, (t = { spanId: spanId('agent', id), lastNs: ns, pending: [] }));
    return t;
  };
  const event = (e: AgentEvent, ns: bigint, t: Thread, name: string, fields: Partial<SpanFields>) =>
    spans.push(
      span({
        spanId: spanId('event', e.id),
        parentId: t.spanId,
        name,
        type: 'EVENT',
        spanKind: 'function',
        startNs: ns,
        endNs: ns,
        ...fields,
      }),
    );

  session.events.forEach((e, index) => {
    const ns = times[index]!;
    const t = threadOf(e, ns);
    switch (e.type) {
      case 'user_message': {
        const text = render(e.content);
        t.pending.push({ role: 'user', content: text });
        event(e, ns, t, 'user message', { input: text });
        break;
      }
      case 'assistant_message': {
        const u = e.usage;
        const cacheRead = u?.cacheReadTokens ?? 0;
        const cacheCreation = u?.cacheCreationTokens ?? 0;
        // The whole prompt, as the price table expects it: Anthropic counts cache reads and writes apart.
        const prompt = u ? u.inputTokens + cacheRead + cacheCreation : null;
        const cost =
          u && options.costOf
            ? (options.costOf(e.model, {
                inputTokens: prompt!,
                outputTokens: u.outputTokens,
                cachedInputTokens: cacheRead,
              }) ?? null)
            : null;
        spans.push(
          span({
            spanId: spanId('generation', e.id),
            parentId: t.spanId,
            name: e.model,
            type: 'GENERATION',
            spanKind: 'llm',
            status: 'OK',
            startNs: minNs(t.lastNs, ns),
            endNs: ns,
            model: e.model,
            inputTokens: prompt,
            outputTokens: u ? u.outputTokens : null,
            cachedInputTokens: u ? cacheRead : null,
            tokens: u ? prompt! + u.outputTokens : null,
            cost,
            input: t.pending.length > 0 ? JSON.stringify(t.pending) : null,
            output: generationOutput(render(e.content), callsOf.get(e.id)),
            attributes: compact({
              'gen_ai.usage.input_tokens': prompt,
              'gen_ai.usage.output_tokens': u ? u.outputTokens : null,
              'gen_ai.usage.cache_read_input_tokens': u ? cacheRead : null,
              'gen_ai.usage.cache_creation_input_tokens': u ? cacheCreation : null,
              'gen_ai.usage.reasoning_tokens': u?.reasoningTokens ?? null,
              'gen_ai.response.finish_reason': e.stopReason ?? null,
            }),
          }),
        );
        t.pending = [];
        break;
      }
      case 'reasoning':
        event(e, ns, t, 'reasoning', { output: e.text === '' ? null : e.text });
        break;
      case 'tool_call': {
        const result = results.get(e.callId);
        const abandoned = (lastUserAt.get(e.parentId ?? ROOT) ?? -1) > index;
        if (!result && !ended && !abandoned) break; // its result may still come: written once it has
        const status: SpanStatus = !result ? 'UNSET' : result.isError ? 'ERROR' : 'OK';
        const output = result ? render(result.content) : null;
        spans.push(
          span({
            spanId: spanId('tool', e.callId),
            parentId: t.spanId,
            name: e.name,
            type: 'SPAN',
            spanKind: 'tool',
            status,
            statusMessage: status === 'ERROR' ? firstLine(output) : null,
            startNs: ns,
            endNs: result ? maxNs(nsOf(result.timestamp), ns) : ns,
            input: e.input === undefined ? null : typeof e.input === 'string' ? e.input : JSON.stringify(e.input),
            output,
            attributes: { 'gen_ai.tool.name': e.name, 'gen_ai.tool.call.id': e.callId },
          }),
        );
        break;
      }
      case 'tool_result':
        t.pending.push({ role: 'tool', tool_call_id: e.callId });
        if (!calls.has(e.callId))
          event(e, ns, t, 'tool result', { output: render(e.content), status: e.isError ? 'ERROR' : 'UNSET' });
        break;
      case 'subagent_start': {
        const end = ends.get(e.agentId);
        const abandoned = (lastUserAt.get(e.parentId ?? ROOT) ?? -1) > index;
        if (!end && !ended && !abandoned) break;
        const launcher = e.callId != null && calls.has(e.callId) ? spanId('tool', e.callId) : t.spanId;
        spans.push(
          span({
            spanId: spanId('agent', e.id),
            parentId: launcher,
            name: `subagent ${e.name ?? e.agentId}`,
            type: 'SPAN',
            spanKind: 'agent',
            startNs: ns,
            endNs: maxNs(end?.ns ?? lastOfThread.get(e.id) ?? ns, ns),
            input: e.prompt ?? null,
            output: end?.result ?? null,
            attributes: compact({ 'gen_ai.agent.id': e.agentId, 'gen_ai.agent.name': e.name ?? null }),
          }),
        );
        break;
      }
      case 'subagent_end':
        break;
      case 'system':
        event(e, ns, t, `system: ${e.kind}`, { output: e.text ?? null });
        break;
    }
    t.lastNs = ns;
  });
  return spans;
}

/**
 * Content as span text: plain text when it is all text (text blobs of the request included),
 * else JSON parts where each other blob is `{type, mediaType, sha256, bytes}` — the media reference
 * shape that opening a span turns back into base64 (core/media.ts). Null when there is none.
 */
export function renderContent(parts: readonly ContentPart[], blobTexts?: ReadonlyMap<string, string>): string | null {
  const shown = parts.map((p) =>
    p.type === 'blob' && blobTexts?.has(p.sha256) ? { type: 'text' as const, text: blobTexts.get(p.sha256)! } : p,
  );
  if (shown.length === 0) return null;
  if (shown.every((p) => p.type === 'text')) return shown.map((p) => (p as { text: string }).text).join('\n\n');
  return JSON.stringify(
    shown.map((p) =>
      p.type === 'text'
        ? { type: 'text', text: p.text }
        : compact({ type: 'blob', mediaType: p.mediaType, sha256: p.sha256, bytes: p.bytes, name: p.name ?? null }),
    ),
  );
}

/** What a generation answered: its text, with the tool calls it made when it made some. */
function generationOutput(text: string | null, calls: { id: string; name: string }[] | undefined): string | null {
  if (!calls) return text;
  return JSON.stringify({ role: 'assistant', content: text, tool_calls: calls });
}

/** Unix nanoseconds of an ISO 8601 date-time (validated by the contract). */
export function nsOf(iso: string): bigint {
  return BigInt(Date.parse(iso)) * 1_000_000n;
}

/** The last millisecond a span can start or end at: span times are signed 64-bit nanoseconds. */
const LAST_MS = Number(MAX_INT64 / 1_000_000n);
export const STORABLE_TIMES = `after ${new Date(0).toISOString()} and up to ${new Date(LAST_MS).toISOString()}`;

/**
 * The first time of a session that no span could hold (a date-time the contract accepts, like
 * 9999-12-31, is past what 64-bit nanoseconds reach; the epoch and before is what OTLP calls a
 * missing time), or null. Such a session is refused before it is acknowledged: stored, its rows
 * would fail every commit of the segments they are in.
 */
export function unstorableTime(session: AgentSession): { where: string; value: string } | null {
  const fits = (iso: string) => {
    const ms = Date.parse(iso);
    return ms > 0 && ms <= LAST_MS;
  };
  if (!fits(session.startedAt)) return { where: 'startedAt', value: session.startedAt };
  if (session.endedAt != null && !fits(session.endedAt)) return { where: 'endedAt', value: session.endedAt };
  for (const [i, e] of session.events.entries())
    if (!fits(e.timestamp)) return { where: `events[${i}].timestamp`, value: e.timestamp };
  return null;
}

function maxNs(a: bigint, b: bigint): bigint {
  return a > b ? a : b;
}

function minNs(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}

function firstLine(text: string | null): string | null {
  if (text === null) return null;
  const line = text.split('\n', 1)[0]!;
  return cutText(line, 500);
}

/** The entries whose value is not null. */
function compact(o: Record<string, JsonValue>): Record<string, JsonValue> {
  const out: Record<string, JsonValue> = {};
  for (const [k, v] of Object.entries(o)) if (v !== null) out[k] = v;
  return out;
}
