/**
 * Eval runs claimed through the worker lease: a real server, real `tracelake worker` processes with
 * `--eval-command`, and a fake eval command written here — a small Node script that reads its
 * environment, reports trials with the key it was given, prints lines and a last JSON card line,
 * and fails or holds when its run's config says so. Waits are on worker log lines and on the run's
 * status as the API answers it.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { workingRepo } from '../helpers/git.js';
import {
  call,
  createKey,
  rootCredentials,
  serverFor,
  tempDir,
  type Credentials,
  type TestServer,
} from '../helpers/server.js';
import { until } from '../helpers/until.js';
import { fakeAgentProfiles, running, startWorker, type TestWorker } from '../helpers/workers.js';

/**
 * The fake eval command. Config: `mode` (`ok`, `fail`, `hold`), `gate` (hold: writes its pid to
 * `<gate>.pid`, then waits until this file exists), `out` (a file it writes its environment to, for
 * the test to read).
 */
const FAKE_EVAL = `
import { existsSync, writeFileSync } from 'node:fs';
const env = process.env;
const config = JSON.parse(env.TRACELAKE_EVAL_CONFIG);
if (config.out) writeFileSync(config.out, JSON.stringify({ key: env.TRACELAKE_API_KEY, run: env.TRACELAKE_EVAL_RUN_ID, suite: env.TRACELAKE_EVAL_SUITE, version: env.TRACELAKE_EVAL_SUITE_VERSION, app: env.TRACELAKE_APP_ID, readme: existsSync('README.md'), cwd: process.cwd() }));
console.log('evaluating ' + env.TRACELAKE_EVAL_SUITE + ' for run ' + env.TRACELAKE_EVAL_RUN_ID);
const trials = ['t1', 't2'].map((taskId, i) => ({ taskId, resolved: i === 0, costUsd: 0.25, durationMs: 1000, artifact: { taskId } }));
const res = await fetch(env.TRACELAKE_URL + '/v1/evals/trials', {
  method: 'POST',
  headers: { authorization: 'Bearer ' + env.TRACELAKE_API_KEY, 'x-service-app-id': env.TRACELAKE_APP_ID, 'content-type': 'application/json' },
  body: JSON.stringify({ evalRunId: env.TRACELAKE_EVAL_RUN_ID, schemaVersion: 1, trials }),
});
console.error('trials answered ' + res.status);
if (config.mode === 'hold') {
  writeFileSync(config.gate + '.pid', String(process.pid));
  console.log('holding');
  await new Promise((resolve) => { const t = setInterval(() => { if (existsSync(config.gate)) { clearInterval(t); resolve(); } }, 50); });
}
if (config.mode === 'fail') { console.error('the suite broke'); process.exit(3); }
console.log(JSON.stringify({ resolved_rate: 0.5, tasks: 2, costUsd: 0.5 }));
`;

const dir = tempDir('tracelake-worker-evals-');
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const gitRoot = join(dir, 'git');
const baseCommit = workingRepo(join(gitRoot, 'acme', 'shop'), { 'README.md': '# Shop\n' });
const profiles = fakeAgentProfiles(dir);
const evalScript = join(dir, 'fake-eval.mjs');
writeFileSync(evalScript, FAKE_EVAL);

let server: TestServer;
let root: Credentials;
let workerKey: Credentials;
let serial = 0;
const fresh = (what: string) => join(dir, `${what}-${++serial}`);

function worker(
  name: string,
  args: string[] = ['--eval-command', JSON.stringify([process.execPath, evalScript])],
): TestWorker {
  return startWorker(server, workerKey, { name, gitRoot, profiles, workDir: join(dir, `work-${name}`), args });
}

async function createEvalRun(config: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const r = await call(server, 'POST', '/v1/evals/runs', {
    auth: root,
    body: { experiment: 'worker-evals', suite: 'fake-suite', suite_version: '1.0', config, ...extra },
  });
  if (r.status !== 201) throw new Error(`eval run: ${r.status} ${r.text}`);
  return r.body.data;
}

