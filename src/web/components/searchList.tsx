/**
 * A searchable list page — traces or spans: the filter bar, the time window, sortable columns and
 * pages, all kept in the URL's query so every view is a deep link.
 */
import { get, query, type Page } from '../api.js';
import { navigate, type Location } from '../router.js';
import { windowFrom } from '../format.js';
import { useLoad } from '../hooks.js';
import { FilterBar } from './filterBar.js';
import { Pager, Table, WindowSelect, type Column } from './table.js';

const LIMIT = 50;

export interface SearchListProps<T> {
  loc: Location;
  resource: 'traces' | 'spans';
  title: string;
  columns: Column<T>[];
  rowKey: (row: T) => string;
  onOpen: (row: T) => void;
  /** The server's `/v1/capabilities` features. */
  features: Record<string, boolean>;
}

export function SearchList<T>({ loc, resource, title, columns, rowKey, onOpen, features }: SearchListProps<T>) {
  const q = loc.query;
  const state = {
    filter: q.get('filter') ?? '',
    window: q.get('window') ?? '7d',
    sort_by: q.get('sort_by') ?? 'start',
    sort_order: q.get('sort_order') ?? 'desc',
    offset: Number(q.get('offset') ?? 0),
  };
  const set = (patch: Partial<typeof state>) => navigate(`/${resource}`, { ...state, offset: 0, ...patch });
  const page = useLoad(
    () =>
      get<Page<T>>(
        `/v1/${resource}${query({ filter: state.filter, start_date: windowFrom(state.window), sort_by: state.sort_by, sort_order: state.sort_order, limit: LIMIT, offset: state.offset })}`,
      ),
    [resource, loc.query.toString()],
  );
  const filterError = page.error?.code === 'invalid_filter' ? page.error.message : null;
  return (
    <div class="page">
      <header class="page-head">
        <h1>{title}</h1>
        <WindowSelect value={state.window} onChange={(w) => set({ window: w })} />
      </header>
      <FilterBar
        value={state.filter}
        resource={resource}
        window={state.window}
        metrics={features.metrics === true}
        error={filterError}
        onApply={(filter) => set({ filter })}
      />
      {page.error && !filterError ? (
        <p class="error" role="alert">
          {page.error.message}
        </p>
      ) : null}
      {page.data ? (
        <>
          <Table
            label={title}
            columns={columns}
            rows={page.data.data}
            rowKey={rowKey}
            onOpen={onOpen}
            sortBy={state.sort_by}
            sortOrder={state.sort_order}
            onSort={(sort_by, sort_order) => set({ sort_by, sort_order })}
          />
          <Pager
            total={page.data.pagination.total}
            limit={LIMIT}
            offset={state.offset}
            onPage={(offset) => set({ offset })}
          />
        </>
      ) : page.loading ? (
        <p class="loading">Loading…</p>
      ) : null}
    </div>
  );
}
