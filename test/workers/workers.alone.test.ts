/**
 * Worker runs end to end: a real server, real `tracelake worker` processes, a real git repository
 * made here, and a fake agent (test/helpers/workers.ts) that reads its prompt, edits files, prints
 * events, and fails, hangs or floods when told to. Every wait is on the run's live stream or a
 * worker's log line.
 */
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { git, workingRepo } from '../helpers/git.js';
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
import { UNGUARDED } from '../../src/worker/agentProcess.js';
import { agentPids, fakeAgentProfiles, running, startWorker, watchRun, type TestWorker } from '../helpers/workers.js';

const ENDED = ['succeeded', 'failed', 'cancelled'];
const dir = tempDir('tracelake-workers-');
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const gitRoot = join(dir, 'git');
const repo = join(gitRoot, 'acme', 'shop');
const baseCommit = workingRepo(repo, { 'README.md': '# Shop\n', 'src/cart.ts': 'export const total = 0;\n' });
const profiles = fakeAgentProfiles(dir);
const plansFile = join(dir, 'plans.json');
writeFileSync(
  plansFile,
  JSON.stringify({
    version: 1,
    default: 'capped',
    upgrade_url: 'https://example.com/upgrade',
    plans: {
      capped: {
        max_apps: null,
        max_keys: null,
        monthly_spans: null,
        storage_bytes: null,
        agents_tier: 'full',
        max_concurrent_worker_runs: 3,
      },
    },
  }),
);

let server: TestServer;
let root: Credentials;
let workerKey: Credentials & { id: string };
let serial = 0;

/** A worker with its own work directory (a different machine, as far as workspaces go). */
function worker(name: string, args: string[] = []): TestWorker {
  return startWorker(server, workerKey, { name, gitRoot, profiles, workDir: join(dir, `work-${name}`), args });
}

async function launch(kind: 'runs' | 'sessions', body: Record<string, unknown>) {
  const answer = await call(server, 'POST', `/v1/workers/${kind}`, { auth: root, body: { profile: 'fake', ...body } });
  if (answer.status !== 201) throw new Error(`launch: ${answer.status} ${answer.text}`);
  return answer.body.data;
}

const release = () => join(dir, `release-${++serial}`);
const ended = (run: any) => ENDED.includes(run.latest_turn.status);
const idle = (run: any) => run.status === 'idle';

t.before(async () => {
  server = await serverFor(t, {
    args: ['--git-root', gitRoot, '--plans-file', plansFile],
    env: { TRACELAKE_WORKER_LEASE_SECONDS: '2', TRACELAKE_WORKER_MAX_ATTEMPTS: '2' },
  });
  root = rootCredentials(server);
  const connected = await call(server, 'POST', `/v1/apps/${root.appId}/git/connect`, {
    auth: root,
    body: { provider: 'local', repository: 'acme/shop' },
  });
  if (connected.status >= 300) throw new Error(`git connect: ${connected.text}`);
  workerKey = await createKey(server, root, { name: 'worker', role: 'Worker' });
});

t.test('capabilities report workers; a Worker key claims and does nothing else', async (t) => {
  const caps = await call(server, 'GET', '/v1/capabilities');
  t.equal(caps.body.data.features.workers, true);
  t.same(
    (await call(server, 'GET', '/v1/api-keys', { auth: root })).body.data.find((k: any) => k.id === workerKey.id)
      ?.permissions,
    [],
    'a Worker key has no permission',
  );
  const read = await call(server, 'GET', '/v1/workers/runs', { auth: workerKey });
  t.equal(read.status, 403, 'it reads no runs');
  t.equal(
    (await call(server, 'POST', '/v1/workers/runs', { auth: workerKey, body: { task_prompt: 'x' } })).status,
    403,
    'nor launches them',
  );
  const claim = await call(server, 'POST', '/v1/workers/claim', {
    auth: workerKey,
    body: { worker: 'probe', profiles: ['nobody'] },
  });
  t.same([claim.status, claim.body], [200, { data: null }], 'it claims (nothing queued for its profile)');
  const sdk = await createKey(server, root, { name: 'sdk', role: 'SDK' });
  t.equal(
    (await call(server, 'POST', '/v1/workers/claim', { auth: sdk, body: { worker: 'probe', profiles: ['fake'] } }))
      .status,
    403,
    'an SDK key cannot claim',
  );
  const bad = await call(server, 'POST', '/v1/workers/runs', { auth: root, body: { task_prompt: '' } });
  t.equal(bad.status, 400);
  t.equal(bad.body.error.code, 'invalid_request_body');
  t.ok(bad.body.error.details.task_prompt, 'the empty task_prompt is named');
});

