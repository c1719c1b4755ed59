/**
 * The prompts, experiments and agent sessions pages of the web UI in Debian's headless Chromium
 * (playwright-core), against a server seeded through its API: prompt versions by `POST /v1/prompts`
 * and spans naming them through the OpenTelemetry SDK, three eval runs with their trials reported
 * with the runs' own keys, and a coding-agent sync body. Each page must show what the test sent (or
 * computed from it), open from the keyboard, and answer its deep link. Screenshots as ui.test.ts.
 */
import t from 'tap';
import { mkdirSync } from 'node:fs';
import { SpanStatusCode, context, trace } from '@opentelemetry/api';
import { createRun, report, sendTrials, trial } from '../evals/helpers.js';
import { tracerProvider } from '../helpers/otel.js';
import { countIs, openPage, withoutChromium } from '../helpers/chromium.js';
import { call, rootCredentials, serverFor, type Credentials, type TestServer } from '../helpers/server.js';

const SHOTS = new URL(
  process.env.TRACELAKE_UPDATE_SCREENSHOTS === '1' ? '../../../docs/screenshots/' : '../../../.tap/screenshots/',
  import.meta.url,
).pathname;

/** The UI's money format for amounts of a cent or more. */
const dollars = (v: number) => `$${v.toFixed(4)}`;
const thousands = (v: number) => v.toLocaleString('en-US');

async function ok<T extends { status: number; text: string }>(answer: Promise<T>, status = 200): Promise<T> {
  const a = await answer;
  if (a.status !== status) throw new Error(`${a.status}: ${a.text}`);
  return a;
}

// ---- prompts ----

async function seedPrompts(server: TestServer, root: Credentials) {
  const create = (body: Record<string, unknown>) => ok(call(server, 'POST', '/v1/prompts', { auth: root, body }), 201);
  await create({
    name: 'support/answer',
    prompt: [
      { role: 'system', content: 'You answer questions about {{product}}.' },
      { role: 'user', content: '{{question}}' },
    ],
    config: { model: 'gpt-4o', temperature: 0.2 },
    labels: ['staging'],
    commit_message: 'first draft',
  });
  await create({
    name: 'support/answer',
    prompt: [
      { role: 'system', content: 'You answer questions about {{product}}, kindly and briefly.' },
      { role: 'user', content: '{{question}}' },
    ],
    config: { model: 'gpt-4o', temperature: 0.2 },
    labels: ['production'],
    commit_message: 'friendlier tone',
  });
  await create({ name: 'summarize', prompt: 'Summarize in {{words}} words:\n{{text}}', labels: ['production'] });

  // Generations naming the versions: two of version 1, three of version 2, each in a trace of its own.
  const uses = [
    { version: 1, input: 300, output: 40 },
    { version: 1, input: 320, output: 60 },
    { version: 2, input: 310, output: 50 },
    { version: 2, input: 330, output: 70 },
    { version: 2, input: 290, output: 30 },
  ];
  const { provider, tracer } = tracerProvider(server, root, 'proto', 'support-bot');
  const now = Date.now();
  const spans: string[] = [];
  uses.forEach((u, i) => {
    const at = now - (30 - i) * 60_000;
    // An AGENT root, as instrumented apps have: not a coding-agent session for the agents page.
    const rootSpan = tracer.startSpan('support-turn', {
      startTime: at,
      attributes: { 'openinference.span.kind': 'AGENT' },
    });
    const gen = tracer.startSpan(
      'chat gpt-4o',
      {
        startTime: at + 10,
        attributes: {
          'gen_ai.operation.name': 'chat',
          'gen_ai.request.model': 'gpt-4o',
          'gen_ai.usage.input_tokens': u.input,
          'gen_ai.usage.output_tokens': u.output,
          'tracelake.prompt.name': 'support/answer',
          'tracelake.prompt.version': u.version,
        },
      },
      trace.setSpan(context.active(), rootSpan),
    );
    gen.setStatus({ code: SpanStatusCode.OK });
    gen.end(at + 510);
    rootSpan.end(at + 600);
    spans.push(gen.spanContext().spanId);
  });
  await provider.forceFlush();
  await provider.shutdown();
  await ok(
    call(server, 'POST', '/v1/scores', { auth: root, body: { name: 'accuracy', resource_id: spans[2], score: 0.75 } }),
    201,
  );
  await ok(
    call(server, 'POST', '/v1/scores', { auth: root, body: { name: 'accuracy', resource_id: spans[3], score: 0.25 } }),
    201,
  );
  const sum = (v: number, k: 'input' | 'output') => uses.filter((u) => u.version === v).reduce((n, u) => n + u[k], 0);
  return {
    v1: { input: sum(1, 'input'), output: sum(1, 'output') },
    v2: { input: sum(2, 'input'), output: sum(2, 'output') },
  };
}

