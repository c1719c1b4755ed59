/** Experiments: most recently run first, each with its run count and its latest run's figures; a row opens it. */
import { get, query, type ExperimentRun, type ExperimentSummary, type Page } from '../api.js';
import { Pager, Table, type Column } from '../components/table.js';
import { int, ms, pct, time, usd } from '../format.js';
import { useLoad } from '../hooks.js';
import { navigate, type Location } from '../router.js';

const LIMIT = 50;

export function RunStatus({ run }: { run: Pick<ExperimentRun, 'status'> }) {
  return <span class={`status run-${run.status}`}>{run.status}</span>;
}

const COLUMNS: Column<ExperimentSummary>[] = [
  { key: 'name', title: 'Experiment', render: (x) => <span class="name">{x.name}</span> },
  { key: 'runs', title: 'Runs', numeric: true, render: (x) => int(x.run_count) },
  { key: 'last', title: 'Last run', render: (x) => (x.latest_run ? time(x.latest_run.created_at) : '') },
  { key: 'status', title: 'Status', render: (x) => (x.latest_run ? <RunStatus run={x.latest_run} /> : null) },
  {
    key: 'suite',
    title: 'Suite',
    render: (x) =>
      x.latest_run ? `${x.latest_run.suite}${x.latest_run.suite_version ? ` v${x.latest_run.suite_version}` : ''}` : '',
  },
  { key: 'tasks', title: 'Tasks', numeric: true, render: (x) => int(x.latest_run?.task_count) },
  { key: 'resolved', title: 'Resolved', numeric: true, render: (x) => pct(x.latest_run?.resolved_rate) },
  { key: 'cost', title: 'Mean cost', numeric: true, render: (x) => usd(x.latest_run?.mean_cost_usd) },
  { key: 'duration', title: 'Mean duration', numeric: true, render: (x) => ms(x.latest_run?.mean_duration_ms) },
  { key: 'baseline', title: 'Baseline', render: (x) => (x.baseline_run_id ? 'pinned' : 'previous run') },
];

export function ExperimentsPage({ loc }: { loc: Location }) {
  const offset = Number(loc.query.get('offset') ?? 0);
  const page = useLoad(
    () => get<Page<ExperimentSummary>>(`/v1/experiments${query({ limit: LIMIT, offset })}`),
    [offset],
  );
  return (
    <div class="page">
      <header class="page-head">
        <h1>Experiments</h1>
      </header>
      {page.error ? (
        <p class="error" role="alert">
          {page.error.message}
        </p>
      ) : null}
      {page.data ? (
        <>
          <Table
            label="Experiments"
            columns={COLUMNS}
            rows={page.data.data}
            rowKey={(x) => x.id}
            onOpen={(x) => navigate(`/experiments/${x.id}`)}
            empty="No eval runs yet (POST /v1/evals/runs)."
          />
          <Pager
            total={page.data.pagination.total}
            limit={LIMIT}
            offset={offset}
            onPage={(o) => navigate('/experiments', { offset: o })}
          />
        </>
      ) : page.loading ? (
        <p class="loading">Loading…</p>
      ) : null}
    </div>
  );
}