t.test('a batch of events that is not a WorkerEventsBody is refused whole, and nothing of it is stored', async (t) => {
  const run = await launch('runs', { task_prompt: 'events by hand', profile: 'by-hand' });
  const claim = await call(server, 'POST', '/v1/workers/claim', {
    auth: workerKey,
    body: { worker: 'hand', profiles: ['by-hand'] },
  });
  t.equal(claim.body.data?.run?.id, run.id, 'claimed by hand');
  const lease: string = claim.body.data.lease_id;
  const post = (options: Parameters<typeof call>[3]) =>
    call(server, 'POST', `/v1/workers/leases/${lease}/events`, { auth: workerKey, ...options });
  const at = new Date().toISOString();
  const notJson = await post({ rawBody: '{"events":[', headers: { 'content-type': 'application/json' } });
  t.same([notJson.status, notJson.body?.error?.code], [400, 'invalid_request_body']);
  t.match(notJson.body.error.details.body, /not valid JSON/);
  const notText = await post({
    rawBody: JSON.stringify({ events: [{ seq: 0, at, kind: 'stdout', text: 'x' }] }),
    headers: { 'content-type': 'text/plain' },
  });
  t.same([notText.status, notText.body?.error?.code], [415, 'unsupported_media_type']);
  // One bad event refuses the batch: the good one beside it is not stored either.
  const oneBad = await post({
    body: {
      events: [
        { seq: 0, at, kind: 'stdout', text: 'kept?' },
        { seq: -1, at, kind: 'stdout', text: 'x' },
      ],
    },
  });
  t.same(
    [oneBad.status, oneBad.body?.error?.code, Object.keys(oneBad.body?.error?.details ?? {})],
    [400, 'invalid_request_body', ['events[1].seq']],
  );
  // The column is a 32-bit INTEGER: a seq past it was stored as NULL and failed as a 500.
  const pastInt32 = await post({ body: { events: [{ seq: 2147483648, at, kind: 'stdout', text: 'x' }] } });
  t.same(
    [pastInt32.status, Object.keys(pastInt32.body?.error?.details ?? {})],
    [400, ['events[0].seq']],
    'a seq past 2^31 - 1 is refused',
  );
  const elsewhere = await call(server, 'POST', `/v1/workers/leases/${'0'.repeat(32)}/events`, {
    auth: workerKey,
    body: { events: [{ seq: 0, at, kind: 'stdout', text: 'x' }] },
  });
  t.same([elsewhere.status, elsewhere.body?.error?.code], [404, 'not_found'], 'a lease that does not exist');
  const events = async () => (await call(server, 'GET', `/v1/workers/runs/${run.id}/events`, { auth: root })).body.data;
  t.same(await events(), [], 'nothing refused was stored');

  // A refused agent event is kept as its JSON, cut at 64 KiB: here the cut falls inside an emoji.
  const straddling = { type: 'telepathy', note: `${'x'.repeat(65535 - '{"type":"telepathy","note":"'.length)}😀 tail` };
  const batch = {
    events: [
      { seq: 0, at, kind: 'stdout', text: 'hello' },
      { seq: 1, at, kind: 'agent', event: { type: 'system', kind: 'info', text: 'start', mood: 'eager' } },
      { seq: 2, at, kind: 'agent', event: { type: 'telepathy' } },
      { seq: 3, at, kind: 'agent', event: straddling },
    ],
  };
  const stored = await post({ body: batch });
  t.same([stored.status, stored.body.data], [200, { stored: 4, cancel: false }]);
  t.same((await post({ body: batch })).body.data, { stored: 0, cancel: false }, 'a retried batch stores nothing again');
  const read = await events();
  t.same(
    read.map((e: any) => [e.seq, e.kind]),
    [
      [0, 'stdout'],
      [1, 'agent'],
      [2, 'stdout'],
      [3, 'stdout'],
    ],
    'an agent event the contract refuses is kept as a line',
  );
  t.same(
    read[1].event,
    { type: 'system', kind: 'info', text: 'start', id: 'e1', parentId: null, timestamp: at },
    'an agent event stamped, its unknown field dropped',
  );
  t.equal(read[2].text, '{"type":"telepathy"}');
  t.equal(read[3].text, JSON.stringify(straddling).slice(0, 65535), 'cut before the emoji, not inside it');
  const last = await post({ body: { events: [{ seq: 2147483647, at, kind: 'stdout', text: 'the last seq' }] } });
  t.same([last.status, last.body.data], [200, { stored: 1, cancel: false }], 'the largest seq is stored');
  const done = await call(server, 'POST', `/v1/workers/leases/${lease}/complete`, {
    auth: workerKey,
    body: { status: 'failed', reason: 'exit', exit_code: 1 },
  });
  t.equal(done.status, 200, 'the turn ends');
});

