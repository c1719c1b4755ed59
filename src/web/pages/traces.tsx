/** Traces: the filter bar, the time window, sortable columns and pages; a row opens the trace. */
import type { TraceSummary } from '../api.js';
import { SearchList } from '../components/searchList.js';
import type { Column } from '../components/table.js';
import { int, ms, short, time, usd } from '../format.js';
import { navigate, type Location } from '../router.js';

const COLUMNS: Column<TraceSummary>[] = [
  { key: 'start', title: 'Start', sort: 'start', render: (t) => time(t.start) },
  { key: 'name', title: 'Name', sort: 'name', render: (t) => <span class="name">{t.name}</span> },
  {
    key: 'status',
    title: 'Status',
    sort: 'status',
    render: (t) => <span class={`status s-${t.status}`}>{t.status}</span>,
  },
  { key: 'input', title: 'Input', render: (t) => <span class="preview">{short(t.input_preview, 80)}</span> },
  { key: 'latency', title: 'Latency', sort: 'latency_ms', numeric: true, render: (t) => ms(t.latency_ms) },
  { key: 'tokens', title: 'Tokens', sort: 'tokens', numeric: true, render: (t) => int(t.tokens) },
  { key: 'cost', title: 'Cost', sort: 'cost', numeric: true, render: (t) => usd(t.cost) },
  { key: 'spans', title: 'Spans', sort: 'span_count', numeric: true, render: (t) => int(t.span_count) },
  { key: 'session', title: 'Session', render: (t) => t.session_id ?? '' },
  { key: 'user', title: 'User', render: (t) => t.user_id ?? '' },
];

export function TracesPage({ loc, features }: { loc: Location; features: Record<string, boolean> }) {
  return (
    <SearchList
      loc={loc}
      features={features}
      resource="traces"
      title="Traces"
      columns={COLUMNS}
      rowKey={(t) => t.id}
      onOpen={(t) => navigate(`/traces/${t.id}`)}
    />
  );
}
