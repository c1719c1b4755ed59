/**
 * A worker run's thread, live: each turn's prompt, then what happened as it arrives — the worker's
 * steps, the agent's lines, its messages, tool calls (collapsible, with their results) — and how
 * the turn ended: status, cost, the checkpoint commit. Events are pushed by the server
 * (`GET /v1/workers/runs/{id}/stream`, server-sent events read through fetch, so the credentials go
 * in a header and never in the URL); a dropped stream reconnects from the last event seen. Opened
 * after the run ended, the stream replays the whole thread and stays open for a session's next turn.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { loadCredentials, type WorkerRun, type WorkerTurn } from '../api.js';
import { int, time, usd } from '../format.js';
import { href, type Location } from '../router.js';
import { runTitle, WorkerStatus } from './workerRuns.js';

interface ThreadEvent {
  cursor: number;
  turn_index: number;
  attempt: number;
  seq: number;
  at: string;
  kind: 'stdout' | 'stderr' | 'agent' | 'step';
  text: string | null;
  level: 'info' | 'error' | null;
  event: AgentEventView | null;
}

/** An agent event as the run's stream carries it, read loosely: agents differ in what they send. */
interface AgentEventView {
  type?: string;
  kind?: string;
  callId?: unknown;
  content?: unknown;
  model?: string;
  usage?: { inputTokens: number; outputTokens: number };
  text?: string;
  name?: string;
  input?: unknown;
  isError?: boolean;
}

type Link = 'connecting' | 'live' | 'retrying' | 'refused';

/** Reads the run's stream until `stop`; calls back on each `run` and `events` message. */
async function follow(
  runId: string,
  after: () => number,
  on: { run(r: WorkerRun): void; events(e: ThreadEvent[]): void; link(l: Link, why?: string): void },
  stop: AbortSignal,
): Promise<void> {
  while (!stop.aborted) {
    const c = loadCredentials();
    try {
      const res = await fetch(`/v1/workers/runs/${encodeURIComponent(runId)}/stream?after=${after()}`, {
        headers: c ? { Authorization: `Bearer ${c.token}`, 'X-Service-App-Id': c.appId } : {},
        signal: stop,
      });
      if (!res.ok) {
        const body = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
        on.link('refused', body?.error?.message ?? `HTTP ${res.status}`);
        return;
      }
      on.link('live');
      const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const name = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (name === 'run' && data) on.run(JSON.parse(data) as WorkerRun);
          if (name === 'events' && data) on.events(JSON.parse(data) as ThreadEvent[]);
        }
      }
    } catch {
      if (stop.aborted) return;
    }
    on.link('retrying');
    await new Promise((r) => setTimeout(r, 1000));
  }
}