const readRun = async (id: string) => (await call(server, 'GET', `/v1/evals/runs/${id}`, { auth: root })).body.data;

/** Waits until the run's status is one of `statuses` (asked again each time the server answers). */
async function untilStatus(id: string, statuses: string[], ms = 30_000): Promise<any> {
  const deadline = Date.now() + ms;
  for (;;) {
    const run = await readRun(id);
    if (statuses.includes(run.status)) return run;
    if (Date.now() > deadline) throw new Error(`eval run ${id}: still ${run.status} after ${ms} ms`);
    await new Promise((r) => setImmediate(r));
  }
}

const ended = (id: string) => (l: { msg: string; eval_run_id?: unknown }) =>
  l.eval_run_id === id && /^eval run /.test(l.msg) && l.msg !== 'eval run claimed';

/**
 * Waits for the worker's last word on run `id` and checks that it reported the run: a run whose
 * lease was lost meanwhile (a heartbeat later than the lease, on a loaded machine) stays running
 * until the gateway's sweep fails it, and the assertions after would fail without saying why.
 */
async function reported(t: Test, w: TestWorker, id: string): Promise<void> {
  const end = await w.waitForLog(ended(id));
  t.equal(end.msg, 'eval run reported', `the worker reported the run (its last word: ${JSON.stringify(end)})`);
}

t.before(async () => {
  // Short leases, so that a killed worker's run fails within seconds; 4 s rather than 2: in a CI run
  // a run read `running` after its worker's last word — a lost lease, most likely: with
  // 2 s, a heartbeat (a third of the lease) 1.3 s late loses it.
  server = await serverFor(t, { args: ['--git-root', gitRoot], env: { TRACELAKE_WORKER_LEASE_SECONDS: '4' } });
  root = rootCredentials(server);
  const connected = await call(server, 'POST', `/v1/apps/${root.appId}/git/connect`, {
    auth: root,
    body: { provider: 'local', repository: 'acme/shop' },
  });
  if (connected.status >= 300) throw new Error(`git connect: ${connected.text}`);
  workerKey = await createKey(server, root, { name: 'worker', role: 'Worker' });
});

t.test(
  'an eval run is claimed by a worker, reports its trials, and succeeds with its card; the minted key is revoked after',
  async (t) => {
    const out = fresh('env');
    const run = await createEvalRun({ mode: 'ok', out }, { git_commit: baseCommit });
    const w = worker('evals-ok');
    t.teardown(() => void w.child.kill('SIGKILL'));
    await reported(t, w, run.id);
    const done = await readRun(run.id);
    t.match(done, {
      status: 'succeeded',
      card: { resolved_rate: 0.5, tasks: 2, costUsd: 0.5 },
      cost_usd: 0.5,
      error: null,
    });
    const trials = await call(server, 'GET', `/v1/evals/runs/${run.id}/trials`, { auth: root });
    t.same(
      trials.body.data.map((x: any) => x.task_id).sort(),
      ['t1', 't2'],
      'the trials the command reported are stored',
    );

    const seen = JSON.parse(readFileSync(out, 'utf8'));
    t.match(
      seen,
      { run: run.id, suite: 'fake-suite', version: '1.0', app: root.appId, readme: true },
      "the command ran in a checkout of the run's commit, told of its run",
    );
    t.not(seen.key, run.api_key.plaintext_key, 'with a key minted at the claim, not the creation key');
    t.equal(seen.cwd, join(dir, 'work-evals-ok', 'evals', run.id), "the checkout is in the worker's work directory");
    t.ok(await until(() => !existsSync(seen.cwd)), 'and removed after the run (just after its report)');
    const again = await call(server, 'POST', '/v1/evals/trials', {
      auth: { key: seen.key, appId: root.appId },
      body: {
        evalRunId: run.id,
        schemaVersion: 1,
        trials: [{ taskId: 't3', resolved: true, costUsd: 0, durationMs: 1, artifact: {} }],
      },
    });
    t.equal(again.status, 401, 'the minted key is revoked with the run');
    t.match(again.body.error, { code: 'unauthorized', message: /revoked/ });
    const creation = await call(server, 'POST', `/v1/evals/runs/${run.id}/status`, {
      auth: { key: run.api_key.plaintext_key, appId: root.appId },
      body: {},
    });
    t.equal(creation.status, 401, 'and so is the creation key');
    const keys = (await call(server, 'GET', '/v1/api-keys', { auth: root })).body.data.filter(
      (k: any) => k.name === 'eval run' && k.revoked_at !== null,
    );
    t.ok(keys.length >= 2, 'both keys are listed, revoked');

    const events = await call(server, 'GET', `/v1/workers/runs/${run.id}/events`, { auth: root });
    t.equal(events.status, 200, events.text.slice(0, 300));
    const texts = events.body.data.map((e: any) => e.text);
    t.ok(texts.includes(`evaluating fake-suite for run ${run.id}`), "its stdout lines are the lease's events");
    t.ok(texts.includes('trials answered 200'), 'and its stderr lines');
    t.ok(
      texts.some((x: string) => /^Directory: checked out acme\/shop/.test(x)),
      "and the worker's steps",
    );
  },
);

