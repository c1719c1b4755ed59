/**
 * End to end: a baseline run and a candidate run of one experiment, each claimed by a worker-like
 * client holding the run's key, 50 trials reported (some with traces sent through OTLP by the
 * OpenTelemetry SDK, some tasks retried), completed with a card. The experiment and baseline
 * endpoints must answer what this test computes on its own from the trials it sent.
 */
import t, { type Test } from 'tap';
import { tracerProvider } from '../helpers/otel.js';
import { call, createKey, rootCredentials, serverFor, type Credentials, type TestServer } from '../helpers/server.js';
import { createRun, report, sendTrials, type Run } from './helpers.js';

const TASKS = 50;
const Z = 1.959963984540054;

interface SentTrial {
  taskId: string;
  attempt: number;
  resolved: boolean;
  costUsd: number;
  durationMs: number;
  traceId?: string;
}

/** Baseline: task i resolved unless i % 3 === 0; tasks i % 10 === 1 failed once and were retried. */
function baselineTrials(): SentTrial[] {
  const out: SentTrial[] = [];
  for (let i = 0; i < TASKS; i++) {
    const taskId = `task-${String(i).padStart(2, '0')}`;
    if (i % 10 === 1) out.push({ taskId, attempt: 1, resolved: false, costUsd: 0.002, durationMs: 300 });
    out.push({
      taskId,
      attempt: i % 10 === 1 ? 2 : 1,
      resolved: i % 3 !== 0,
      costUsd: 0.01 * (1 + (i % 5)),
      durationMs: 1000 + 37 * i,
    });
  }
  return out;
}

/**
 * Candidate: tasks i % 6 === 0 fixed (they failed in the baseline), tasks i % 7 === 2 regressed;
 * cheaper, slower; task-49 missing, task-50 new.
 */
function candidateTrials(): SentTrial[] {
  const out: SentTrial[] = [];
  for (let i = 0; i <= TASKS; i++) {
    if (i === TASKS - 1) continue;
    const taskId = `task-${String(i).padStart(2, '0')}`;
    let resolved = i % 3 !== 0;
    if (i % 6 === 0) resolved = true;
    if (i % 7 === 2) resolved = false;
    out.push({ taskId, attempt: 1, resolved, costUsd: 0.008 * (1 + (i % 4)), durationMs: 1100 + 41 * i });
  }
  return out;
}

// ---- the test's own arithmetic, independent of the server's ----

interface TaskResult {
  resolved: boolean;
  cost: number;
  duration: number;
  trials: number;
}

function byTask(trials: SentTrial[]): Map<string, TaskResult> {
  const tasks = new Map<string, TaskResult & { attempt: number }>();
  for (const x of trials) {
    const seen = tasks.get(x.taskId);
    if (!seen)
      tasks.set(x.taskId, {
        resolved: x.resolved,
        cost: x.costUsd,
        duration: x.durationMs,
        trials: 1,
        attempt: x.attempt,
      });
    else {
      seen.cost += x.costUsd;
      seen.duration += x.durationMs;
      seen.trials++;
      if (x.attempt > seen.attempt) Object.assign(seen, { attempt: x.attempt, resolved: x.resolved });
    }
  }
  return tasks;
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const sd = (xs: number[]) => Math.sqrt(xs.reduce((a, x) => a + (x - mean(xs)) ** 2, 0) / (xs.length - 1));
/** quantile_cont: linear interpolation between the order statistics. */
function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  const h = (s.length - 1) * q;
  return s[Math.floor(h)]! + (h - Math.floor(h)) * (s[Math.ceil(h)]! - s[Math.floor(h)]!);
}

function figures(trials: SentTrial[]) {
  const tasks = [...byTask(trials).values()];
  return {
    task_count: tasks.length,
    trial_count: trials.length,
    resolved_rate: tasks.filter((x) => x.resolved).length / tasks.length,
    mean_cost_usd: mean(tasks.map((x) => x.cost)),
    mean_duration_ms: mean(tasks.map((x) => x.duration)),
    p95_duration_ms: quantile(
      tasks.map((x) => x.duration),
      0.95,
    ),
  };
}

function binomialTwoSided(b: number, c: number): number {
  const n = b + c;
  let tail = 0;
  let coef = 1;
  for (let i = 0; i <= Math.min(b, c); i++) {
    tail += coef / 2 ** n;
    coef = (coef * (n - i)) / (i + 1);
  }
  return Math.min(1, 2 * tail);
}