// ---- experiments ----

const TASKS = ['t1', 't2', 't3', 't4', 't5', 't6', 't7', 't8'];
/** Which tasks each run resolved: B fixes t6 and t7 and regresses t5 against A; C fixes t5 against B. */
const RESOLVED: Record<'A' | 'B' | 'C', string[]> = {
  A: ['t1', 't2', 't3', 't4', 't5'],
  B: ['t1', 't2', 't3', 't4', 't6', 't7'],
  C: ['t1', 't2', 't3', 't4', 't5', 't6', 't7'],
};
const COST: Record<'A' | 'B' | 'C', number> = { A: 0.02, B: 0.015, C: 0.012 };

async function seedExperiment(server: TestServer, root: Credentials) {
  const ids: Record<string, string> = {};
  let experimentId = '';
  for (const [name, branch] of [
    ['A', 'main'],
    ['B', 'cheaper-model'],
    ['C', 'main'],
  ] as const) {
    const run = await createRun(server, root, {
      experiment: 'checkout-agent',
      suite: 'swe-mini',
      suite_version: '3',
      git_branch: branch,
      git_commit: name.toLowerCase().repeat(40),
    });
    await ok(report(server, run.worker, run.id, {}));
    const trials = TASKS.map((task, i) =>
      trial(task, {
        resolved: RESOLVED[name].includes(task),
        costUsd: COST[name],
        durationMs: 1000 + (name === 'B' ? 100 * i : 0),
      }),
    );
    const sent = await ok(sendTrials(server, run.worker, run.id, trials));
    if (sent.body.data.accepted.length !== TASKS.length) throw new Error(`trials: ${sent.text}`);
    await ok(
      report(server, run.worker, run.id, { card: { summary: `run ${name}` }, costUsd: COST[name] * TASKS.length }),
    );
    ids[name] = run.id;
    experimentId = run.experimentId;
  }
  return { experimentId, runs: ids as Record<'A' | 'B' | 'C', string> };
}

// ---- agent sessions ----

interface Usage {
  model: string;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheCreationTokens: number;
}

/** USD per million tokens (data/pricing.json): input, output, cached input. */
const PRICES: Record<string, [number, number, number]> = {
  'claude-sonnet-4-5-20250929': [3, 15, 0.3],
  'claude-haiku-4-5-20251001': [1, 5, 0.1],
  'gpt-5-codex': [1.25, 10, 0.125],
};

/** A generation's tokens and cost as the docs say: the whole prompt is input + cache reads + writes; writes priced as input. */
function figures(u: Usage) {
  const [input, output, cached] = PRICES[u.model]!;
  const prompt = u.inputTokens + u.cacheReadTokens + u.cacheCreationTokens;
  return {
    tokens: prompt + u.outputTokens,
    cost: ((prompt - u.cacheReadTokens) * input + u.cacheReadTokens * cached + u.outputTokens * output) / 1e6,
  };
}

