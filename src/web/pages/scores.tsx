/** Scores: the latest scores, and per name their count, average, minimum and maximum. */
import { get, query, type Aggregation, type Page, type Score } from '../api.js';
import { Pager, Table, WindowSelect, type Column } from '../components/table.js';
import { int, time, windowFrom } from '../format.js';
import { useLoad } from '../hooks.js';
import { navigate, type Location } from '../router.js';

const LIMIT = 50;

const COLUMNS: Column<Score>[] = [
  { key: 'created', title: 'Created', render: (s) => time(s.created_at) },
  { key: 'name', title: 'Name', render: (s) => <span class="name">{s.name}</span> },
  { key: 'value', title: 'Value', numeric: true, render: (s) => s.label ?? String(s.score) },
  { key: 'source', title: 'Source', render: (s) => s.source },
  { key: 'resource', title: 'On', render: (s) => `${s.resource_type} ${s.resource_id.slice(0, 12)}` },
  { key: 'user', title: 'By', render: (s) => s.user_id ?? '' },
  { key: 'reason', title: 'Reason', render: (s) => s.reason ?? '' },
];

export function ScoresPage({ loc, features }: { loc: Location; features: Record<string, boolean> }) {
  const state = {
    window: loc.query.get('window') ?? '7d',
    name: loc.query.get('name') ?? '',
    offset: Number(loc.query.get('offset') ?? 0),
  };
  const set = (patch: Partial<typeof state>) => navigate('/scores', { ...state, offset: 0, ...patch });
  const from = windowFrom(state.window);
  const page = useLoad(
    () =>
      get<Page<Score>>(
        `/v1/scores${query({ start_date: from, name: state.name, limit: LIMIT, offset: state.offset })}`,
      ),
    [loc.query.toString()],
  );
  const aggregations = useLoad(
    () =>
      features.score_aggregations
        ? get<{ data: Aggregation[] }>(`/v1/scores/aggregations${query({ start_date: from })}`).then((r) => r.data)
        : Promise.resolve([]),
    [state.window, features.score_aggregations],
  );
  return (
    <div class="page">
      <header class="page-head">
        <h1>Scores</h1>
        <WindowSelect value={state.window} onChange={(w) => set({ window: w })} />
      </header>
      {aggregations.data?.length ? (
        <table class="grid aggregations" aria-label="Score aggregations">
          <thead>
            <tr>
              <th>Name</th>
              <th class="num">Count</th>
              <th class="num">Average</th>
              <th class="num">Min</th>
              <th class="num">Max</th>
            </tr>
          </thead>
          <tbody>
            {aggregations.data.map((a) => (
              <tr
                key={a.name}
                class={a.name === state.name ? 'selected' : ''}
                onClick={() => set({ name: a.name === state.name ? '' : a.name })}
              >
                <td>{a.name}</td>
                <td class="num">{int(a.count)}</td>
                <td class="num">{a.avg_score.toFixed(3)}</td>
                <td class="num">{a.min_score}</td>
                <td class="num">{a.max_score}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {page.error ? (
        <p class="error" role="alert">
          {page.error.message}
        </p>
      ) : null}
      {page.data ? (
        <>
          <Table
            label="Scores"
            columns={COLUMNS}
            rows={page.data.data}
            rowKey={(s) => s.id}
            onOpen={(s) => s.trace_id && navigate(`/traces/${s.trace_id}`)}
          />
          <Pager
            total={page.data.pagination.total}
            limit={LIMIT}
            offset={state.offset}
            onPage={(offset) => set({ offset })}
          />
        </>
      ) : null}
    </div>
  );
}