export function WorkerRunPage({ params }: { loc: Location; params: Record<string, string> }) {
  const id = params.runId!;
  const [run, setRun] = useState<WorkerRun | null>(null);
  const [events, setEvents] = useState<ThreadEvent[]>([]);
  const [link, setLink] = useState<{ state: Link; why?: string }>({ state: 'connecting' });
  useEffect(() => {
    setRun(null);
    setEvents([]);
    let last = 0;
    const stop = new AbortController();
    void follow(
      id,
      () => last,
      {
        run: setRun,
        events: (fresh) => {
          const kept = fresh.filter((e) => e.cursor > last);
          if (kept.length === 0) return;
          last = kept[kept.length - 1]!.cursor;
          setEvents((old) => [...old, ...kept]);
        },
        link: (state, why) => setLink({ state, ...(why ? { why } : {}) }),
      },
      stop.signal,
    );
    return () => stop.abort();
  }, [id]);

  if (link.state === 'refused')
    return (
      <div class="page">
        <p class="error" role="alert">
          {link.why}
        </p>
      </div>
    );
  if (!run)
    return (
      <div class="page">
        <p class="loading">Connecting…</p>
      </div>
    );
  const turns = run.turns ?? [run.latest_turn];
  const inFlight = run.latest_turn.status === 'queued' || run.latest_turn.status === 'running';
  return (
    <div class="page worker-run">
      <p class="back">
        <a href={href('/workers')}>← Worker runs</a>
      </p>
      <header class="page-head">
        <h1>{runTitle(run)}</h1>
        <WorkerStatus status={run.status} />
        <span class={`status link-${link.state}`} data-link={link.state} title="The connection to the server">
          {link.state === 'live' ? (inFlight ? 'live' : 'up to date') : link.state}
        </span>
      </header>
      <p class="run-facts">
        {run.kind === 'session' ? 'Session' : 'One-shot run'} · agent <b>{run.profile}</b> ·{' '}
        <span class="mono">{run.repository}</span> from <span class="mono">{run.base_branch}</span> to{' '}
        <span class="mono">{run.work_branch}</span> · {int(run.turn_count)} turn{run.turn_count === 1 ? '' : 's'} · cost{' '}
        <b class="run-cost">{usd(run.cost_usd)}</b>
        {run.head_commit ? (
          <>
            {' '}
            · at <span class="mono run-head">{run.head_commit.slice(0, 12)}</span>
          </>
        ) : null}{' '}
        · <a href={href(`/traces/${run.trace_id}`)}>trace</a>
      </p>
      {turns.map((turn) => (
        <Turn turn={turn} events={events.filter((e) => e.turn_index === turn.turn_index)} />
      ))}
    </div>
  );
}

function Turn({ turn, events }: { turn: WorkerTurn; events: ThreadEvent[] }) {
  const attempts = useMemo(() => [...new Set(events.map((e) => e.attempt))].sort((a, b) => a - b), [events]);
  const current = attempts[attempts.length - 1];
  return (
    <section
      class="turn-card"
      data-turn={turn.turn_index}
      data-status={turn.status}
      style="border:1px solid #e3e6ea;border-radius:8px;padding:8px 12px;margin:10px 0"
    >
      <header style="display:flex;gap:8px;align-items:center;flex-wrap:wrap">
        <b>Turn {turn.turn_index}</b>
        <WorkerStatus status={turn.status} />
        {turn.attempt > 1 ? <span class="label">attempt {turn.attempt}</span> : null}
        {turn.worker ? <span class="when">on {turn.worker}</span> : null}
        <span class="when">{time(turn.created_at)}</span>
      </header>
      <div class="chat">
        <div class="bubble user">
          <p style="white-space:pre-wrap">{turn.prompt}</p>
        </div>
      </div>
      {attempts
        .filter((a) => a !== current)
        .map((a) => (
          <details class="earlier-attempt">
            <summary>Attempt {a}: ended without a report (its worker stopped or lost its lease)</summary>
            <Events events={events.filter((e) => e.attempt === a)} />
          </details>
        ))}
      <Events events={events.filter((e) => e.attempt === current)} />
      <TurnEnd turn={turn} />
    </section>
  );
}

function TurnEnd({ turn }: { turn: WorkerTurn }) {
  if (turn.status === 'queued') return <p class="when turn-end">Waiting for a worker…</p>;
  if (turn.status === 'running') return <p class="when turn-end">{turn.cancel_requested ? 'Stopping…' : 'Running…'}</p>;
  return (
    <p class={`turn-end end-${turn.status}`}>
      <WorkerStatus status={turn.status} />
      {turn.reason && turn.reason !== 'exit' ? ` (${turn.reason})` : ''}
      {turn.error ? <span class="error"> {turn.error}</span> : null} · cost{' '}
      <b class="turn-cost">{usd(turn.cost_usd)}</b> · {int(turn.input_tokens)} in / {int(turn.output_tokens)} out tokens
      · {int(turn.tool_calls)} tool call{turn.tool_calls === 1 ? '' : 's'} ·{' '}
      {turn.commit_sha ? (
        <>
          checkpoint <span class="mono turn-commit">{turn.commit_sha.slice(0, 12)}</span>
        </>
      ) : (
        'no checkpoint (nothing changed)'
      )}
    </p>
  );
}