t.test('a failing eval command fails the run with the reason', async (t) => {
  const out = fresh('env');
  const run = await createEvalRun({ mode: 'fail', out });
  const w = worker('evals-fail');
  t.teardown(() => void w.child.kill('SIGKILL'));
  await reported(t, w, run.id);
  const { cwd } = JSON.parse(readFileSync(out, 'utf8'));
  t.equal(
    cwd,
    join(dir, 'work-evals-fail', 'evals', run.id),
    "a run without a checkout gets an empty directory in the worker's work directory too (not the machine's temp dir, where a killed worker would leave it)",
  );
  t.ok(await until(() => !existsSync(cwd)), 'removed after the run');
  const done = await readRun(run.id);
  t.match(done, { status: 'failed', error: 'The eval command exited with 3', card: null });
  t.equal(
    (await call(server, 'GET', `/v1/evals/runs/${run.id}/trials`, { auth: root })).body.data.length,
    2,
    'the trials it reported before failing are kept',
  );
});

t.test(
  'one claim per run: a run claimed with its own key is not handed out; a run a worker holds is 409 to its key',
  async (t) => {
    const own = await createEvalRun({ mode: 'ok' });
    const byKey = await call(server, 'POST', `/v1/evals/runs/${own.id}/status`, {
      auth: { key: own.api_key.plaintext_key, appId: root.appId },
      body: {},
    });
    t.equal(byKey.status, 200, 'claimed with its own key');
    const gate = fresh('gate');
    const held = await createEvalRun({ mode: 'hold', gate });
    const w = worker('evals-race');
    t.teardown(() => void w.child.kill('SIGKILL'));
    await w.waitForLog((l) => l.msg === 'eval run claimed' && l.eval_run_id === held.id);
    const refused = await call(server, 'POST', `/v1/evals/runs/${held.id}/status`, {
      auth: { key: held.api_key.plaintext_key, appId: root.appId },
      body: {},
    });
    t.equal(refused.status, 409, 'the run key cannot claim a run the worker holds');
    t.match(refused.body.error, { code: 'conflict', status: 'running' });
    writeFileSync(gate, '');
    await reported(t, w, held.id);
    t.equal((await readRun(held.id)).status, 'succeeded');
    t.notOk(
      w.logs.some((l) => l.eval_run_id === own.id),
      'the run claimed with its own key never reached the worker',
    );
    t.match(await readRun(own.id), { status: 'running', card: null });
    await call(server, 'POST', `/v1/evals/runs/${own.id}/status`, {
      auth: { key: own.api_key.plaintext_key, appId: root.appId },
      body: { error: 'done with it' },
    });
  },
);

