/** Spans: the span list with its filter, window, sorting and pages; a row opens its trace at the span. */
import type { Span } from '../api.js';
import { SearchList } from '../components/searchList.js';
import type { Column } from '../components/table.js';
import { int, ms, time, usd } from '../format.js';
import { navigate, type Location } from '../router.js';

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

export function SpansPage({ loc, features }: { loc: Location; features: Record<string, boolean> }) {
  return (
    <SearchList
      loc={loc}
      features={features}
      resource="spans"
      title="Spans"
      columns={COLUMNS}
      rowKey={(s) => `${s.trace_id}/${s.id}`}
      onOpen={(s) => navigate(`/traces/${s.trace_id}`, { span: s.id })}
    />
  );
}
