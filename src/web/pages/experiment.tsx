/**
 * One experiment: its runs over time (resolved rate, mean cost and duration per task, one point per
 * run) and the runs, newest first; a row opens the run against its baseline (the pinned run, else
 * the succeeded run before it).
 */
import { useMemo } from 'preact/hooks';
import { get, type ExperimentDetail, type ExperimentRun } from '../api.js';
import { Chart, type Series } from '../components/chart.js';
import { Table, type Column } from '../components/table.js';
import { int, ms, pct, time, usd } from '../format.js';
import { useLoadOf } from '../hooks.js';
import { href, navigate, type Location } from '../router.js';
import { RunStatus } from './experiments.js';

export function runLabel(run: Pick<ExperimentRun, 'id' | 'git_branch' | 'git_commit'>): string {
  const where = [run.git_branch, run.git_commit?.slice(0, 7)].filter(Boolean).join(' @ ');
  return `${run.id.slice(0, 8)}${where ? ` (${where})` : ''}`;
}

function columns(baseline: string | null): Column<ExperimentRun>[] {
  return [
    { key: 'created', title: 'Started', render: (r) => time(r.created_at) },
    {
      key: 'run',
      title: 'Run',
      render: (r) => (
        <span class="mono">
          {r.id.slice(0, 8)}
          {r.id === baseline ? <span class="label l-baseline">baseline</span> : null}
        </span>
      ),
    },
    { key: 'status', title: 'Status', render: (r) => <RunStatus run={r} /> },
    { key: 'suite', title: 'Suite', render: (r) => `${r.suite}${r.suite_version ? ` v${r.suite_version}` : ''}` },
    {
      key: 'git',
      title: 'Branch @ commit',
      render: (r) => <span class="mono">{[r.git_branch, r.git_commit?.slice(0, 7)].filter(Boolean).join(' @ ')}</span>,
    },
    { key: 'tasks', title: 'Tasks', numeric: true, render: (r) => int(r.task_count) },
    { key: 'trials', title: 'Trials', numeric: true, render: (r) => int(r.trial_count) },
    { key: 'resolved', title: 'Resolved', numeric: true, render: (r) => pct(r.resolved_rate) },
    { key: 'cost', title: 'Mean cost', numeric: true, render: (r) => usd(r.mean_cost_usd) },
    { key: 'total', title: 'Total cost', numeric: true, render: (r) => usd(r.total_cost_usd) },
    { key: 'duration', title: 'Mean duration', numeric: true, render: (r) => ms(r.mean_duration_ms) },
    { key: 'p95', title: 'p95 duration', numeric: true, render: (r) => ms(r.p95_duration_ms) },
  ];
}

/** One point per run with trials, oldest first, as the charts want them. */
function overTime(runs: ExperimentRun[]) {
  const measured = runs.filter((r) => r.task_count > 0);
  const xs = measured.map((r) => Date.parse(r.created_at));
  const series = (label: string, pick: (r: ExperimentRun) => number | null): Series => ({
    label,
    values: measured.map(pick),
  });
  return {
    xs,
    rate: [series('resolved rate', (r) => r.resolved_rate)],
    cost: [series('mean cost per task', (r) => r.mean_cost_usd)],
    duration: [series('mean', (r) => r.mean_duration_ms), series('p95', (r) => r.p95_duration_ms)],
  };
}

export function ExperimentPage({ params }: { loc: Location; params: Record<string, string> }) {
  const id = params.experimentId!;
  const x = useLoadOf(id, () =>
    get<{ data: ExperimentDetail }>(`/v1/experiments/${encodeURIComponent(id)}`).then((r) => r.data),
  );
  const charts = useMemo(() => (x.data ? overTime(x.data.runs) : null), [x.data]);
  if (x.error)
    return (
      <div class="page">
        <p class="error" role="alert">
          {x.error.status === 404 ? `No experiment ${id} here.` : x.error.message}
        </p>
      </div>
    );
  if (!x.data || !charts)
    return (
      <div class="page">
        <p class="loading">Loading…</p>
      </div>
    );
  const runs = [...x.data.runs].reverse();
  return (
    <div class="page experiment">
      <header class="page-head">
        <h1>
          <a href={href('/experiments')} class="back" aria-label="Back to experiments">
            ←
          </a>{' '}
          {x.data.name}
        </h1>
        <span class="summary">
          {x.data.run_count} runs · baseline:{' '}
          {x.data.baseline_run_id
            ? `run ${x.data.baseline_run_id.slice(0, 8)} (pinned)`
            : 'each run against the succeeded run before it'}
        </span>
      </header>
      <div class="charts">
        <Chart title="Resolved rate by run" xs={charts.xs} series={charts.rate} format={pct} />
        <Chart title="Mean cost per task by run" xs={charts.xs} series={charts.cost} format={usd} />
        <Chart title="Duration per task by run" xs={charts.xs} series={charts.duration} format={ms} />
      </div>
      <h2 class="section">Runs</h2>
      <Table
        label="Runs"
        columns={columns(x.data.baseline_run_id)}
        rows={runs}
        rowKey={(r) => r.id}
        onOpen={(r) => navigate(`/experiments/${id}/runs/${r.id}`)}
        empty="No runs."
      />
      <p class="hint">Open a run to compare it with its baseline, task by task.</p>
    </div>
  );
}