t.test('a one-shot run end to end: workspace, agent, events, checkpoint, trace', async (t) => {
  const w = worker('one');
  t.teardown(() => void w.child.kill('SIGKILL'));
  const run = await launch('runs', { task_prompt: 'Write a note about the cart\nwith details', title: 'Cart note' });
  t.match(run, {
    kind: 'oneshot',
    status: 'queued',
    profile: 'fake',
    repository: 'acme/shop',
    base_branch: 'main',
    base_commit: baseCommit,
    work_branch: `tracelake/${run.id}`,
  });
  t.equal(
    run.url.endsWith(`/#/workers/runs/${run.id}`),
    true,
    'the live thread link holds the run id and no credential',
  );
  const watch = await watchRun(server, root, run.id);
  t.teardown(() => watch.close());
  const done = await watch.untilRun(ended);
  const turn = done.turns[0];
  t.equal(done.status, 'succeeded', JSON.stringify(turn));
  t.match(turn, {
    status: 'succeeded',
    reason: 'exit',
    exit_code: 0,
    attempt: 1,
    lost_leases: 0,
    worker: 'one',
    tool_calls: 1,
    input_tokens: 2800,
    output_tokens: 350,
  });
  t.ok(turn.cost_usd > 0, `priced from the agent's usage: ${turn.cost_usd}`);
  t.match(turn.commit_sha, /^[0-9a-f]{40}$/, 'a checkpoint commit');
  t.equal(done.head_commit, turn.commit_sha);

  // The checkpoint is on the work branch of the real repository, on top of the base.
  t.equal(git(repo, 'rev-parse', `tracelake/${run.id}`), turn.commit_sha);
  t.equal(git(repo, 'rev-parse', `${turn.commit_sha}^`), baseCommit);
  t.equal(git(repo, 'show', `${turn.commit_sha}:notes/turn-0.md`), 'Write a note about the cart\nwith details');
  t.equal(git(repo, 'rev-parse', 'main'), baseCommit, 'the base branch is untouched');
  t.notOk(
    w.logs.some((l) => l.msg === UNGUARDED),
    'the agent ran guarded',
  );

  // The thread: the worker's steps, the agent's lines and structured events, in order.
  const kinds = new Set(watch.events.map((e: any) => e.kind));
  t.same([...kinds].sort(), ['agent', 'stderr', 'stdout', 'step']);
  t.ok(watch.events.some((e: any) => e.kind === 'stdout' && e.text === 'working on turn 0'));
  t.ok(watch.events.some((e: any) => e.kind === 'stderr' && e.text === 'a line on stderr'));
  t.ok(watch.events.some((e: any) => e.kind === 'agent' && e.event.type === 'tool_call' && e.event.name === 'Write'));
  t.ok(watch.events.some((e: any) => e.kind === 'step' && e.text.startsWith(`Checkpoint ${turn.commit_sha}`)));
  const cursors = watch.events.map((e: any) => e.cursor);
  t.same(
    cursors,
    [...cursors].sort((a, b) => a - b),
    'in cursor order, none twice',
  );
  t.equal(new Set(cursors).size, cursors.length);
  const page = await call(server, 'GET', `/v1/workers/runs/${run.id}/events`, { auth: root });
  t.same(
    page.body.data.map((e: any) => e.cursor),
    cursors,
    'the events read back are those streamed',
  );

  // The run's trace: a coding-agent session whose cost is the turn's.
  const trace = await call(server, 'GET', `/v1/traces/${run.trace_id}`, { auth: root });
  t.equal(trace.status, 200, trace.text.slice(0, 300));
  t.equal(trace.body.data.session_id, run.id, 'the session is the run');
  t.ok(
    Math.abs(trace.body.data.cost - turn.cost_usd) < 1e-9,
    `trace cost ${trace.body.data.cost} = turn cost ${turn.cost_usd}`,
  );
  t.equal(trace.body.data.tokens, turn.input_tokens + turn.output_tokens, 'and its tokens');
  const spans = await call(server, 'GET', `/v1/traces/${run.trace_id}/spans`, { auth: root });
  t.ok(
    spans.body.data.some((s: any) => s.type === 'TOOL' || /Write/.test(s.name)),
    'the tool call is a span',
  );
  t.equal(
    (await call(server, 'GET', `/v1/workers/runs?kind=oneshot&status=succeeded`, { auth: root })).body.data.some(
      (r: any) => r.id === run.id,
    ),
    true,
    'listed by kind and status',
  );
});