function Events({ events }: { events: ThreadEvent[] }) {
  // Tool results are shown inside their call.
  const results = new Map<string, ThreadEvent>();
  for (const e of events)
    if (e.kind === 'agent' && e.event?.type === 'tool_result') results.set(String(e.event.callId), e);
  const calls = new Set(
    events.filter((e) => e.kind === 'agent' && e.event?.type === 'tool_call').map((e) => String(e.event!.callId)),
  );
  return (
    <ol class="thread" style="list-style:none;padding:0;margin:6px 0">
      {events.map((e) => {
        if (e.kind === 'agent' && e.event?.type === 'tool_result' && calls.has(String(e.event.callId))) return null;
        return (
          <li class="thread-event" data-kind={e.kind} data-cursor={e.cursor} key={e.cursor}>
            <EventView
              e={e}
              result={
                e.kind === 'agent' && e.event?.type === 'tool_call' ? results.get(String(e.event.callId)) : undefined
              }
            />
          </li>
        );
      })}
    </ol>
  );
}

const textOf = (content: unknown): string =>
  Array.isArray(content)
    ? content
        .map((c: { type?: string; text?: string } | null) => (c?.type === 'text' ? c.text : `[${c?.type ?? 'part'}]`))
        .join('\n')
    : '';

function Line({ who, children, tone }: { who: string; children: ComponentChildren; tone?: 'error' | 'muted' }) {
  return (
    <div style={`display:flex;gap:8px;${tone === 'error' ? 'color:#b42318' : tone === 'muted' ? 'color:#6b7280' : ''}`}>
      <span class="kind" style="min-width:64px">
        {who}
      </span>
      <span class="mono" style="white-space:pre-wrap;word-break:break-word">
        {children}
      </span>
    </div>
  );
}

function EventView({ e, result }: { e: ThreadEvent; result: ThreadEvent | undefined }) {
  if (e.kind === 'step')
    return (
      <Line who="worker" tone={e.level === 'error' ? 'error' : 'muted'}>
        {e.text}
      </Line>
    );
  if (e.kind === 'stdout') return <Line who="out">{e.text}</Line>;
  if (e.kind === 'stderr')
    return (
      <Line who="err" tone="error">
        {e.text}
      </Line>
    );
  const ev: AgentEventView = e.event ?? {};
  switch (ev.type) {
    case 'assistant_message':
      return (
        <div class="chat">
          <div class="bubble assistant">
            <p style="white-space:pre-wrap">{textOf(ev.content)}</p>
            <span class="when">
              {ev.model}
              {ev.usage ? ` · ${int(ev.usage.inputTokens)} in / ${int(ev.usage.outputTokens)} out` : ''}
            </span>
          </div>
        </div>
      );
    case 'reasoning':
      return (
        <details class="reasoning">
          <summary>thinking</summary>
          <p style="white-space:pre-wrap">{ev.text}</p>
        </details>
      );
    case 'tool_call':
      return (
        <details class="tool-call" data-tool={ev.name} style="border-left:3px solid #d0d7de;padding-left:8px">
          <summary>
            tool <b>{ev.name}</b>
            {result ? (result.event?.isError ? ' · failed' : ' · done') : ' · running'}
          </summary>
          <pre class="tool-input">{JSON.stringify(ev.input ?? null, null, 2)}</pre>
          {result ? <pre class="tool-result">{textOf(result.event?.content)}</pre> : null}
        </details>
      );
    case 'tool_result':
      return <Line who="result">{textOf(ev.content)}</Line>;
    case 'user_message':
      return <Line who="user">{textOf(ev.content)}</Line>;
    default:
      return (
        <Line who={String(ev.type ?? 'event')} tone="muted">
          {ev.text ?? ev.kind ?? ''}
        </Line>
      );
  }
}