t.test(
  'a worker killed mid-run: its command is stopped, the lease expires and the run fails with lease_expired',
  async (t) => {
    const gate = fresh('never');
    const run = await createEvalRun({ mode: 'hold', gate });
    const w = worker('evals-killed');
    await w.waitForLog((l) => l.msg === 'eval run claimed' && l.eval_run_id === run.id);
    t.equal((await readRun(run.id)).status, 'running');
    await untilTrials(run.id, 2);
    t.ok(
      await until(() => existsSync(`${gate}.pid`) && readFileSync(`${gate}.pid`, 'utf8') !== ''),
      'the command holds',
    );
    const command = Number(readFileSync(`${gate}.pid`, 'utf8'));
    t.ok(running(command));
    w.child.kill('SIGKILL');
    await w.exited;
    t.ok(await until(() => !running(command), 10_000), "the killed worker's guard stopped the eval command");
    const failed = await untilStatus(run.id, ['failed', 'succeeded']);
    t.match(failed, { status: 'failed', error: 'lease_expired' });
    t.equal(
      (await call(server, 'GET', `/v1/evals/runs/${run.id}/trials`, { auth: root })).body.data.length,
      2,
      'the trials reported before are kept',
    );
  },
);

t.test('SIGTERM: the command gets the grace, then the run fails with worker stopped', async (t) => {
  const run = await createEvalRun({ mode: 'hold', gate: fresh('never') });
  const w = worker('evals-stopped', [
    '--eval-command',
    JSON.stringify([process.execPath, evalScript]),
    '--grace-seconds',
    '0',
  ]);
  await w.waitForLog((l) => l.msg === 'eval run claimed' && l.eval_run_id === run.id);
  // The command holds once its trials are in: wait for them, so the stop finds it running.
  await untilTrials(run.id, 2);
  w.child.kill('SIGTERM');
  t.equal(await w.exited, 0, 'the worker stops cleanly');
  t.ok(w.logs.some((l) => l.msg === 'eval run released' && l.eval_run_id === run.id));
  t.match(await readRun(run.id), { status: 'failed', error: 'worker stopped' });
});

async function untilTrials(id: string, n: number, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while ((await call(server, 'GET', `/v1/evals/runs/${id}/trials`, { auth: root })).body.data.length < n) {
    if (Date.now() > deadline) throw new Error(`eval run ${id}: fewer than ${n} trials after ${ms} ms`);
    await new Promise((r) => setImmediate(r));
  }
}

t.test('a worker without --eval-command never gets eval runs; its turns still run', async (t) => {
  const run = await createEvalRun({ mode: 'ok' });
  const w = worker('turns-only', []);
  t.teardown(() => void w.child.kill('SIGKILL'));
  const launched = await call(server, 'POST', '/v1/workers/runs', {
    auth: root,
    body: { task_prompt: 'Write a note', profile: 'fake' },
  });
  t.equal(launched.status, 201, launched.text);
  // The eval run was queued first: a worker taking eval runs would have claimed it before the turn.
  await w.waitForLog((l) => l.msg === 'turn reported' && l.run_id === launched.body.data.id);
  t.equal(
    (await call(server, 'GET', `/v1/workers/runs/${launched.body.data.id}`, { auth: root })).body.data.status,
    'succeeded',
  );
  t.notOk(
    w.logs.some((l) => l.msg === 'eval run claimed'),
    'no eval run was claimed',
  );
  t.match(await readRun(run.id), { status: 'queued', claimed_at: null });
  t.notOk(existsSync(join(dir, 'work-turns-only', 'evals')), 'nothing was checked out for it');
  // Out of the queue, so no later worker takes it.
  const key = { key: run.api_key.plaintext_key, appId: root.appId };
  await call(server, 'POST', `/v1/evals/runs/${run.id}/status`, { auth: key, body: {} });
  await call(server, 'POST', `/v1/evals/runs/${run.id}/status`, { auth: key, body: { error: 'not needed' } });
});
