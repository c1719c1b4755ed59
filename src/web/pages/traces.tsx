/** Traces: the filter bar, the time window, sortable columns and pages; a row opens the trace. */
import { get, query, type Page, type TraceSummary } from '../api.js';
import { FilterBar } from '../components/filterBar.js';
import { Pager, Table, WindowSelect, type Column } from '../components/table.js';
import { int, ms, short, time, usd, windowFrom } from '../format.js';
import { useLoad } from '../hooks.js';
import { navigate, type Location } from '../router.js';

const LIMIT = 50;

const COLUMNS: Column<TraceSummary>[] = [
  { key: 'start', title: 'Start', sort: 'start', render: (t) => time(t.start) },
  { key: 'name', title: 'Name', sort: 'name', render: (t) => <span class="name">{t.name}</span> },
  { key: 'status', title: 'Status', sort: 'status', render: (t) => <span class={`status s-${t.status}`}>{t.status}</span> },
  { key: 'input', title: 'Input', render: (t) => <span class="preview">{short(t.input_preview, 80)}</span> },
  { key: 'latency', title: 'Latency', sort: 'latency_ms', numeric: true, render: (t) => ms(t.latency_ms) },
  { key: 'tokens', title: 'Tokens', sort: 'tokens', numeric: true, render: (t) => int(t.tokens) },
  { key: 'cost', title: 'Cost', sort: 'cost', numeric: true, render: (t) => usd(t.cost) },
  { key: 'spans', title: 'Spans', sort: 'span_count', numeric: true, render: (t) => int(t.span_count) },
  { key: 'session', title: 'Session', render: (t) => t.session_id ?? '' },
  { key: 'user', title: 'User', render: (t) => t.user_id ?? '' },
];

export function TracesPage({ loc }: { loc: Location }) {
  const q = loc.query;
  const state = {
    filter: q.get('filter') ?? '',
    window: q.get('window') ?? '7d',
    sort_by: q.get('sort_by') ?? 'start',
    sort_order: q.get('sort_order') ?? 'desc',
    offset: Number(q.get('offset') ?? 0),
  };
  const set = (patch: Partial<typeof state>) => navigate('/traces', { ...state, offset: 0, ...patch });
  const page = useLoad(
    () => get<Page<TraceSummary>>(`/v1/traces${query({ filter: state.filter, start_date: windowFrom(state.window), sort_by: state.sort_by, sort_order: state.sort_order, limit: LIMIT, offset: state.offset })}`),
    [loc.query.toString()],
  );
  const filterError = page.error?.code === 'invalid_filter' ? page.error.message : null;
  return (
    <div class="page">
      <header class="page-head">
        <h1>Traces</h1>
        <WindowSelect value={state.window} onChange={(w) => set({ window: w })} />
      </header>
      <FilterBar value={state.filter} resource="traces" error={filterError} onApply={(filter) => set({ filter })} />
      {page.error && !filterError ? <p class="error" role="alert">{page.error.message}</p> : null}
      {page.data ? (
        <>
          <Table
            label="Traces"
            columns={COLUMNS}
            rows={page.data.data}
            rowKey={(t) => t.id}
            onOpen={(t) => navigate(`/traces/${t.id}`)}
            sortBy={state.sort_by}
            sortOrder={state.sort_order}
            onSort={(sort_by, sort_order) => set({ sort_by, sort_order })}
          />
          <Pager total={page.data.pagination.total} limit={LIMIT} offset={state.offset} onPage={(offset) => set({ offset })} />
        </>
      ) : page.loading ? (
        <p class="loading">Loading…</p>
      ) : null}
    </div>
  );
}