function expectedComparison(base: SentTrial[], cand: SentTrial[]) {
  const b = byTask(base);
  const c = byTask(cand);
  const outcome = (x?: TaskResult, y?: TaskResult) =>
    !x
      ? 'only_candidate'
      : !y
        ? 'only_baseline'
        : x.resolved && y.resolved
          ? 'both_resolved'
          : y.resolved
            ? 'fixed'
            : x.resolved
              ? 'regressed'
              : 'both_failed';
  const ids = [...new Set([...b.keys(), ...c.keys()])].sort();
  const perTask = ids.map((id) => ({
    task_id: id,
    outcome: outcome(b.get(id), c.get(id)),
    b: b.get(id),
    c: c.get(id),
  }));
  const count = (o: string) => perTask.filter((p) => p.outcome === o).length;
  const paired = perTask.filter((p) => p.b && p.c);
  const n = paired.length;
  const [n11, n12, n21, n22] = [count('both_resolved'), count('regressed'), count('fixed'), count('both_failed')];
  // Agresti & Min (2005): add 1/2 to each cell, then the Wald interval of p21 − p12.
  const m = n + 2;
  const p21 = (n21 + 0.5) / m;
  const p12 = (n12 + 0.5) / m;
  const d = p21 - p12;
  const se = Math.sqrt((p21 + p12 - d * d) / m);
  const diffs = (f: (x: TaskResult) => number) => paired.map((p) => f(p.c!) - f(p.b!));
  const meanCi = (xs: number[]): [number, number] => [
    mean(xs) - (Z * sd(xs)) / Math.sqrt(xs.length),
    mean(xs) + (Z * sd(xs)) / Math.sqrt(xs.length),
  ];
  return {
    counts: {
      paired: n,
      both_resolved: n11,
      fixed: n21,
      regressed: n12,
      both_failed: n22,
      only_baseline: count('only_baseline'),
      only_candidate: count('only_candidate'),
    },
    rate: {
      baseline: (n11 + n12) / n,
      candidate: (n11 + n21) / n,
      change: (n21 - n12) / n,
      ci: [d - Z * se, d + Z * se] as [number, number],
      p: binomialTwoSided(n21, n12),
    },
    cost: {
      baseline: mean(paired.map((p) => p.b!.cost)),
      candidate: mean(paired.map((p) => p.c!.cost)),
      change: mean(diffs((x) => x.cost)),
      ci: meanCi(diffs((x) => x.cost)),
    },
    duration: {
      baseline: mean(paired.map((p) => p.b!.duration)),
      candidate: mean(paired.map((p) => p.c!.duration)),
      change: mean(diffs((x) => x.duration)),
      ci: meanCi(diffs((x) => x.duration)),
    },
    perTask,
  };
}

// ---- the worker-like client ----

/** Claims the run with its key, reports its trials in two batches, completes it with a card. */
async function work(
  server: TestServer,
  run: Run,
  trials: SentTrial[],
  sdk: Credentials,
  traced: (i: number) => boolean,
): Promise<string[]> {
  const claim = await report(server, run.worker, run.id, { card: null, costUsd: null, error: null });
  if (claim.status !== 200) throw new Error(`claim: ${claim.status} ${claim.text}`);
  // The agent under test sends its traces through OTLP with the OpenTelemetry SDK; half of them name the run.
  const { provider, tracer } = tracerProvider(server, sdk, 'proto', 'agent-under-test');
  const traceIds: string[] = [];
  trials.forEach((x, i) => {
    if (!traced(i)) return;
    const span = tracer.startSpan(`solve ${x.taskId}`, {
      attributes: traceIds.length % 2 === 0 ? { 'tracelake.run.id': run.id } : {},
    });
    span.end();
    x.traceId = span.spanContext().traceId;
    traceIds.push(x.traceId);
  });
  await provider.forceFlush();
  await provider.shutdown();
  const wire = trials.map((x) => ({
    ...x,
    artifact: { taskId: x.taskId, attempt: x.attempt, transcript: [`tried ${x.taskId}`] },
  }));
  for (const half of [wire.slice(0, 25), wire.slice(25)]) {
    const r = await sendTrials(server, run.worker, run.id, half);
    if (r.status !== 200 || r.body.data.rejected.length > 0) throw new Error(`trials: ${r.status} ${r.text}`);
  }
  const resolved = [...byTask(trials).values()].filter((x) => x.resolved).length;
  const done = await report(server, run.worker, run.id, {
    card: { resolved, tasks: byTask(trials).size },
    costUsd: trials.reduce((a, x) => a + x.costUsd, 0),
    error: null,
  });
  if (done.status !== 200) throw new Error(`complete: ${done.status} ${done.text}`);
  return traceIds;
}