function agentSession(id: string, agent: string, title: string, startMs: number, answers: Usage[]) {
  const at = (s: number) => new Date(startMs + s * 1000).toISOString();
  const events: Record<string, unknown>[] = [
    { id: 'u1', timestamp: at(0), type: 'user_message', content: [{ type: 'text', text: `${title}, please.` }] },
  ];
  answers.forEach((u, i) => {
    const { model, ...usage } = u;
    events.push({
      id: `a${i}`,
      timestamp: at(10 + i * 20),
      type: 'assistant_message',
      model,
      content: [{ type: 'text', text: `Step ${i + 1}.` }],
      usage,
      stopReason: 'tool_use',
    });
    events.push({
      id: `c${i}`,
      timestamp: at(11 + i * 20),
      type: 'tool_call',
      callId: `call-${i}`,
      name: 'Bash',
      input: { command: `npm test -- step ${i}` },
    });
    events.push({
      id: `r${i}`,
      timestamp: at(15 + i * 20),
      type: 'tool_result',
      callId: `call-${i}`,
      content: [{ type: 'text', text: 'ok' }],
      isError: false,
    });
  });
  return {
    id,
    agent: { name: agent, version: '1.0.0' },
    startedAt: at(0),
    endedAt: at(20 * answers.length + 5),
    title,
    cwd: '/home/dev/shop',
    git: { repository: 'git@github.com:acme/shop.git', branch: 'feature/prices', commit: null },
    events,
  };
}

const CLAUDE: Usage[] = [
  {
    model: 'claude-sonnet-4-5-20250929',
    inputTokens: 1200,
    outputTokens: 800,
    cacheReadTokens: 20000,
    cacheCreationTokens: 5000,
  },
  {
    model: 'claude-haiku-4-5-20251001',
    inputTokens: 3000,
    outputTokens: 2000,
    cacheReadTokens: 0,
    cacheCreationTokens: 0,
  },
  {
    model: 'claude-sonnet-4-5-20250929',
    inputTokens: 500,
    outputTokens: 1500,
    cacheReadTokens: 26000,
    cacheCreationTokens: 0,
  },
];
const CODEX: Usage[] = [
  { model: 'gpt-5-codex', inputTokens: 4000, outputTokens: 1000, cacheReadTokens: 4000, cacheCreationTokens: 0 },
];
const CLAUDE_ID = '3f2a9c1e-7b4d-4e21-9a0c-5d8e6f1b2c34';
const CODEX_ID = '9b1e4d2c-1111-4c3b-8f5e-0a2b3c4d5e6f';

async function seedAgents(server: TestServer, root: Credentials) {
  const now = Date.now();
  const body = {
    schemaVersion: 1,
    sessions: [
      agentSession(CLAUDE_ID, 'claude-code', 'Fix rounding in cart totals', now - 50 * 60_000, CLAUDE),
      agentSession(CODEX_ID, 'codex', 'Add a CSV export', now - 40 * 60_000, CODEX),
    ],
    blobs: [],
  };
  const r = await ok(call(server, 'POST', '/v1/agents/sync', { auth: root, body }));
  if (r.body.data.accepted.length !== 2) throw new Error(`agents sync: ${r.text}`);
}

/** Tokens and cost per model of some generations, as the test computes them. */
function byModel(usages: Usage[]) {
  const out = new Map<string, { tokens: number; cost: number; count: number }>();
  for (const u of usages) {
    const f = figures(u);
    const m = out.get(u.model) ?? { tokens: 0, cost: 0, count: 0 };
    out.set(u.model, { tokens: m.tokens + f.tokens, cost: m.cost + f.cost, count: m.count + 1 });
  }
  return out;
}

t.setTimeout(360_000);

