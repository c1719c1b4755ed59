/** Sessions: conversations across traces, latest activity first; a row opens the conversation. */
import { get, query, type Page, type Session } from '../api.js';
import { Pager, Table, WindowSelect, type Column } from '../components/table.js';
import { int, time, usd, windowFrom } from '../format.js';
import { useLoad } from '../hooks.js';
import { navigate, type Location } from '../router.js';

const LIMIT = 50;

const COLUMNS: Column<Session>[] = [
  { key: 'id', title: 'Session', render: (s) => <span class="name">{s.id}</span> },
  { key: 'user', title: 'User', render: (s) => s.user_id ?? '' },
  { key: 'traces', title: 'Traces', numeric: true, render: (s) => int(s.trace_count) },
  { key: 'start', title: 'First', render: (s) => time(s.start) },
  { key: 'end', title: 'Last', render: (s) => time(s.end) },
  { key: 'tokens', title: 'Tokens', numeric: true, render: (s) => int(s.tokens) },
  { key: 'cost', title: 'Cost', numeric: true, render: (s) => usd(s.cost) },
];

export function SessionsPage({ loc }: { loc: Location }) {
  const state = {
    window: loc.query.get('window') ?? '7d',
    user_id: loc.query.get('user_id') ?? '',
    offset: Number(loc.query.get('offset') ?? 0),
  };
  const set = (patch: Partial<typeof state>) => navigate('/sessions', { ...state, offset: 0, ...patch });
  const page = useLoad(
    () =>
      get<Page<Session>>(
        `/v1/sessions${query({ start_date: windowFrom(state.window), user_id: state.user_id, limit: LIMIT, offset: state.offset })}`,
      ),
    [loc.query.toString()],
  );
  return (
    <div class="page">
      <header class="page-head">
        <h1>Sessions</h1>
        <WindowSelect value={state.window} onChange={(w) => set({ window: w })} />
      </header>
      {page.error ? (
        <p class="error" role="alert">
          {page.error.message}
        </p>
      ) : null}
      {page.data ? (
        <>
          <Table
            label="Sessions"
            columns={COLUMNS}
            rows={page.data.data}
            rowKey={(s) => s.id}
            onOpen={(s) => navigate(`/sessions/${encodeURIComponent(s.id)}`)}
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