t.test('a session of three turns resumes the same workspace and branch, on the same worker', async (t) => {
  // Two workers: the session's later turns go back to the one that holds its workspace.
  const w = worker('sess');
  const other = worker('sess-other');
  t.teardown(() => {
    w.child.kill('SIGKILL');
    other.child.kill('SIGKILL');
  });
  const session = await launch('sessions', { task_prompt: 'First: start the notes' });
  const env = session.environment_id;
  const watch = await watchRun(server, root, session.id);
  t.teardown(() => watch.close());
  await watch.untilRun((r) => idle(r) && r.turns.length === 1);
  const urls: string[] = [];
  for (const prompt of ['Second: add to the notes', 'Third: finish the notes']) {
    const turn = await call(server, 'POST', `/v1/workers/environments/${env}/turns`, {
      auth: root,
      body: { task_prompt: prompt },
    });
    t.equal(turn.status, 202, turn.text);
    t.same(Object.keys(turn.body.data).sort(), ['run_id', 'turn_index', 'url']);
    t.equal(turn.body.data.run_id, session.id);
    urls.push(turn.body.data.url);
    await watch.untilRun((r) => idle(r) && r.turns.length === turn.body.data.turn_index + 1);
  }
  t.equal(new Set([session.url, ...urls]).size, 1, 'every turn links to the same thread');
  const run = (await call(server, 'GET', `/v1/workers/runs/${session.id}`, { auth: root })).body.data;
  t.same(
    run.turns.map((x: any) => [x.turn_index, x.status]),
    [
      [0, 'succeeded'],
      [1, 'succeeded'],
      [2, 'succeeded'],
    ],
  );
  t.equal(new Set(run.turns.map((x: any) => x.worker)).size, 1, `every turn on one worker (${run.turns[0].worker})`);
  const [c0, c1, c2] = run.turns.map((x: any) => x.commit_sha);
  t.equal(git(repo, 'rev-parse', `${c1}^`), c0, 'turn 1 builds on turn 0');
  t.equal(git(repo, 'rev-parse', `${c2}^`), c1, 'turn 2 builds on turn 1');
  t.equal(git(repo, 'rev-parse', `tracelake/${session.id}`), c2, 'one work branch, at the last checkpoint');
  t.same(
    git(repo, 'ls-tree', '--name-only', `${c2}:notes`).split('\n'),
    ['turn-0.md', 'turn-1.md', 'turn-2.md'],
    "the workspace kept every turn's files",
  );
  const texts = watch.events.map((e: any) => e.text);
  t.ok(
    texts.includes('resuming a conversation of 1 earlier prompts') &&
      texts.includes('resuming a conversation of 2 earlier prompts'),
    'the agent resumed its conversation',
  );
  t.equal(
    watch.events.filter((e: any) => e.kind === 'step' && /^Workspace: reused the workspace/.test(e.text)).length,
    2,
    'later turns reuse the workspace',
  );
  // Closing ends the session: no more turns.
  const closed = await call(server, 'POST', `/v1/workers/runs/${session.id}/close`, { auth: root });
  t.equal(closed.body.data.status, 'closed');
  const after = await call(server, 'POST', `/v1/workers/environments/${env}/turns`, {
    auth: root,
    body: { task_prompt: 'Fourth' },
  });
  t.equal(after.status, 404, 'no open session in the environment any more');
});

