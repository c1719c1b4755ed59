/**
 * A run against its experiment's baseline (`GET /v1/experiments/baseline`): the resolved rate of
 * both over the tasks they share, its change with the 95% interval and McNemar's p-value, the mean
 * per-task change in cost and duration with theirs, how many tasks were fixed or regressed, and the
 * tasks one by one (`?outcome=` narrows the table to one outcome: a deep link to the regressions).
 */
import {
  get,
  query,
  OUTCOMES,
  type BaselineComparison,
  type ExperimentRun,
  type Interval,
  type MeanChange,
  type Outcome,
  type TaskPair,
} from '../api.js';
import { ms, pct, points, signed, time, usd } from '../format.js';
import { useLoadOf } from '../hooks.js';
import { href, type Location } from '../router.js';
import { runLabel } from './experiment.js';
import { RunStatus } from './experiments.js';

const OUTCOME_TITLES: Record<Outcome, string> = {
  fixed: 'Fixed',
  regressed: 'Regressed',
  both_resolved: 'Both resolved',
  both_failed: 'Both failed',
  only_baseline: 'Only in baseline',
  only_candidate: 'Only in this run',
};

function interval(ci: Interval | null, unit: (v: number) => string): string {
  return ci ? `95% CI ${signed(ci[0], unit)} to ${signed(ci[1], unit)}` : 'no interval (fewer than two paired tasks)';
}

/** Whether an interval says the change is real, and which way (for a colour, not a verdict on its own). */
function direction(ci: Interval | null): 'up' | 'down' | 'flat' {
  if (!ci) return 'flat';
  if (ci[0] > 0) return 'up';
  if (ci[1] < 0) return 'down';
  return 'flat';
}

function Figure({
  title,
  before,
  after,
  change,
  ci,
  unit,
  better,
}: {
  title: string;
  before: string;
  after: string;
  change: number | null;
  ci: Interval | null;
  unit: (v: number) => string;
  better: 'up' | 'down';
}) {
  const d = direction(ci);
  return (
    <figure class={`figure ${d === 'flat' ? '' : d === better ? 'better' : 'worse'}`} aria-label={title}>
      <h4>{title}</h4>
      <p class="values">
        {before} → <b>{after}</b>
      </p>
      <p class="change">{signed(change, unit)}</p>
      <p class="ci">{interval(ci, unit)}</p>
    </figure>
  );
}

function cost(m: MeanChange, title: string, unit: (v: number) => string) {
  return (
    <Figure
      title={title}
      before={m.baseline_mean === null ? '–' : unit(m.baseline_mean)}
      after={m.candidate_mean === null ? '–' : unit(m.candidate_mean)}
      change={m.change}
      ci={m.ci95}
      unit={unit}
      better="down"
    />
  );
}

const resolved = (v: boolean | null) => (v === null ? '–' : v ? '✓ resolved' : '✗ failed');

function RunFacts({ run, which }: { run: ExperimentRun; which: string }) {
  return (
    <div class="run-facts">
      <span class="hint">{which}</span> <span class="mono">{runLabel(run)}</span> <RunStatus run={run} />{' '}
      <span class="when">{time(run.created_at)}</span> · {run.task_count} tasks · {pct(run.resolved_rate)} resolved
    </div>
  );
}