/** Within `eps` of `want`, relative past 1 (or absolute, for figures the API rounds). */
function close(t: Test, got: unknown, want: number, what: string, eps = 1e-9, absolute = false) {
  const bound = absolute ? eps : eps * Math.max(1, Math.abs(want));
  t.ok(typeof got === 'number' && Math.abs(got - want) <= bound, `${what}: ${String(got)} ≈ ${want}`);
}

function closeFigures(t: Test, got: Record<string, unknown>, want: ReturnType<typeof figures>, what: string) {
  t.equal(got.task_count, want.task_count, `${what}: tasks`);
  t.equal(got.trial_count, want.trial_count, `${what}: trials`);
  for (const k of ['resolved_rate', 'mean_cost_usd', 'mean_duration_ms', 'p95_duration_ms'] as const)
    close(t, got[k], want[k], `${what}: ${k}`);
}

function checkComparison(t: Test, got: any, want: ReturnType<typeof expectedComparison>) {
  t.same(got.tasks, want.counts, 'task counts');
  close(t, got.resolved_rate.baseline, want.rate.baseline, 'baseline resolved rate');
  close(t, got.resolved_rate.candidate, want.rate.candidate, 'candidate resolved rate');
  close(t, got.resolved_rate.change, want.rate.change, 'change in resolved rate');
  close(t, got.resolved_rate.ci95[0], want.rate.ci[0], 'its 95% interval, lower');
  close(t, got.resolved_rate.ci95[1], want.rate.ci[1], 'upper');
  close(t, got.resolved_rate.p_value, want.rate.p, 'McNemar p-value');
  for (const k of ['cost', 'duration'] as const) {
    const g = got[k === 'cost' ? 'cost_usd' : 'duration_ms'];
    // Money is answered to 10 places, durations to the microsecond.
    const eps = k === 'cost' ? 1e-10 : 5e-4;
    close(t, g.baseline_mean, want[k].baseline, `${k}: baseline mean`, eps, true);
    close(t, g.candidate_mean, want[k].candidate, `${k}: candidate mean`, eps, true);
    close(t, g.change, want[k].change, `${k}: change`, eps, true);
    close(t, g.ci95[0], want[k].ci[0], `${k}: interval, lower`, eps, true);
    close(t, g.ci95[1], want[k].ci[1], `${k}: interval, upper`, eps, true);
  }
  t.same(
    got.per_task.map((p: { task_id: string; outcome: string }) => [p.task_id, p.outcome]),
    want.perTask.map((p) => [p.task_id, p.outcome]),
    'per task outcomes',
  );
  const fixed = got.per_task.find((p: { outcome: string }) => p.outcome === 'fixed');
  const w = want.perTask.find((p) => p.task_id === fixed.task_id)!;
  t.match(fixed, { baseline_resolved: false, candidate_resolved: true });
  close(t, fixed.baseline_cost_usd, w.b!.cost, 'a task pair carries both costs');
  close(t, fixed.candidate_duration_ms, w.c!.duration, 'and both durations');
}