t.test('one turn at a time: 409 environment_busy, decided atomically', async (t) => {
  const session = await launch('sessions', { task_prompt: 'queued, for nobody', profile: 'nobody' });
  const env = session.environment_id;
  const busy = await call(server, 'POST', `/v1/workers/environments/${env}/turns`, {
    auth: root,
    body: { task_prompt: 'too soon' },
  });
  t.equal(busy.status, 409);
  t.equal(busy.body.error.code, 'environment_busy');
  t.equal(
    (await call(server, 'POST', `/v1/workers/runs/${session.id}/cancel`, { auth: root })).body.data.status,
    'idle',
    'the queued turn is cancelled: the session is idle',
  );
  for (let round = 0; round < 3; round++) {
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        call(server, 'POST', `/v1/workers/environments/${env}/turns`, {
          auth: root,
          body: { task_prompt: `race ${round}.${i}` },
        }),
      ),
    );
    const statuses = answers.map((a) => a.status).sort();
    t.same(statuses, [202, 409, 409, 409, 409, 409], `round ${round}: exactly one wins`);
    t.ok(answers.filter((a) => a.status === 409).every((a) => a.body.error.code === 'environment_busy'));
    await call(server, 'POST', `/v1/workers/runs/${session.id}/cancel`, { auth: root });
  }
  const run = (await call(server, 'GET', `/v1/workers/runs/${session.id}`, { auth: root })).body.data;
  t.equal(run.turns.length, 4, 'the first turn and one per round');
  await call(server, 'POST', `/v1/workers/runs/${session.id}/close`, { auth: root });
  // A launch of a second session in an environment with an open one is refused too.
  const other = await launch('sessions', { task_prompt: 'one', profile: 'nobody' });
  const second = await call(server, 'POST', '/v1/workers/sessions', {
    auth: root,
    body: { task_prompt: 'two', profile: 'nobody' },
  });
  t.equal(second.status, 409);
  await call(server, 'POST', `/v1/workers/runs/${other.id}/close`, { auth: root });
});

t.test("402 entitlement_required past the plan's runs in flight", async (t) => {
  const queued = [];
  for (let i = 0; i < 3; i++) queued.push(await launch('runs', { task_prompt: `waiting ${i}`, profile: 'nobody' }));
  const refused = await call(server, 'POST', '/v1/workers/runs', {
    auth: root,
    body: { task_prompt: 'one too many', profile: 'nobody' },
  });
  t.equal(refused.status, 402);
  t.match(refused.body.error, {
    code: 'entitlement_required',
    entitlement: 'max_concurrent_worker_runs',
    current: 3,
    limit: 3,
  });
  for (const run of queued) {
    const cancelled = await call(server, 'POST', `/v1/workers/runs/${run.id}/cancel`, { auth: root });
    t.match(
      cancelled.body.data,
      { status: 'cancelled', latest_turn: { reason: 'cancelled' } },
      'a queued turn is cancelled at once',
    );
  }
  t.equal(
    (
      await call(server, 'POST', '/v1/workers/runs', {
        auth: root,
        body: { task_prompt: 'fits again', profile: 'nobody' },
      })
    ).status,
    201,
  );
  const last = (await call(server, 'GET', '/v1/workers/runs?status=queued', { auth: root })).body.data;
  for (const run of last) await call(server, 'POST', `/v1/workers/runs/${run.id}/cancel`, { auth: root });
  const again = await call(server, 'POST', `/v1/workers/runs/${queued[0].id}/cancel`, { auth: root });
  t.equal(again.status, 409, 'nothing left to cancel');
});

