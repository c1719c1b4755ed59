/**
 * A worker run as a coding-agent session (core/agents/session.ts), so that it is traced like any
 * synced agent: one trace per run, the session id being the run's id, each ended turn adding its
 * prompt, the agent's structured events of its last attempt, the worker's own steps and how it
 * ended. Plain output lines stay out of the trace (the run's events keep them for the thread page).
 *
 * Event ids are the stored rows' own (`t<turn>.a<attempt>.<seq>`), never the agent's: an agent may
 * reuse ids from turn to turn, and the session contract wants them unique. Tool call ids and
 * sub-agent parents are renamed within their turn alike, so a result finds its call and a nested
 * event its sub-agent only inside the same turn. Pure.
 */
import type { CostFn } from '../otlp/fields.js';
import type { AgentEvent, AgentSession } from '../agents/session.js';
import { usageByModel } from '../agents/usage.js';
import { roundUsd } from '../cost/money.js';
import { cutText } from '../text.js';
import type { TurnStatus } from './turns.js';

export const EVENT_KINDS = ['stdout', 'stderr', 'agent', 'step'] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

/** One stored event of a run, as the store hands it over. */
export interface StoredEvent {
  turnIndex: number;
  attempt: number;
  seq: number;
  /** When the worker saw it (ISO 8601). */
  at: string;
  kind: EventKind;
  /** Output lines and steps. */
  text: string | null;
  /** Steps: `info` or `error`. */
  level: 'info' | 'error' | null;
  /** Agent events: the event as the agent printed it (checked against the session contract when stored). */
  event: Record<string, unknown> | null;
}

export interface TracedRun {
  id: string;
  /** The agent's name in traces (the spans' service_name). */
  agent: string;
  title: string | null;
  createdAt: string;
  /** When the run ended (a closed session, an ended one-shot run); null while it may take turns. */
  endedAt: string | null;
  repository: string;
  workBranch: string;
  headCommit: string | null;
  createdBy: string | null;
}

export interface TracedTurn {
  index: number;
  prompt: string;
  createdAt: string;
  status: TurnStatus;
  /** The number of the turn's last claim (its events carry it); 0 for a turn never claimed. */
  attempt: number;
  finishedAt: string | null;
  reason: string | null;
  error: string | null;
  commitSha: string | null;
}

const TITLE_MAX = 1024;

/** A run's events by turn and attempt (`attemptKey`), in the order given. */
type EventsByAttempt = ReadonlyMap<string, readonly StoredEvent[]>;

const attemptKey = (turnIndex: number, attempt: number) => `${turnIndex}.${attempt}`;

function byAttempt(events: readonly StoredEvent[]): EventsByAttempt {
  const out = new Map<string, StoredEvent[]>();
  for (const e of events) {
    const key = attemptKey(e.turnIndex, e.attempt);
    const list = out.get(key);
    if (list) list.push(e);
    else out.set(key, [e]);
  }
  return out;
}

/** Ended turns only: a running turn's events are not final, and spans never change once stored. */
export function sessionOfRun(
  run: TracedRun,
  turns: readonly TracedTurn[],
  events: readonly StoredEvent[],
): AgentSession {
  return sessionOf(run, turns, byAttempt(events));
}

function sessionOf(run: TracedRun, turns: readonly TracedTurn[], attempts: EventsByAttempt): AgentSession {
  const out: AgentEvent[] = [];
  const ended = [...turns].filter((t) => t.finishedAt !== null).sort((a, b) => a.index - b.index);
  for (const turn of ended) {
    out.push({
      id: `t${turn.index}.prompt`,
      parentId: null,
      timestamp: turn.createdAt,
      type: 'user_message',
      content: [{ type: 'text', text: turn.prompt }],
    });
    if (turn.attempt > 1) {
      const earlier = turn.attempt - 1;
      out.push(
        system(
          `t${turn.index}.attempts`,
          turn.createdAt,
          'worker',
          `${earlier} earlier attempt${earlier > 1 ? 's' : ''} of this turn ended without a report (a lease expired, or a stopping worker handed it back); only the last one is traced`,
        ),
      );
    }
    const own = [...(attempts.get(attemptKey(turn.index, turn.attempt)) ?? [])].sort((a, b) => a.seq - b.seq);
    out.push(...turnEvents(turn.index, own));
    out.push(
      system(`t${turn.index}.end`, turn.finishedAt!, turn.status === 'succeeded' ? 'worker' : 'error', endText(turn)),
    );
  }
  const first = ended[0]?.prompt ?? turns[0]?.prompt ?? '';
  return {
    id: run.id,
    agent: { name: run.agent, version: null },
    startedAt: run.createdAt,
    endedAt: run.endedAt,
    title: cutText(run.title ?? first.split('\n')[0]!, TITLE_MAX) || null,
    cwd: null,
    git: { repository: run.repository, branch: run.workBranch, commit: run.headCommit },
    userId: run.createdBy,
    events: out,
  };
}