export function ComparisonPage({ loc, params }: { loc: Location; params: Record<string, string> }) {
  const experimentId = params.experimentId!;
  const runId = params.runId!;
  const outcome = loc.query.get('outcome') as Outcome | null;
  const answer = useLoadOf(`${experimentId}/${runId}`, () =>
    get<{ data: BaselineComparison }>(
      `/v1/experiments/baseline${query({ experiment_id: experimentId, run_id: runId })}`,
    ).then((r) => r.data),
  );
  const back = href(`/experiments/${experimentId}`);
  if (answer.error)
    return (
      <div class="page">
        <p class="error" role="alert">
          {answer.error.message}
        </p>
        <a href={back}>Back to the experiment</a>
      </div>
    );
  if (!answer.data)
    return (
      <div class="page">
        <p class="loading">Loading…</p>
      </div>
    );
  const { baseline, candidate, comparison: c } = answer.data;
  const tasks: TaskPair[] = c ? c.per_task.filter((t) => !outcome || t.outcome === outcome) : [];
  const tab = (o: Outcome | null, title: string, n: number) => (
    <a
      key={o ?? 'all'}
      role="tab"
      aria-selected={outcome === o}
      href={href(`/experiments/${experimentId}/runs/${runId}`, { outcome: o })}
    >
      {title} <span class="count">{n}</span>
    </a>
  );
  return (
    <div class="page comparison">
      <header class="page-head">
        <h1>
          <a href={back} class="back" aria-label="Back to the experiment">
            ←
          </a>{' '}
          {answer.data.experiment}: run {runId.slice(0, 8)} vs baseline
        </h1>
      </header>
      {candidate ? <RunFacts run={candidate} which="This run" /> : null}
      {baseline ? (
        <RunFacts
          run={baseline}
          which={baseline.pinned ? 'Baseline (pinned)' : 'Baseline (the succeeded run before)'}
        />
      ) : (
        <p class="hint">No baseline for this run: no succeeded run of the experiment before it, and none pinned.</p>
      )}
      {baseline && !candidate ? (
        <p class="hint">This run is the pinned baseline: open another run to compare it.</p>
      ) : null}
      {c ? (
        <>
          <div class="figures">
            <Figure
              title="Resolved rate"
              before={pct(c.resolved_rate.baseline)}
              after={pct(c.resolved_rate.candidate)}
              change={c.resolved_rate.change}
              ci={c.resolved_rate.ci95}
              unit={points}
              better="up"
            />
            {cost(c.cost_usd, 'Mean cost per task', usd)}
            {cost(c.duration_ms, 'Mean duration per task', ms)}
            <figure class="figure" aria-label="Tasks">
              <h4>Tasks</h4>
              <p class="values">
                <b>{c.tasks.paired}</b> in both runs
              </p>
              <p class="change">
                <span class="fixed">{c.tasks.fixed} fixed</span> ·{' '}
                <span class="regressed">{c.tasks.regressed} regressed</span>
              </p>
              <p class="ci">McNemar p = {c.resolved_rate.p_value.toPrecision(3)}</p>
            </figure>
          </div>
          <p class="hint">
            {c.resolved_rate.method}. Cost and duration: mean of the per-task differences, normal interval.
          </p>
          <div class="tabs" role="tablist" aria-label="Outcome">
            {tab(null, 'All', c.per_task.length)}
            {OUTCOMES.filter((o) => c.tasks[o] > 0 || o === outcome).map((o) => tab(o, OUTCOME_TITLES[o], c.tasks[o]))}
          </div>
          <table class="grid small tasks" aria-label="Tasks">
            <thead>
              <tr>
                <th>Task</th>
                <th>Outcome</th>
                <th>Baseline</th>
                <th>This run</th>
                <th class="num">Cost (baseline → run)</th>
                <th class="num">Duration (baseline → run)</th>
              </tr>
            </thead>
            <tbody>
              {tasks.map((t) => (
                <tr key={t.task_id} class={`o-${t.outcome}`} data-task={t.task_id}>
                  <td class="mono">{t.task_id}</td>
                  <td>
                    <span class={`outcome o-${t.outcome}`}>{OUTCOME_TITLES[t.outcome]}</span>
                  </td>
                  <td>{resolved(t.baseline_resolved)}</td>
                  <td>{resolved(t.candidate_resolved)}</td>
                  <td class="num">
                    {usd(t.baseline_cost_usd)} → {usd(t.candidate_cost_usd)}
                  </td>
                  <td class="num">
                    {ms(t.baseline_duration_ms)} → {ms(t.candidate_duration_ms)}
                  </td>
                </tr>
              ))}
              {tasks.length === 0 ? (
                <tr>
                  <td colSpan={6} class="empty">
                    No task with this outcome.
                  </td>
                </tr>
              ) : null}
            </tbody>
          </table>
        </>
      ) : null}
    </div>
  );
}
