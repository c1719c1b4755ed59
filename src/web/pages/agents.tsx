/**
 * Coding-agent sessions (`POST /v1/agents/sync` stores each as a trace whose root span carries
 * `metadata.agent` and whose spans have the agent as `service_name`): the sessions of the window,
 * newest first, with the models each used and their tokens and cost, and the window's tokens and
 * cost by agent and model. A row opens the session's trace; its session id opens the session view.
 * `?agent=` narrows to one agent. The figures by model come from `GET /v1/metrics` (cloud servers,
 * where agent sync lives too); agents are found the same way, among the root spans of the window.
 * Sessions are synced long after they ran, so "all time" is offered: the API's windows end at 90
 * days, so it shows the 90 days up to the newest session (`?until=`), and steps back to earlier ones.
 * A window without sessions lands there too.
 */
import { get, query, type MetricsAnswer, type MetricsRow, type Page, type TraceSummary } from '../api.js';
import { written } from '../components/completion.js';
import { Pager, Table, WindowSelect, type Column } from '../components/table.js';
import { int, ms, time, usd, windowFrom } from '../format.js';
import { useLoad } from '../hooks.js';
import { href, navigate, type Location } from '../router.js';

/** At most 50 values in a filter's `in` list (spec: Limits), so at most 50 sessions a page. */
const LIMIT = 25;
const AGENT_TAG = 'agent:';
const DAY_MS = 86_400_000;
/** The API's longest window. */
const SPAN_MS = 90 * DAY_MS;
/** How far back "all time" looks for a session: windows of 90 days, about ten years. */
const LOOK_BACK = 40;

/** One instant after the start of the newest session that started before `beforeMs`, or null. */
async function newestSessionBefore(beforeMs: number, filter: string): Promise<number | null> {
  for (let i = 0; i < LOOK_BACK; i++) {
    const to = beforeMs - i * SPAN_MS;
    const page = await get<Page<TraceSummary>>(
      `/v1/traces${query({ filter, start_date: new Date(to - SPAN_MS).toISOString(), end_date: new Date(to).toISOString(), sort_by: 'start', sort_order: 'desc', limit: 1 })}`,
    );
    if (page.data[0]) return Date.parse(page.data[0].start) + 1;
  }
  return null;
}

interface ByModel {
  key: string[];
  count: number;
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  cost: number;
}

/** Sums a metrics answer's rows over its buckets, per combination of the grouping dimensions. */
function totals(answer: MetricsAnswer): ByModel[] {
  const out = new Map<string, ByModel>();
  const n = (r: MetricsRow, m: string) => Number(r[m] ?? 0);
  for (const r of answer.data) {
    const key = answer.meta.group_by.map((d) => String(r[d] ?? ''));
    const id = JSON.stringify(key);
    const t = out.get(id) ?? { key, count: 0, input_tokens: 0, output_tokens: 0, total_tokens: 0, cost: 0 };
    t.count += n(r, 'count');
    t.input_tokens += n(r, 'input_tokens');
    t.output_tokens += n(r, 'output_tokens');
    t.total_tokens += n(r, 'total_tokens');
    t.cost += n(r, 'cost');
    out.set(id, t);
  }
  return [...out.values()].sort((a, b) => b.cost - a.cost || b.total_tokens - a.total_tokens);
}

function metrics(from: string, to: string | undefined, groupBy: string, filter: string): Promise<MetricsAnswer> {
  // Weekly buckets: a 90-day window is 14 rows a group, and the page adds them up anyway.
  return get<MetricsAnswer>(
    `/v1/metrics${query({ view: 'spans', from, to, bucket: 'week', measures: 'count,input_tokens,output_tokens,total_tokens,cost', group_by: groupBy, group_limit: 100, filter })}`,
  );
}

const agentOf = (t: TraceSummary) => t.tags.find((tag) => tag.startsWith(AGENT_TAG))?.slice(AGENT_TAG.length) ?? '';