t.test('a worker without a sh runs its agents unguarded, and says so', async (t) => {
  // Node and the fake agent are started by absolute path; the guard is the one thing the worker
  // starts through PATH.
  const w = startWorker(server, workerKey, {
    name: 'no-sh',
    gitRoot,
    profiles,
    workDir: join(dir, 'work-no-sh'),
    env: { PATH: join(dir, 'no-programs') },
  });
  t.teardown(() => void w.child.kill('SIGKILL'));
  const run = await launch('runs', { task_prompt: 'Write a note without a guard' });
  const watch = await watchRun(server, root, run.id);
  t.teardown(() => watch.close());
  const done = await watch.untilRun(ended);
  t.match(done.latest_turn, { status: 'succeeded', worker: 'no-sh' });
  t.match(await w.waitForLog((l) => l.msg === UNGUARDED), { run_id: run.id, turn_index: 0, reason: /ENOENT/ });
});

t.test('a failing agent fails the turn, and its work is still checkpointed', async (t) => {
  const w = worker('fails');
  t.teardown(() => void w.child.kill('SIGKILL'));
  const run = await launch('runs', { task_prompt: 'Try, then FAIL' });
  const watch = await watchRun(server, root, run.id);
  t.teardown(() => watch.close());
  const done = await watch.untilRun(ended);
  t.match(done.latest_turn, { status: 'failed', reason: 'exit', exit_code: 3, error: 'The agent exited with 3' });
  t.match(done.latest_turn.commit_sha, /^[0-9a-f]{40}$/);
});

t.test('cancel: a running turn is stopped, its agent ended', async (t) => {
  const w = worker('cancel');
  t.teardown(() => void w.child.kill('SIGKILL'));
  const run = await launch('runs', { task_prompt: `HOLD ${release()}` });
  const watch = await watchRun(server, root, run.id);
  t.teardown(() => watch.close());
  await watch.untilEvent((e) => e.text === 'holding');
  const pid = agentPids(join(dir, 'work-cancel'), run.id).agent;
  const asked = await call(server, 'POST', `/v1/workers/runs/${run.id}/cancel`, { auth: root });
  t.match(asked.body.data.latest_turn, { status: 'running', cancel_requested: true });
  const done = await watch.untilRun(ended);
  t.match(done.latest_turn, { status: 'cancelled', reason: 'cancelled' });
  t.throws(() => process.kill(pid, 0), 'the agent process is gone');
});

t.test('the output cap and the timeout stop the agent (two turns at once: --concurrency 2)', async (t) => {
  const w = worker('limits', ['--concurrency', '2']);
  t.teardown(() => void w.child.kill('SIGKILL'));
  const flood = await launch('runs', { task_prompt: 'FLOOD', profile: 'fake-short' });
  const hang = await launch('runs', { task_prompt: `HOLD ${release()}`, profile: 'fake-short' });
  const [a, b] = await Promise.all([watchRun(server, root, flood.id), watchRun(server, root, hang.id)]);
  t.teardown(() => {
    a.close();
    b.close();
  });
  const flooded = await a.untilRun(ended);
  t.match(flooded.latest_turn, {
    status: 'failed',
    reason: 'output_limit',
    error: 'The agent printed more than 4096 bytes and was stopped',
  });
  const bytes = a.events
    .filter((e: any) => e.kind === 'stdout')
    .reduce((n: number, e: any) => n + Buffer.byteLength(e.text) + 1, 0);
  t.ok(bytes <= 4096, `no more than the cap was kept (${bytes} bytes)`);
  const hung = await b.untilRun(ended);
  t.match(hung.latest_turn, {
    status: 'failed',
    reason: 'timeout',
    error: 'The agent ran past its timeout of 2 s and was stopped',
  });
  t.ok(
    Date.parse(hung.latest_turn.started_at) < Date.parse(flooded.latest_turn.finished_at),
    'the two turns ran at the same time',
  );
  t.equal(hung.latest_turn.worker, 'limits');
});

