/**
 * Prompts: the app's prompts by name, with their versions, where each label points, the variables
 * of the latest version and where it came from (the API, or the connected repository); a row opens
 * the prompt. `?label=` keeps only prompts carrying that label.
 */
import { get, query, type Page, type PromptSummary } from '../api.js';
import { Pager, Table, type Column } from '../components/table.js';
import { int, time } from '../format.js';
import { useLoad } from '../hooks.js';
import { navigate, type Location } from '../router.js';

const LIMIT = 50;

/** Where a prompt's labels point, `latest` last (it always names the highest version). */
export function LabelChips({ labels }: { labels: Record<string, number> }) {
  const named = Object.entries(labels).sort(([a], [b]) =>
    a === 'latest' ? 1 : b === 'latest' ? -1 : a.localeCompare(b),
  );
  return (
    <span class="labels">
      {named.map(([label, version]) => (
        <span key={label} class={`label l-${label}`}>
          {label} <b>v{version}</b>
        </span>
      ))}
    </span>
  );
}

/** A prompt's page; names may hold `/` (folders), so the name is one encoded path segment. */
export function promptPath(name: string): string {
  return `/prompts/${encodeURIComponent(name)}`;
}

const COLUMNS: Column<PromptSummary>[] = [
  { key: 'name', title: 'Name', render: (p) => <span class="name">{p.name}</span> },
  { key: 'type', title: 'Type', render: (p) => p.type },
  { key: 'versions', title: 'Versions', numeric: true, render: (p) => int(p.versions.length) },
  { key: 'labels', title: 'Labels', render: (p) => <LabelChips labels={p.labels} /> },
  { key: 'variables', title: 'Variables', render: (p) => <span class="mono">{p.variables.join(', ')}</span> },
  { key: 'source', title: 'Source', render: (p) => p.source },
  { key: 'updated', title: 'Updated', render: (p) => time(p.updated_at) },
];

export function PromptsPage({ loc }: { loc: Location }) {
  const state = { label: loc.query.get('label') ?? '', offset: Number(loc.query.get('offset') ?? 0) };
  const set = (patch: Partial<typeof state>) => navigate('/prompts', { ...state, offset: 0, ...patch });
  const page = useLoad(
    () => get<Page<PromptSummary>>(`/v1/prompts${query({ label: state.label, limit: LIMIT, offset: state.offset })}`),
    [loc.query.toString()],
  );
  return (
    <div class="page">
      <header class="page-head">
        <h1>Prompts</h1>
        <form
          class="inline"
          onSubmit={(e) => {
            e.preventDefault();
            set({ label: (new FormData(e.currentTarget as HTMLFormElement).get('label') as string).trim() });
          }}
        >
          <label>
            Label{' '}
            <input
              name="label"
              value={state.label}
              placeholder="production"
              size={14}
              aria-label="Only prompts with the label"
            />
          </label>
        </form>
      </header>
      {page.error ? (
        <p class="error" role="alert">
          {page.error.message}
        </p>
      ) : null}
      {page.data ? (
        <>
          <Table
            label="Prompts"
            columns={COLUMNS}
            rows={page.data.data}
            rowKey={(p) => p.name}
            onOpen={(p) => navigate(promptPath(p.name))}
            empty="No prompts yet: create one with POST /v1/prompts, or connect a repository."
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