function columns(models: Map<string, ByModel[]>): Column<TraceSummary>[] {
  return [
    { key: 'start', title: 'Started', render: (t) => time(t.start) },
    { key: 'agent', title: 'Agent', render: (t) => <span class="kind k-agent">{agentOf(t)}</span> },
    { key: 'title', title: 'Session', render: (t) => <span class="name">{t.name}</span> },
    {
      key: 'session',
      title: 'Session id',
      render: (t) =>
        t.session_id ? (
          <a
            class="mono"
            href={href(`/sessions/${encodeURIComponent(t.session_id)}`)}
            onClick={(e) => e.stopPropagation()}
            title="Open the session view"
          >
            {t.session_id.slice(0, 8)}
          </a>
        ) : null,
    },
    { key: 'duration', title: 'Duration', numeric: true, render: (t) => ms(t.latency_ms) },
    { key: 'spans', title: 'Spans', numeric: true, render: (t) => int(t.span_count) },
    {
      key: 'models',
      title: 'Models (tokens, cost)',
      render: (t) => (
        <ul class="models">
          {(models.get(t.session_id ?? '') ?? []).map((m) => (
            <li key={m.key[1]}>
              <span class="mono">{m.key[1]}</span> {int(m.total_tokens)} · {usd(m.cost)}
            </li>
          ))}
        </ul>
      ),
    },
    { key: 'tokens', title: 'Tokens', numeric: true, render: (t) => int(t.tokens) },
    { key: 'cost', title: 'Cost', numeric: true, render: (t) => usd(t.cost) },
    { key: 'status', title: 'Status', render: (t) => <span class={`status s-${t.status}`}>{t.status}</span> },
  ];
}