t.test(
  'a worker killed mid-turn: the lease expires, the turn is retried once, never doubled; then it fails',
  async (t) => {
    const gate = release();
    const run = await launch('runs', { task_prompt: `HOLD ${gate}` });
    const watch = await watchRun(server, root, run.id);
    t.teardown(() => watch.close());
    const a = worker('killed-a');
    await watch.untilEvent((e) => e.text === 'holding' && e.attempt === 1);
    const { agent, child } = agentPids(join(dir, 'work-killed-a'), run.id);
    t.ok(running(agent) && running(child), 'the agent and the child it started run');
    a.child.kill('SIGKILL');
    await a.exited;
    t.ok(
      await until(() => !running(agent) && !running(child), 10_000),
      "the killed worker's guard stopped its agent and the agent's child",
    );
    // Another worker takes the turn once the lease has expired.
    const b = worker('takes-over-b');
    t.teardown(() => void b.child.kill('SIGKILL'));
    await watch.untilEvent((e) => e.text === 'holding' && e.attempt === 2);
    const retried = (await call(server, 'GET', `/v1/workers/runs/${run.id}`, { auth: root })).body.data.latest_turn;
    t.match(retried, { status: 'running', attempt: 2, lost_leases: 1, worker: 'takes-over-b' });
    writeFileSync(gate, '');
    const done = await watch.untilRun(ended);
    t.match(done.latest_turn, { status: 'succeeded', attempt: 2, lost_leases: 1, worker: 'takes-over-b' });
    t.equal(
      git(repo, 'rev-list', '--count', `${baseCommit}..tracelake/${run.id}`),
      '1',
      'one checkpoint: the turn ran to its end once',
    );
    t.equal(
      watch.events.filter((e: any) => e.kind === 'step' && /^The agent exited/.test(e.text)).length,
      1,
      'one end reported',
    );
    const trace = await call(server, 'GET', `/v1/traces/${run.trace_id}/spans`, { auth: root });
    const notices = await Promise.all(
      trace.body.data
        .filter((s: any) => s.name === 'system: worker')
        .map((s: any) => call(server, 'GET', `/v1/spans/${s.id}`, { auth: root })),
    );
    t.ok(
      notices.some((n) => /1 earlier attempt of this turn ended without a report/.test(n.text)),
      'the trace says an earlier attempt was lost',
    );

    // Two lost leases (the server allows 2 attempts): the turn fails, it is not tried a third time.
    const second = await launch('runs', { task_prompt: `HOLD ${release()}` });
    const w2 = await watchRun(server, root, second.id);
    t.teardown(() => w2.close());
    const c = worker('killed-c');
    await w2.untilEvent((e) => e.text === 'holding' && e.attempt === 1);
    b.child.kill('SIGKILL');
    c.child.kill('SIGKILL');
    await Promise.all([b.exited, c.exited]);
    const d = worker('killed-d');
    await w2.untilEvent((e) => e.text === 'holding' && e.attempt === 2);
    d.child.kill('SIGKILL');
    await d.exited;
    const failed = await w2.untilRun(ended);
    t.match(failed.latest_turn, { status: 'failed', reason: 'lease_expired', attempt: 2, lost_leases: 2 });
    t.match(failed.latest_turn.error, /lease expired 2 times/);
  },
);

t.test('SIGTERM hands the running turn back; another worker finishes it', async (t) => {
  const gate = release();
  const run = await launch('runs', { task_prompt: `HOLD ${gate}` });
  const watch = await watchRun(server, root, run.id);
  t.teardown(() => watch.close());
  const a = worker('stops', ['--grace-seconds', '0']);
  await watch.untilEvent((e) => e.text === 'holding' && e.attempt === 1);
  const { agent, child } = agentPids(join(dir, 'work-stops'), run.id);
  a.child.kill('SIGTERM');
  t.equal(await a.exited, 0, 'the worker stops cleanly');
  t.ok(await until(() => !running(agent) && !running(child), 10_000), 'it stopped the agent and its child');
  t.ok(a.logs.some((l) => l.msg === 'turn handed back'));
  const back = await watch.untilRun((r) => r.latest_turn.status === 'queued' && r.latest_turn.attempt === 1);
  t.match(back.latest_turn, { attempt: 1, lost_leases: 0 }, 'handed back, not lost');
  writeFileSync(gate, '');
  const b = worker('finishes');
  t.teardown(() => void b.child.kill('SIGKILL'));
  const done = await watch.untilRun(ended);
  t.match(done.latest_turn, { status: 'succeeded', attempt: 2, lost_leases: 0, worker: 'finishes' });
  t.notOk(
    existsSync(join(dir, 'work-stops', 'runs', run.id, 'workspace', 'notes')),
    'the first worker never got to write',
  );
});