function endText(turn: TracedTurn): string {
  const how = turn.reason && turn.reason !== 'exit' ? ` (${turn.reason})` : '';
  const error = turn.error ? `: ${turn.error}` : '';
  const checkpoint = turn.commitSha ? `; checkpoint ${turn.commitSha.slice(0, 12)}` : '';
  return `turn ${turn.index} ${turn.status}${how}${error}${checkpoint}`;
}

function system(id: string, timestamp: string, kind: string, text: string): AgentEvent {
  return { id, parentId: null, timestamp, type: 'system', kind, text };
}

/** One attempt's stored events → session events, with ids, call ids and parents renamed within the turn. */
function turnEvents(turnIndex: number, events: readonly StoredEvent[]): AgentEvent[] {
  const out: AgentEvent[] = [];
  /** The agent's sub-agent start ids → their renamed ids (only earlier ones can be parents). */
  const subagents = new Map<string, string>();
  const call = (id: unknown) => `t${turnIndex}.${String(id)}`;
  for (const e of events) {
    const id = `t${turnIndex}.a${e.attempt}.${e.seq}`;
    if (e.kind === 'step') {
      out.push(system(id, e.at, e.level === 'error' ? 'error' : 'worker', e.text ?? ''));
      continue;
    }
    if (e.kind !== 'agent' || e.event === null) continue;
    const original = e.event;
    const parent = typeof original.parentId === 'string' ? (subagents.get(original.parentId) ?? null) : null;
    const timestamp =
      typeof original.timestamp === 'string' && !Number.isNaN(Date.parse(original.timestamp))
        ? original.timestamp
        : e.at;
    const renamed: Record<string, unknown> = { ...original, id, parentId: parent, timestamp };
    if (typeof original.callId === 'string') renamed.callId = call(original.callId);
    if (original.type === 'subagent_start' && typeof original.id === 'string') subagents.set(original.id, id);
    out.push(renamed as unknown as AgentEvent);
  }
  return out;
}

export interface TurnFigures {
  costUsd: number;
  inputTokens: number;
  outputTokens: number;
  toolCalls: number;
}

/**
 * What one attempt of a turn used: tokens (input counts cache reads and writes, as the spans do),
 * tool calls, and the cost the price table gives (the traced spans' cost, so the run and its trace agree).
 */
export function turnFigures(events: readonly StoredEvent[], costOf?: CostFn): TurnFigures {
  const agentEvents = events
    .filter((e) => e.kind === 'agent' && e.event !== null)
    .map((e) => e.event as unknown as AgentEvent);
  const usage = usageByModel([{ events: agentEvents } as AgentSession], costOf);
  const figures: TurnFigures = {
    costUsd: 0,
    inputTokens: 0,
    outputTokens: 0,
    toolCalls: agentEvents.filter((e) => e.type === 'tool_call').length,
  };
  for (const m of Object.values(usage)) {
    figures.costUsd = roundUsd(figures.costUsd + m.cost);
    figures.inputTokens += m.inputTokens + m.cacheReadTokens + m.cacheCreationTokens;
    figures.outputTokens += m.outputTokens;
  }
  return figures;
}

/** A turn as the store hands it over for tracing: whether its figures are recorded already. */
export type FiguredTurn = TracedTurn & { figured: boolean };

/** What tracing a run makes: its session (null while nothing of it is traced) and the figures of ended turns that have none yet. */
export interface RunTrace {
  session: AgentSession | null;
  figures: (TurnFigures & { turnIndex: number })[];
}

/** A run's session and the figures of its ended, not yet figured turns (each from its last attempt's events). */
export function runTrace(
  run: TracedRun,
  turns: readonly FiguredTurn[],
  events: readonly StoredEvent[],
  costOf?: CostFn,
): RunTrace {
  const attempts = byAttempt(events);
  const session = sessionOf(run, turns, attempts);
  const figures = turns
    .filter((t) => t.finishedAt !== null && !t.figured)
    .map((t) => ({ turnIndex: t.index, ...turnFigures(attempts.get(attemptKey(t.index, t.attempt)) ?? [], costOf) }));
  return { session: session.events.length > 0 ? session : null, figures };
}