export function AgentsPage({ loc, features }: { loc: Location; features: Record<string, boolean> }) {
  const state = {
    agent: loc.query.get('agent') ?? '',
    window: loc.query.get('window') ?? '7d',
    offset: Number(loc.query.get('offset') ?? 0),
    until: loc.query.get('until') ?? '',
  };
  const set = (patch: Partial<typeof state>) => navigate('/agents', { ...state, offset: 0, until: '', ...patch });
  const allTime = state.window === 'all';
  const untilMs = allTime && state.until ? Date.parse(state.until) : null;
  const from = untilMs !== null ? new Date(untilMs - SPAN_MS).toISOString() : windowFrom(state.window);
  const to = untilMs !== null ? state.until : undefined;
  const withMetrics = features.metrics === true;
  const filter = state.agent ? `metadata.agent = ${written(state.agent)}` : 'metadata.agent exists';
  // "All time" or an empty window: the 90 days up to the newest session before `beforeMs`.
  // The lookup may take a while: if the reader went elsewhere meanwhile, it does not take them back.
  const landBefore = (beforeMs: number) => {
    const asked = location.hash;
    return newestSessionBefore(beforeMs, filter).then((until) => {
      if (until !== null && location.hash === asked)
        navigate('/agents', { ...state, window: 'all', offset: 0, until: new Date(until).toISOString() }, true);
      return until;
    });
  };
  const sessions = useLoad(
    () =>
      allTime && untilMs === null
        ? landBefore(Date.now()).then(() => ({ data: [], pagination: { total: 0, limit: LIMIT, offset: 0 } }))
        : get<Page<TraceSummary>>(
            `/v1/traces${query({ filter, start_date: from, end_date: to, sort_by: 'start', sort_order: 'desc', limit: LIMIT, offset: state.offset })}`,
          ),
    [loc.query.toString()],
  );
  const emptyWindow = !allTime && state.offset === 0 && sessions.data?.pagination.total === 0;
  useLoad(() => (emptyWindow ? landBefore(Date.parse(from)) : Promise.resolve(null)), [emptyWindow]);
  const earlier = useLoad(
    () => (untilMs !== null ? newestSessionBefore(untilMs - SPAN_MS, filter) : Promise.resolve(null)),
    [untilMs, filter],
  );
  const agents = useLoad(
    () =>
      withMetrics
        ? get<MetricsAnswer>(
            `/v1/metrics${query({ view: 'spans', from, to, measures: 'count', group_by: 'service_name', group_limit: 100, filter: 'metadata.agent exists and span_kind = agent' })}`,
          ).then((a) => [...new Set(a.data.map((r) => String(r.service_name ?? '')))].filter(Boolean).sort())
        : Promise.resolve([]),
    [state.window, state.until, withMetrics],
  );
  const shown = state.agent ? [state.agent] : (agents.data ?? []);
  const byAgentModel = useLoad(
    () =>
      withMetrics && shown.length
        ? metrics(
            from,
            to,
            'service_name,model',
            `type = GENERATION and service_name in (${shown.map(written).join(', ')})`,
          ).then(totals)
        : Promise.resolve([]),
    [state.window, state.until, withMetrics, shown.join('\n')],
  );
  const ids = sessions.data?.data.map((t) => t.id) ?? [];
  const bySession = useLoad(
    () =>
      withMetrics && ids.length
        ? metrics(
            from,
            to,
            'session_id,model',
            `type = GENERATION and trace_id in (${ids.map(written).join(', ')})`,
          ).then(totals)
        : Promise.resolve([]),
    [withMetrics, ids.join(',')],
  );
  const models = new Map<string, ByModel[]>();
  for (const m of bySession.data ?? []) models.set(m.key[0]!, [...(models.get(m.key[0]!) ?? []), m]);
  return (
    <div class="page agents">
      <header class="page-head">
        <h1>Agent sessions</h1>
        <span class="controls">
          <label>
            Agent{' '}
            <select
              value={state.agent}
              onChange={(e) => set({ agent: (e.target as HTMLSelectElement).value })}
              aria-label="Agent"
            >
              <option value="">all agents</option>
              {[...new Set([...(agents.data ?? []), ...(state.agent ? [state.agent] : [])])].map((a) => (
                <option key={a} value={a}>
                  {a}
                </option>
              ))}
            </select>
          </label>{' '}
          <WindowSelect value={state.window} onChange={(w) => set({ window: w })} allTime />
        </span>
      </header>
      {untilMs !== null ? (
        <p class="hint span-note">
          All time, 90 days at a time (the API's longest window): {time(from)} – {time(state.until)}.{' '}
          <button
            type="button"
            disabled={!earlier.data}
            onClick={() =>
              earlier.data && navigate('/agents', { ...state, offset: 0, until: new Date(earlier.data).toISOString() })
            }
          >
            {earlier.loading
              ? 'Looking for earlier sessions…'
              : earlier.data
                ? '← Earlier sessions'
                : 'Nothing earlier'}
          </button>
        </p>
      ) : null}
      {byAgentModel.data?.length ? (
        <table class="grid small by-model" aria-label="Tokens and cost by model">
          <thead>
            <tr>
              <th>Agent</th>
              <th>Model</th>
              <th class="num">Generations</th>
              <th class="num">Input tokens</th>
              <th class="num">Output tokens</th>
              <th class="num">Tokens</th>
              <th class="num">Cost</th>
            </tr>
          </thead>
          <tbody>
            {byAgentModel.data.map((m) => (
              <tr key={m.key.join('\n')} onClick={() => set({ agent: m.key[0]! })}>
                <td>{m.key[0]}</td>
                <td class="mono">{m.key[1]}</td>
                <td class="num">{int(m.count)}</td>
                <td class="num">{int(m.input_tokens)}</td>
                <td class="num">{int(m.output_tokens)}</td>
                <td class="num">{int(m.total_tokens)}</td>
                <td class="num">{usd(m.cost)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {sessions.error ? (
        <p class="error" role="alert">
          {sessions.error.message}
        </p>
      ) : null}
      {byAgentModel.error || bySession.error ? (
        <p class="error">By model: {(byAgentModel.error ?? bySession.error)!.message}</p>
      ) : null}
      {sessions.data ? (
        <>
          <Table
            label="Agent sessions"
            columns={columns(models)}
            rows={sessions.data.data}
            rowKey={(t) => t.id}
            onOpen={(t) => navigate(`/traces/${t.id}`)}
            empty="No agent sessions in this window (tracelake agents sync sends them)."
          />
          <Pager
            total={sessions.data.pagination.total}
            limit={LIMIT}
            offset={state.offset}
            onPage={(offset) => set({ offset })}
          />
        </>
      ) : sessions.loading ? (
        <p class="loading">Loading…</p>
      ) : null}
    </div>
  );
}
