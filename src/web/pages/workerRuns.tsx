/**
 * Worker runs and sessions, latest first: status, kind, profile, branch, turns and cost; a row
 * opens the run's live thread. Filters by kind and status are in the deep link.
 */
import { get, query, type Page, type WorkerRun, type WorkerTurn } from '../api.js';
import { Pager, Table, type Column } from '../components/table.js';
import { int, short, time, usd } from '../format.js';
import { useLoad } from '../hooks.js';
import { navigate, type Location } from '../router.js';

const LIMIT = 50;

export function WorkerStatus({ status }: { status: string }) {
  return <span class={`status run-${status}`}>{status}</span>;
}

/** What a run is called: its title, else the first line of its first prompt. */
export function runTitle(run: Pick<WorkerRun, 'title' | 'latest_turn'> & { turns?: WorkerTurn[] }): string {
  return run.title ?? (run.turns?.[0] ?? run.latest_turn).prompt.split('\n')[0]!;
}

const COLUMNS: Column<WorkerRun>[] = [
  { key: 'created', title: 'Started', render: (r) => time(r.created_at) },
  { key: 'title', title: 'Task', render: (r) => <span class="name">{short(runTitle(r), 80)}</span> },
  { key: 'status', title: 'Status', render: (r) => <WorkerStatus status={r.status} /> },
  { key: 'kind', title: 'Kind', render: (r) => (r.kind === 'session' ? 'session' : 'one-shot') },
  { key: 'profile', title: 'Agent', render: (r) => r.profile },
  {
    key: 'branch',
    title: 'Repository',
    render: (r) => (
      <span class="mono">
        {r.repository} {r.base_branch} → {r.work_branch}
      </span>
    ),
  },
  { key: 'turns', title: 'Turns', numeric: true, render: (r) => int(r.turn_count) },
  { key: 'cost', title: 'Cost', numeric: true, render: (r) => usd(r.cost_usd) },
];

export function WorkerRunsPage({ loc }: { loc: Location }) {
  const offset = Number(loc.query.get('offset') ?? 0);
  const kind = loc.query.get('kind') ?? '';
  const status = loc.query.get('status') ?? '';
  const page = useLoad(
    () => get<Page<WorkerRun>>(`/v1/workers/runs${query({ kind, status, limit: LIMIT, offset })}`),
    [kind, status, offset],
  );
  const filter = (k: string, v: string) => navigate('/workers', { kind, status, [k]: v });
  return (
    <div class="page">
      <header class="page-head">
        <h1>Worker runs</h1>
        <label>
          Kind{' '}
          <select value={kind} onChange={(e) => filter('kind', (e.target as HTMLSelectElement).value)}>
            <option value="">all</option>
            <option value="oneshot">one-shot</option>
            <option value="session">session</option>
          </select>
        </label>
        <label>
          Status{' '}
          <select value={status} onChange={(e) => filter('status', (e.target as HTMLSelectElement).value)}>
            <option value="">all</option>
            {['queued', 'running', 'idle', 'succeeded', 'failed', 'cancelled', 'closed'].map((s) => (
              <option value={s}>{s}</option>
            ))}
          </select>
        </label>
      </header>
      {page.error ? (
        <p class="error" role="alert">
          {page.error.message}
        </p>
      ) : null}
      {page.data ? (
        <>
          <Table
            label="Worker runs"
            columns={COLUMNS}
            rows={page.data.data}
            rowKey={(r) => r.id}
            onOpen={(r) => navigate(`/workers/runs/${r.id}`)}
            empty="No worker runs yet (POST /v1/workers/runs or /v1/workers/sessions)."
          />
          <Pager
            total={page.data.pagination.total}
            limit={LIMIT}
            offset={offset}
            onPage={(o) => navigate('/workers', { kind, status, offset: o })}
          />
        </>
      ) : page.loading ? (
        <p class="loading">Loading…</p>
      ) : null}
    </div>
  );
}