t.test(
  'prompts, experiments and agent sessions in headless Chromium',
  {
    skip: withoutChromium,
  },
  async (t) => {
    mkdirSync(SHOTS, { recursive: true });
    const server = await serverFor(t);
    const root = rootCredentials(server);
    const promptUse = await seedPrompts(server, root);
    const experiment = await seedExperiment(server, root);
    await seedAgents(server, root);

    const { page, pageErrors } = await openPage(t, { width: 1440, height: 1000 });
    const foreign: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith(server.url) && !r.url().startsWith('data:')) foreign.push(r.url());
    });
    const shot = (name: string) => page.screenshot({ path: `${SHOTS}${name}.png`, fullPage: true });

    await page.goto(`${server.url}/#/prompts`);
    await page.getByLabel('API key or session token').fill(root.key);
    await page.getByLabel('App id').fill(root.appId);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const prompts = page.locator('table[aria-label="Prompts"] tbody tr[data-id]');
    await prompts.first().waitFor();

    await t.test('the navigation offers the three areas', async (t) => {
      t.same(await page.locator('nav.top a').allTextContents(), [
        'Tracelake',
        'Traces',
        'Spans',
        'Sessions',
        'Scores',
        'Agents',
        'Prompts',
        'Experiments',
        'Dashboard',
        'Workers',
      ]);
      t.equal(
        await page.locator('nav.top a.current').textContent(),
        'Prompts',
        'the deep link signed in lands on its page',
      );
    });

    await t.test('prompts: the list, then a prompt from the keyboard', async (t) => {
      t.same(
        await prompts.evaluateAll((rows) => rows.map((r) => r.getAttribute('data-id'))),
        ['summarize', 'support/answer'],
        'by name',
      );
      const answer = page.locator('tr[data-id="support/answer"]');
      t.match(await answer.textContent(), /chat/);
      t.same(
        await answer.locator('.label').allTextContents(),
        ['production v2', 'staging v1', 'latest v2'],
        'where each label points',
      );
      t.match(await answer.textContent(), /product, question/, 'the variables');
      await shot('prompts');
      const label = page.getByLabel('Only prompts with the label');
      await label.fill('staging');
      await label.press('Enter');
      await page.waitForURL(/label=staging/);
      await countIs(page, 'table[aria-label="Prompts"] tbody tr[data-id]', 1);
      t.equal(
        await prompts.first().getAttribute('data-id'),
        'support/answer',
        'only the prompt with a staging version',
      );
      await label.fill('');
      await label.press('Enter');
      await countIs(page, 'table[aria-label="Prompts"] tbody tr[data-id]', 2);
      await page.locator('table[aria-label="Prompts"]').focus();
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('Enter');
      await page.waitForURL(/#\/prompts\/support%2Fanswer$/);
      const versions = page.locator('table[aria-label="Versions"] tbody tr[data-id]');
      await countIs(page, 'table[aria-label="Versions"] tbody tr[data-id]', 2);
      await page.locator('.prompt-version h3', { hasText: 'v2' }).waitFor();
      t.same(
        await versions.evaluateAll((rows) => rows.map((r) => r.getAttribute('data-id'))),
        ['2', '1'],
        'newest first',
      );
      // Usage of each version, from the spans that named it.
      await page.locator('table[aria-label="Versions"] tr[data-id="2"] td', { hasText: 'accuracy' }).waitFor();
      const v2 = await versions.nth(0).locator('td').allTextContents();
      t.equal(v2[2], '3', 'v2: three spans');
      t.equal(v2[3], '3', 'in three traces');
      t.equal(v2[4], `${thousands(promptUse.v2.input)} / ${thousands(promptUse.v2.output)}`, 'v2 tokens in / out');
      t.match(v2[6], /500 ms · 500 ms · 500 ms/, 'latency avg, p50, p95');
      t.equal(v2[7], 'accuracy 0.50 (2)', 'the average of the scores given to its spans');
      const v1 = await versions.nth(1).locator('td').allTextContents();
      t.equal(v1[2], '2');
      t.equal(v1[4], `${thousands(promptUse.v1.input)} / ${thousands(promptUse.v1.output)}`);
      t.same(await versions.nth(1).locator('.label').allTextContents(), ['staging v1']);
      // The opened version: template with its variables marked, configuration, origin.
      const detail = page.locator('.prompt-version');
      t.same(await detail.locator('.role').allTextContents(), ['system', 'user']);
      t.same(await detail.locator('section[aria-label="Template"] mark.var').allTextContents(), [
        '{{product}}',
        '{{question}}',
      ]);
      t.match(await detail.textContent(), /friendlier tone/, 'the commit message');
      t.match(await detail.locator('section[aria-label="Configuration"]').textContent(), /"temperature": 0.2/);
      // Rendering: a missing variable is the server's 400, named; then the rendered messages.
      await detail.locator('input[name="product"]').fill('Tracelake');
      await detail.getByRole('button', { name: 'Render v2' }).click();
      t.match(
        await detail.getByRole('alert').textContent(),
        /variables\.question is required/,
        'the missing variable, as the API names it',
      );
      await detail.locator('input[name="question"]').fill('How do I rotate a key?');
      await detail.getByRole('button', { name: 'Render v2' }).click();
      const rendered = detail.locator('section[aria-label="Rendered"]');
      await rendered.waitFor();
      t.same(await rendered.locator('.bubble p').allTextContents(), [
        'You answer questions about Tracelake, kindly and briefly.',
        'How do I rotate a key?',
      ]);
      await shot('prompt');
      // Another version from the keyboard, and back by deep link.
      await page.locator('table[aria-label="Versions"]').focus();
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('Enter');
      await page.waitForURL(/version=1/);
      await page.locator('.prompt-version h3', { hasText: 'v1' }).waitFor();
      t.equal(
        await detail.locator('section[aria-label="Template"] .bubble p').first().textContent(),
        'You answer questions about {{product}}.',
        'version 1 as it was written',
      );
      t.same(await detail.locator('h3 .label').allTextContents(), ['staging']);
      await page.goto(`${server.url}/#/prompts/summarize`);
      await page.locator('.prompt-version pre.template').waitFor();
      t.equal(
        await page.locator('.prompt-version pre.template').textContent(),
        'Summarize in {{words}} words:\n{{text}}',
        'a text prompt, by deep link',
      );
      await page.goto(`${server.url}/#/prompts/nope`);
      t.match(await page.getByRole('alert').textContent(), /No prompt nope/);
    });

    await t.test('experiments: runs over time, and a run against its baseline', async (t) => {
      await page.goto(`${server.url}/#/experiments`);
      const row = page.locator(`table[aria-label="Experiments"] tr[data-id="${experiment.experimentId}"]`);
      await row.waitFor();
      const cells = await row.locator('td').allTextContents();
      t.equal(cells[0], 'checkout-agent');
      t.equal(cells[1], '3', 'three runs');
      t.equal(cells[3], 'succeeded');
      t.equal(cells[6], `${((RESOLVED.C.length / TASKS.length) * 100).toFixed(1)}%`, 'the latest run resolved 7 of 8');
      await page.locator('table[aria-label="Experiments"]').focus();
      await page.keyboard.press('Enter');
      await page.waitForURL(new RegExp(`#/experiments/${experiment.experimentId}$`));
      await countIs(page, 'figure.chart canvas', 3);
      const rate = page.locator('figure.chart', { hasText: 'Resolved rate by run' });
      t.match(await rate.locator('.u-legend').textContent(), /resolved rate/, 'the resolved rate, one point per run');
      const runs = page.locator('table[aria-label="Runs"] tbody tr[data-id]');
      t.same(
        await runs.evaluateAll((rows) => rows.map((r) => r.getAttribute('data-id'))),
        [experiment.runs.C, experiment.runs.B, experiment.runs.A],
        'newest first',
      );
      t.same(
        await runs.evaluateAll((rows) => rows.map((r) => r.children[7]!.textContent)),
        (['C', 'B', 'A'] as const).map((n) => `${((RESOLVED[n].length / TASKS.length) * 100).toFixed(1)}%`),
        "each run's resolved rate",
      );
      await shot('experiment');

      // Run B against the run before it (A), not against the latest (C).
      await page.locator(`tr[data-id="${experiment.runs.B}"]`).click();
      await page.waitForURL(new RegExp(`#/experiments/${experiment.experimentId}/runs/${experiment.runs.B}$`));
      const figures = page.locator('.figures');
      await figures.waitFor();
      t.match(
        await page.locator('.run-facts').nth(1).textContent(),
        new RegExp(`Baseline \\(the succeeded run before\\).*${experiment.runs.A.slice(0, 8)}`),
        'the baseline is run A',
      );
      const rateFigure = page.locator('.figure[aria-label="Resolved rate"]');
      t.equal(await rateFigure.locator('.values').textContent(), '62.5% → 75.0%', '5 of 8 resolved, then 6 of 8');
      t.equal(await rateFigure.locator('.change').textContent(), '+12.5 pts');
      const api = (await call(server, 'GET', `/v1/experiments/baseline?run_id=${experiment.runs.B}`, { auth: root }))
        .body.data.comparison;
      const pts = (v: number) => `${v > 0 ? '+' : '−'}${(Math.abs(v) * 100).toFixed(1)} pts`;
      t.equal(
        await rateFigure.locator('.ci').textContent(),
        `95% CI ${pts(api.resolved_rate.ci95[0])} to ${pts(api.resolved_rate.ci95[1])}`,
        'the interval the API computed',
      );
      t.equal(
        await page.locator('.figure[aria-label="Mean cost per task"] .values').textContent(),
        `${dollars(COST.A)} → ${dollars(COST.B)}`,
      );
      t.match(
        await page.locator('.figure[aria-label="Mean cost per task"] .change').textContent(),
        /^−\$0\.00500$/,
        'cheaper by half a cent a task',
      );
      t.match(await page.locator('.figure[aria-label="Mean cost per task"] .ci').textContent(), /^95% CI /);
      t.equal(
        await page.locator('.figure[aria-label="Mean duration per task"] .values').textContent(),
        `1.00 s → ${((1000 + (100 * 7) / 2) / 1000).toFixed(2)} s`,
        'the mean duration: run B took 100 ms longer on each next task',
      );
      t.match(
        await page.locator('.figure[aria-label="Tasks"]').textContent(),
        /8 in both runs.*2 fixed · 1 regressed/s,
      );
      await countIs(page, 'table[aria-label="Tasks"] tbody tr[data-task]', 8);
      await page.getByRole('tab', { name: /Regressed/ }).click();
      await page.waitForURL(/outcome=regressed/);
      await countIs(page, 'table[aria-label="Tasks"] tbody tr[data-task]', 1);
      t.same(await page.locator('table[aria-label="Tasks"] tbody tr[data-task] td').allTextContents(), [
        't5',
        'Regressed',
        '✓ resolved',
        '✗ failed',
        `${dollars(COST.A)} → ${dollars(COST.B)}`,
        '1.00 s → 1.40 s',
      ]);
      await page.getByRole('tab', { name: /Fixed/ }).click();
      await countIs(page, 'table[aria-label="Tasks"] tbody tr[data-task]', 2);
      t.same(
        await page
          .locator('table[aria-label="Tasks"] tbody tr[data-task]')
          .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-task'))),
        ['t6', 't7'],
      );
      await page.getByRole('tab', { name: /All/ }).click();
      await countIs(page, 'table[aria-label="Tasks"] tbody tr[data-task]', 8);
      await shot('comparison');

      // The first run has nothing before it.
      await page.goto(`${server.url}/#/experiments/${experiment.experimentId}/runs/${experiment.runs.A}`);
      await page.getByText('No baseline for this run').waitFor();
      t.match(
        await page.locator('.run-facts').textContent(),
        new RegExp(`This run ${experiment.runs.A.slice(0, 8)}`),
        'run A alone',
      );
      t.equal(await page.locator('.figures').count(), 0);
    });

    await t.test('agent sessions: tokens and cost by model, into the trace and session views', async (t) => {
      await page.goto(`${server.url}/#/agents`);
      const rows = page.locator('table[aria-label="Agent sessions"] tbody tr[data-id]');
      await countIs(page, 'table[aria-label="Agent sessions"] tbody tr[data-id]', 2);
      await countIs(page, 'select[aria-label="Agent"] option', 3);
      t.same(
        await page.locator('select[aria-label="Agent"] option').allTextContents(),
        ['all agents', 'claude-code', 'codex'],
        'the agents that synced, not the app whose spans are AGENT spans',
      );
      t.same(
        await rows.evaluateAll((r) => r.map((x) => x.children[2]!.textContent)),
        ['Add a CSV export', 'Fix rounding in cart totals'],
        'newest first, by title',
      );
      const claude = byModel(CLAUDE);
      const codex = byModel(CODEX);
      // The window's figures by agent and model.
      const summary = page.locator('table[aria-label="Tokens and cost by model"] tbody tr');
      await countIs(page, 'table[aria-label="Tokens and cost by model"] tbody tr', 3);
      const expected = [
        ...[...claude].map(([m, f]) => ['claude-code', m, f] as const),
        ...[...codex].map(([m, f]) => ['codex', m, f] as const),
      ]
        .sort((a, b) => b[2].cost - a[2].cost)
        .map(([agent, model, f]) => [agent, model, String(f.count), thousands(f.tokens), dollars(f.cost)]);
      t.same(
        await summary.evaluateAll((r) => r.map((x) => [0, 1, 2, 5, 6].map((i) => x.children[i]!.textContent))),
        expected,
        'generations, tokens and cost per agent and model, as computed from the usage sent and the price table',
      );
      // Each session's models.
      const claudeRow = rows.filter({ hasText: 'Fix rounding' });
      await claudeRow.locator('ul.models li').nth(1).waitFor();
      t.same(
        await claudeRow.locator('ul.models li').allTextContents(),
        [...claude]
          .sort((a, b) => b[1].cost - a[1].cost)
          .map(([m, f]) => `${m} ${thousands(f.tokens)} · ${dollars(f.cost)}`),
      );
      const total = [...claude.values()].reduce((n, f) => ({ tokens: n.tokens + f.tokens, cost: n.cost + f.cost }), {
        tokens: 0,
        cost: 0,
      });
      const cells = await claudeRow.locator('td').allTextContents();
      t.equal(cells[7], thousands(total.tokens), "the session's tokens");
      t.equal(cells[8], dollars(total.cost), 'and cost');
      t.equal(cells[3], CLAUDE_ID.slice(0, 8));
      await shot('agents');

      // One agent, from its row of figures; then the keyboard opens the session's trace.
      await summary.filter({ hasText: 'gpt-5-codex' }).click();
      await page.waitForURL(/#\/agents\?.*agent=codex/);
      await countIs(page, 'table[aria-label="Agent sessions"] tbody tr[data-id]', 1);
      await countIs(page, 'table[aria-label="Tokens and cost by model"] tbody tr', 1);
      t.equal(await page.locator('select[aria-label="Agent"]').inputValue(), 'codex');
      await page.locator('table[aria-label="Agent sessions"]').focus();
      await page.keyboard.press('Enter');
      await page.waitForURL(/#\/traces\/[0-9a-f]{32}$/);
      await page.locator('[role="treeitem"]').first().waitFor();
      t.match(await page.locator('.page-head h1').textContent(), /Add a CSV export/, 'the session as a trace');
      t.ok(await page.locator('[role="treeitem"]', { hasText: 'gpt-5-codex' }).count(), 'with its generation');

      // By deep link, the session id opens the session view.
      await page.goto(`${server.url}/#/agents?agent=claude-code`);
      await countIs(page, 'table[aria-label="Agent sessions"] tbody tr[data-id]', 1);
      // The figures by model load after the rows and add a table above them: click once the page is
      // whole, or the click can land where the link was before the layout moved (failed once in CI).
      await countIs(page, 'table[aria-label="Tokens and cost by model"] tbody tr', claude.size);
      await countIs(page, 'table[aria-label="Agent sessions"] tbody tr[data-id] ul.models li', claude.size);
      await page.locator(`a[href="#/sessions/${CLAUDE_ID}"]`).click();
      await page.waitForURL(new RegExp(`#/sessions/${CLAUDE_ID}$`));
      await page.locator('.turn').first().waitFor();
      t.match(
        await page.locator('.turn').textContent(),
        /Fix rounding in cart totals.*Fix rounding in cart totals, please\./s,
        "the session's first prompt",
      );
    });

    t.same(foreign, [], "no request left the server's origin");
    t.same(pageErrors, [], 'no script error in the page');
  },
);
