/**
 * A sortable, pageable, keyboard-navigable table: ↑/↓ (or j/k) move the selection, Enter opens the
 * row. Sorting and paging are the server's (the page passes them on in its deep link).
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';

export interface Column<T> {
  key: string;
  title: string;
  render: (row: T) => ComponentChildren;
  /** The API's sort_by for this column, when it sorts. */
  sort?: string;
  numeric?: boolean;
}

interface Props<T> {
  columns: Column<T>[];
  rows: T[];
  rowKey: (row: T) => string;
  onOpen: (row: T) => void;
  sortBy?: string | undefined;
  sortOrder?: string | undefined;
  onSort?: (sortBy: string, order: 'asc' | 'desc') => void;
  label: string;
  /** What an empty table says. */
  empty?: string;
}

export function Table<T>({
  columns,
  rows,
  rowKey,
  onOpen,
  sortBy,
  sortOrder,
  onSort,
  label,
  empty = 'Nothing in this window.',
}: Props<T>) {
  const [selected, setSelected] = useState(0);
  const body = useRef<HTMLTableSectionElement>(null);
  useEffect(() => setSelected(0), [rows]);
  useEffect(() => {
    (body.current?.children[selected] as HTMLElement | undefined)?.scrollIntoView?.({ block: 'nearest' });
  }, [selected]);
  const onKey = (e: KeyboardEvent) => {
    if (e.key === 'ArrowDown' || e.key === 'j') setSelected((s) => Math.min(rows.length - 1, s + 1));
    else if (e.key === 'ArrowUp' || e.key === 'k') setSelected((s) => Math.max(0, s - 1));
    else if (e.key === 'Enter' && rows[selected]) onOpen(rows[selected]!);
    else return;
    e.preventDefault();
  };
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: the table is one tab stop; its arrow keys move the selected row and Enter opens it
    <table class="grid" tabIndex={0} onKeyDown={onKey} aria-label={label}>
      <thead>
        <tr>
          {columns.map((c) => (
            <th
              key={c.key}
              class={c.numeric ? 'num' : ''}
              aria-sort={sortBy === c.sort && c.sort ? (sortOrder === 'asc' ? 'ascending' : 'descending') : undefined}
            >
              {c.sort && onSort ? (
                <button
                  type="button"
                  class="sort"
                  onClick={() => onSort(c.sort!, sortBy === c.sort && sortOrder !== 'asc' ? 'asc' : 'desc')}
                >
                  {c.title}
                  {sortBy === c.sort ? (sortOrder === 'asc' ? ' ▲' : ' ▼') : ''}
                </button>
              ) : (
                c.title
              )}
            </th>
          ))}
        </tr>
      </thead>
      <tbody ref={body}>
        {rows.map((r, i) => (
          <tr key={rowKey(r)} class={i === selected ? 'selected' : ''} onClick={() => onOpen(r)} data-id={rowKey(r)}>
            {columns.map((c) => (
              <td key={c.key} class={c.numeric ? 'num' : ''}>
                {c.render(r)}
              </td>
            ))}
          </tr>
        ))}
        {rows.length === 0 ? (
          <tr>
            <td colSpan={columns.length} class="empty">
              {empty}
            </td>
          </tr>
        ) : null}
      </tbody>
    </table>
  );
}

export function Pager({
  total,
  limit,
  offset,
  onPage,
}: {
  total: number;
  limit: number;
  offset: number;
  onPage: (offset: number) => void;
}) {
  const last = Math.min(total, offset + limit);
  return (
    <div class="pager">
      <span>
        {total === 0 ? 0 : offset + 1}–{last} of {total.toLocaleString('en-US')}
      </span>
      <button type="button" disabled={offset === 0} onClick={() => onPage(Math.max(0, offset - limit))}>
        ← Previous
      </button>
      <button type="button" disabled={last >= total} onClick={() => onPage(offset + limit)}>
        Next →
      </button>
    </div>
  );
}

/** The windows a page offers; `allTime` adds `all`, which the page itself resolves (the API's windows end at 90 days). */
export function WindowSelect({
  value,
  onChange,
  allTime = false,
}: {
  value: string;
  onChange: (w: string) => void;
  allTime?: boolean;
}) {
  return (
    <label class="window">
      Window{' '}
      <select value={value} onChange={(e) => onChange((e.target as HTMLSelectElement).value)} aria-label="Time window">
        {['1h', '24h', '7d', '30d', '90d'].map((w) => (
          <option key={w} value={w}>
            last {w}
          </option>
        ))}
        {allTime ? <option value="all">all time</option> : null}
      </select>
    </label>
  );
}