t.test('an experiment end to end: two runs, their figures, and the candidate against the baseline', async (t) => {
  const server = await serverFor(t);
  const root = rootCredentials(server);
  const sdk = await createKey(server, root, { name: 'agent', role: 'SDK' });
  const reader = await createKey(server, root, { name: 'dashboard', role: 'Read-Only' });

  const base = baselineTrials();
  const cand = candidateTrials();
  const baseRun = await createRun(server, root, {
    experiment: 'e2e',
    suite: 'swe-mini',
    suite_version: '1',
    config: { model: 'base-model' },
    git_branch: 'main',
  });
  const baseTraces = await work(server, baseRun, base, sdk, (i) => i % 5 === 0);
  const candRun = await createRun(server, root, {
    experiment: 'e2e',
    suite: 'swe-mini',
    suite_version: '1',
    config: { model: 'candidate-model' },
    git_branch: 'feature',
  });
  await work(server, candRun, cand, sdk, (i) => i % 9 === 0);
  const want = expectedComparison(base, cand);
  t.ok(
    want.counts.fixed > 0 && want.counts.regressed > 0,
    `the data has fixed (${want.counts.fixed}) and regressed (${want.counts.regressed}) tasks`,
  );

  await t.test("the run's traces: those its trials name, whether or not their spans name the run", async (t) => {
    const r = await call(server, 'GET', `/v1/runs/${baseRun.id}/traces?limit=100`, { auth: reader });
    t.equal(r.status, 200, r.text);
    t.same(r.body.data.map((x: { id: string }) => x.id).sort(), [...baseTraces].sort());
  });

  await t.test('the experiment list: run counts and the latest run with its figures', async (t) => {
    const r = await call(server, 'GET', '/v1/experiments', { auth: reader });
    t.equal(r.status, 200, r.text);
    const e = r.body.data.find((x: { name: string }) => x.name === 'e2e');
    t.match(e, {
      id: baseRun.experimentId,
      run_count: 2,
      baseline_run_id: null,
      latest_run: { id: candRun.id, status: 'succeeded', git_branch: 'feature' },
    });
    closeFigures(t, e.latest_run, figures(cand), 'latest run');
  });

  await t.test('the experiment: its runs over time with their figures', async (t) => {
    const r = await call(server, 'GET', `/v1/experiments/${baseRun.experimentId}`, { auth: reader });
    t.equal(r.status, 200, r.text);
    t.same(
      r.body.data.runs.map((x: { id: string; status: string }) => [x.id, x.status]),
      [
        [baseRun.id, 'succeeded'],
        [candRun.id, 'succeeded'],
      ],
      'oldest first',
    );
    closeFigures(t, r.body.data.runs[0], figures(base), 'baseline run');
    closeFigures(t, r.body.data.runs[1], figures(cand), 'candidate run');
    close(
      t,
      r.body.data.runs[0].cost_usd,
      base.reduce((a, x) => a + x.costUsd, 0),
      'the cost the worker reported',
    );
  });

  await t.test('baseline: the previous succeeded run, and the candidate against it', async (t) => {
    const r = await call(server, 'GET', `/v1/experiments/baseline?experiment_id=${baseRun.experimentId}`, {
      auth: reader,
    });
    t.equal(r.status, 200, r.text);
    t.match(r.body.data, {
      experiment_id: baseRun.experimentId,
      experiment: 'e2e',
      baseline: { id: baseRun.id, pinned: false },
      candidate: { id: candRun.id },
    });
    checkComparison(t, r.body.data.comparison, want);
    closeFigures(t, r.body.data.baseline, figures(base), 'the baseline with its figures');
    closeFigures(t, r.body.data.candidate, figures(cand), 'the candidate with its figures');
    const byRun = await call(server, 'GET', `/v1/experiments/baseline?run_id=${candRun.id}`, { auth: reader });
    t.same(byRun.body.data, r.body.data, 'a run alone names its experiment');
  });

  await t.test('a pinned baseline', async (t) => {
    const sdkPin = await call(server, 'PUT', `/v1/experiments/${baseRun.experimentId}/baseline`, {
      auth: sdk,
      body: { run_id: candRun.id },
    });
    t.equal(sdkPin.status, 403, 'pinning is an admin call');
    const pin = await call(server, 'PUT', `/v1/experiments/${baseRun.experimentId}/baseline`, {
      auth: root,
      body: { run_id: candRun.id },
    });
    t.equal(pin.status, 200, pin.text);
    const r = await call(
      server,
      'GET',
      `/v1/experiments/baseline?experiment_id=${baseRun.experimentId}&run_id=${baseRun.id}`,
      { auth: reader },
    );
    t.match(r.body.data, { baseline: { id: candRun.id, pinned: true }, candidate: { id: baseRun.id } });
    checkComparison(t, r.body.data.comparison, expectedComparison(cand, base));
    t.equal(
      (await call(server, 'GET', '/v1/experiments', { auth: reader })).body.data.find(
        (x: { name: string }) => x.name === 'e2e',
      ).baseline_run_id,
      candRun.id,
    );
    const unpinned = await call(server, 'PUT', `/v1/experiments/${baseRun.experimentId}/baseline`, {
      auth: root,
      body: { run_id: null },
    });
    t.equal(unpinned.status, 200);
    const after = await call(server, 'GET', `/v1/experiments/${baseRun.experimentId}`, { auth: reader });
    t.equal(after.body.data.baseline_run_id, null);
  });

  await t.test('only a succeeded run of the experiment can be pinned', async (t) => {
    const failed = await createRun(server, root, { experiment: 'e2e', suite: 'swe-mini' });
    await report(server, failed.worker, failed.id, {});
    await report(server, failed.worker, failed.id, { error: 'boom' });
    const r = await call(server, 'PUT', `/v1/experiments/${baseRun.experimentId}/baseline`, {
      auth: root,
      body: { run_id: failed.id },
    });
    t.equal(r.status, 409);
    t.match(r.body.error, { code: 'conflict', status: 'failed' });
    const elsewhere = await createRun(server, root, { experiment: 'another' });
    t.equal(
      (
        await call(server, 'PUT', `/v1/experiments/${baseRun.experimentId}/baseline`, {
          auth: root,
          body: { run_id: elsewhere.id },
        })
      ).status,
      404,
    );
    t.equal(
      (
        await call(server, 'PUT', `/v1/experiments/00000000-0000-4000-8000-000000000000/baseline`, {
          auth: root,
          body: { run_id: null },
        })
      ).status,
      404,
    );
    const latest = await call(server, 'GET', `/v1/experiments/baseline?experiment_id=${baseRun.experimentId}`, {
      auth: reader,
    });
    t.match(
      latest.body.data,
      { baseline: { id: baseRun.id }, candidate: { id: candRun.id } },
      'a failed run is never picked by itself',
    );
    const asked = await call(server, 'GET', `/v1/experiments/baseline?run_id=${failed.id}`, { auth: reader });
    t.match(
      asked.body.data,
      {
        baseline: { id: candRun.id },
        candidate: { id: failed.id, status: 'failed', trial_count: 0, resolved_rate: null },
      },
      'but can be asked for',
    );
    t.same(asked.body.data.comparison.tasks, {
      paired: 0,
      both_resolved: 0,
      fixed: 0,
      regressed: 0,
      both_failed: 0,
      only_baseline: 50,
      only_candidate: 0,
    });
  });

  await t.test(
    'refusals: unknown experiments and runs, a query naming neither, reads without experiment.read',
    async (t) => {
      t.equal(
        (await call(server, 'GET', '/v1/experiments/00000000-0000-4000-8000-000000000000', { auth: reader })).status,
        404,
      );
      t.equal(
        (
          await call(server, 'GET', '/v1/experiments/baseline?run_id=00000000-0000-4000-8000-000000000000', {
            auth: reader,
          })
        ).status,
        404,
      );
      const other = await createRun(server, root, { experiment: 'another' });
      const mismatch = await call(
        server,
        'GET',
        `/v1/experiments/baseline?experiment_id=${baseRun.experimentId}&run_id=${other.id}`,
        { auth: reader },
      );
      t.equal(mismatch.status, 404, 'a run of another experiment');
      const neither = await call(server, 'GET', '/v1/experiments/baseline', { auth: reader });
      t.equal(neither.status, 400);
      t.equal(neither.body.error.code, 'invalid_query_parameters');
      t.equal((await call(server, 'GET', '/v1/experiments', { auth: sdk })).status, 403);
      t.equal((await call(server, 'GET', '/v1/experiments/baseline?experiment_id=x', { auth: reader })).status, 400);
      const lone = await call(server, 'GET', `/v1/experiments/baseline?experiment_id=${other.experimentId}`, {
        auth: reader,
      });
      t.match(lone.body.data, { baseline: null, candidate: null, comparison: null }, 'nothing succeeded yet');
      await report(server, other.worker, other.id, {});
      await report(server, other.worker, other.id, { card: {} });
      const single = await call(server, 'GET', `/v1/experiments/baseline?experiment_id=${other.experimentId}`, {
        auth: reader,
      });
      t.match(
        single.body.data,
        { baseline: { id: other.id, task_count: 0, pinned: false }, candidate: null, comparison: null },
        'a lone succeeded run is the baseline',
      );
    },
  );
});
