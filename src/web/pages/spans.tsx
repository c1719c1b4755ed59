/** Spans: the span list with its filter, window, sorting and pages; a row opens its trace at the span. */
import { get, query, type Page, type Span } from '../api.js';
import { FilterBar } from '../components/filterBar.js';
import { Pager, Table, WindowSelect, type Column } from '../components/table.js';
import { int, ms, time, usd, windowFrom } from '../format.js';
import { useLoad } from '../hooks.js';
import { navigate, type Location } from '../router.js';

const LIMIT = 50;

const COLUMNS: Column<Span>[] = [
  { key: 'start', title: 'Start', sort: 'start', render: (s) => time(s.timestamp) },
  { key: 'name', title: 'Name', sort: 'name', render: (s) => <span class="name">{s.name}</span> },
  { key: 'kind', title: 'Kind', render: (s) => <span class={`kind k-${s.span_kind}`}>{s.span_kind}</span> },
  { key: 'status', title: 'Status', render: (s) => <span class={`status s-${s.status}`}>{s.status}</span> },
  { key: 'model', title: 'Model', sort: 'model', render: (s) => s.model ?? '' },
  { key: 'duration', title: 'Duration', sort: 'duration_ms', numeric: true, render: (s) => ms(s.duration_ms) },
  { key: 'tokens', title: 'Tokens', sort: 'tokens', numeric: true, render: (s) => int(s.tokens) },
  { key: 'cost', title: 'Cost', sort: 'cost', numeric: true, render: (s) => usd(s.cost) },
  { key: 'service', title: 'Service', render: (s) => s.service_name ?? '' },
];

export function SpansPage({ loc }: { loc: Location }) {
  const q = loc.query;
  const state = { filter: q.get('filter') ?? '', window: q.get('window') ?? '7d', sort_by: q.get('sort_by') ?? 'start', sort_order: q.get('sort_order') ?? 'desc', offset: Number(q.get('offset') ?? 0) };
  const set = (patch: Partial<typeof state>) => navigate('/spans', { ...state, offset: 0, ...patch });
  const page = useLoad(
    () => get<Page<Span>>(`/v1/spans${query({ filter: state.filter, start_date: windowFrom(state.window), sort_by: state.sort_by, sort_order: state.sort_order, limit: LIMIT, offset: state.offset })}`),
    [loc.query.toString()],
  );
  const filterError = page.error?.code === 'invalid_filter' ? page.error.message : null;
  return (
    <div class="page">
      <header class="page-head">
        <h1>Spans</h1>
        <WindowSelect value={state.window} onChange={(w) => set({ window: w })} />
      </header>
      <FilterBar value={state.filter} resource="spans" error={filterError} onApply={(filter) => set({ filter })} />
      {page.error && !filterError ? <p class="error" role="alert">{page.error.message}</p> : null}
      {page.data ? (
        <>
          <Table
            label="Spans"
            columns={COLUMNS}
            rows={page.data.data}
            rowKey={(s) => `${s.trace_id}/${s.id}`}
            onOpen={(s) => navigate(`/traces/${s.trace_id}`, { span: s.id })}
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
