/**
 * What a first hour with the web UI found, in Debian's headless Chromium (playwright-core, no
 * browser download), against one server seeded through the OpenTelemetry SDK: the page loads
 * without complaints and checks an app id's shape; at 800 px a trace and the bar fit; the filter bar suggests the values seen; the agents page finds old sessions; the dashboard's axis is the chosen window and
 * an empty bucket breaks a line.
 */
import t from 'tap';
import { mkdirSync } from 'node:fs';
import { SpanStatusCode } from '@opentelemetry/api';
import { tracerProvider } from '../helpers/otel.js';
import { countIs, openPage, withoutChromium } from '../helpers/chromium.js';
import { call, rootCredentials, serverFor, type Credentials, type TestServer } from '../helpers/server.js';

const SHOTS = new URL('../../../.tap/screenshots/', import.meta.url).pathname;
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** Generations of two models in the last hour, in two bursts with empty minutes between them. */
async function seedHour(server: TestServer, root: Credentials): Promise<{ traceId: string; spanId: string }> {
  const { provider, tracer } = tracerProvider(server, root, 'proto', 'first-hour');
  const now = Date.now();
  const last = { traceId: '', spanId: '' };
  for (const [ago, model] of [
    [50, 'gpt-4o'],
    [50, 'claude-3-5-sonnet'],
    [10, 'gpt-4o'],
    [10, 'claude-3-5-sonnet'],
  ] as const) {
    const at = now - ago * MINUTE;
    const span = tracer.startSpan(`chat ${model}`, {
      startTime: at,
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': model,
        'gen_ai.usage.input_tokens': 100,
        'gen_ai.usage.output_tokens': 20,
      },
    });
    span.setStatus({ code: SpanStatusCode.OK });
    span.end(at + 800);
    Object.assign(last, span.spanContext());
  }
  await provider.forceFlush();
  await provider.shutdown();
  return last;
}

/** A coding-agent session that ran long ago, synced now: one prompt, one answer. */
async function syncOldSession(
  server: TestServer,
  root: Credentials,
  id: string,
  daysAgo: number,
  title: string,
): Promise<void> {
  const start = Date.now() - daysAgo * 86_400_000;
  const at = (s: number) => new Date(start + s * 1000).toISOString();
  const body = {
    schemaVersion: 1,
    sessions: [
      {
        id,
        agent: { name: 'claude-code', version: '1.0.0' },
        startedAt: at(0),
        endedAt: at(30),
        title,
        cwd: '/home/dev/shop',
        git: null,
        events: [
          { id: 'u1', timestamp: at(0), type: 'user_message', content: [{ type: 'text', text: 'Port it, please.' }] },
          {
            id: 'a1',
            timestamp: at(20),
            type: 'assistant_message',
            model: 'claude-sonnet-4-5-20250929',
            content: [{ type: 'text', text: 'Done.' }],
            usage: { inputTokens: 900, outputTokens: 300, cacheReadTokens: 0, cacheCreationTokens: 0 },
            stopReason: 'end_turn',
          },
        ],
      },
    ],
    blobs: [],
  };
  const r = await call(server, 'POST', '/v1/agents/sync', { auth: root, body });
  if (r.status !== 200 || r.body.data.accepted.length !== 1) throw new Error(`agents sync: ${r.status} ${r.text}`);
}

t.setTimeout(300_000);

t.test(
  'the first hour in the web UI, in headless Chromium',
  {
    skip: withoutChromium,
  },
  async (t) => {
    mkdirSync(SHOTS, { recursive: true });
    const server = await serverFor(t);
    const root = rootCredentials(server);
    const generation = await seedHour(server, root);
    const OLD_SESSION = '5c1d7e2a-0b9f-4c3e-8d21-7a6b5c4d3e2f';
    const OLDER_SESSION = '0a9b8c7d-6e5f-4a3b-9c2d-1e0f9a8b7c6d';
    await syncOldSession(server, root, OLD_SESSION, 200, 'Port the billing job');
    await syncOldSession(server, root, OLDER_SESSION, 400, 'Set up the repository');
    const { page, pageErrors } = await openPage(t, { width: 1280, height: 900 });
    const consoleComplaints: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') consoleComplaints.push(`${m.type()}: ${m.text()}`);
    });

    await t.test('sign-in: a quiet load, and the app id checked for its shape', async (t) => {
      await page.goto(`${server.url}/`);
      const appId = page.getByLabel('App id');
      await appId.waitFor();
      type Field = { validity: { valid: boolean; patternMismatch: boolean } };
      const validity = () =>
        appId.evaluate((e) => {
          const v = (e as unknown as Field).validity;
          return { valid: v.valid, patternMismatch: v.patternMismatch };
        });
      for (const wrong of ['not-an-app-id', '-'.repeat(36), `${root.appId}0`]) {
        await appId.fill(wrong);
        t.match(await validity(), { valid: false, patternMismatch: true }, `"${wrong}" is flagged by the form`);
      }
      await appId.fill(root.appId);
      t.match(await validity(), { valid: true }, 'the app id of the key passes');
      // Chromium reports a pattern it cannot compile when it first checks a value against it.
      t.same(consoleComplaints, [], 'neither the load nor the checks put an error or warning in the console');
      await page.getByLabel('API key or session token').fill(root.key);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.locator('table[aria-label="Traces"] tbody tr[data-id]').first().waitFor();
    });

    await t.test('the dashboard: the axis is the window, an empty bucket breaks the line', async (t) => {
      const opened = Date.now();
      await page.goto(`${server.url}/#/metrics?window=1h`);
      const charts = page.locator('figure.chart [data-x-from]');
      await charts.nth(3).waitFor();
      const drawn = await charts.evaluateAll((els) =>
        els.map((e) => {
          const d = (e as unknown as { dataset: Record<string, string> }).dataset;
          return { title: d.chart!, from: Date.parse(d.xFrom!), to: Date.parse(d.xTo!), runs: d.runs! };
        }),
      );
      t.equal(drawn.length, 4, 'cost, tokens, latency and errors');
      for (const c of drawn) {
        t.ok(
          c.from >= opened - HOUR - 5_000 && c.from <= Date.now() - HOUR,
          `${c.title}: the axis starts where the window does (${new Date(c.from).toISOString()})`,
        );
        t.ok(
          c.to >= opened - 5_000 && c.to <= Date.now(),
          `${c.title}: and ends at its end (${new Date(c.to).toISOString()})`,
        );
        t.ok(
          c.runs.split(',').every((n) => n === '2'),
          `${c.title}: each line is two pieces, broken by the empty minutes (${c.runs})`,
        );
      }
      await page.screenshot({ path: `${SHOTS}first-hour-dashboard.png` });
    });

    await t.test('at 800 px wide, the span panel and Sign out stay in view', async (t) => {
      await page.setViewportSize({ width: 800, height: 700 });
      await page.goto(`${server.url}/#/traces/${generation.traceId}?span=${generation.spanId}`);
      const detail = page.locator('.span-detail');
      await detail.locator('h3').waitFor();
      const inView = (b: { x: number; width: number } | null, width: number) =>
        b !== null && b.x >= 0 && b.x + b.width <= width;
      const panel = await page.locator('aside.detail').boundingBox();
      t.ok(inView(panel, 800), `the span panel lies within the viewport (${JSON.stringify(panel)})`);
      t.equal(
        await page.evaluate(
          () =>
            (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document
              .documentElement.scrollWidth,
        ),
        800,
        'nothing makes the page scroll sideways',
      );
      const bar = await page.locator('nav.top').boundingBox();
      const signOut = await page.getByRole('button', { name: 'Sign out' }).boundingBox();
      t.ok(inView(signOut, 800), `Sign out lies within the viewport (${JSON.stringify(signOut)})`);
      t.ok(
        bar !== null &&
          signOut !== null &&
          inView(signOut, bar.x + bar.width) &&
          signOut.y >= bar.y &&
          signOut.y + signOut.height <= bar.y + bar.height,
        `and within the bar (${JSON.stringify(bar)})`,
      );
      await page.screenshot({ path: `${SHOTS}first-hour-800.png`, fullPage: true });
      await page.setViewportSize({ width: 1280, height: 900 });
    });

    await t.test('the filter bar suggests the values a field was seen with in the window', async (t) => {
      await page.goto(`${server.url}/#/traces?window=24h`);
      await page.locator('table[aria-label="Traces"] tbody tr[data-id]').first().waitFor();
      const input = page.getByLabel('Filter');
      await input.click();
      await input.pressSequentially('model = ');
      const options = page.locator('[role="option"] b');
      const models = ['claude-3-5-sonnet', 'gpt-4o'];
      await countIs(page, '[role="option"]', models.length);
      t.same(await options.allTextContents(), models, 'the models ingested, as many times each, by name');
      await input.press('ArrowDown');
      await input.press('Tab');
      t.equal(await input.inputValue(), 'model = gpt-4o ', 'a value is taken like any completion');
      await input.press('Escape');
      await input.press('Enter');
      await countIs(page, 'table[aria-label="Traces"] tbody tr[data-id]', 2);
      t.pass('the traces calling it');
      // The first ask for this field's values fails, as when the server is busy a moment.
      let refused = 0;
      await page.route(/\/v1\/metrics\?.*group_by=service_name/, (route) =>
        refused++ === 0
          ? route.fulfill({
              status: 503,
              contentType: 'application/json',
              body: '{"error":{"code":"overloaded","message":"busy"}}',
            })
          : route.continue(),
      );
      await input.fill('');
      await input.pressSequentially('service_name = fi');
      await countIs(page, '[role="option"]', 1);
      t.same(await options.allTextContents(), ['first-hour'], 'typed letters narrow the values');
      t.equal(refused, 2, 'after one refused ask, asked again without another key');
      await page.unroute(/\/v1\/metrics\?.*group_by=service_name/);
      // Chromium logs the refused request; that complaint was asked for.
      const refusal = consoleComplaints.findIndex((c) => c.includes('status of 503'));
      t.ok(refusal >= 0, 'the refusal reached the page');
      consoleComplaints.splice(refusal, 1);
      await input.press('Escape');
    });

    await t.test('agent sessions: "all time" finds a session of 200 days ago', async (t) => {
      const rows = 'table[aria-label="Agent sessions"] tbody tr[data-id]';
      await page.goto(`${server.url}/#/agents?window=all`);
      await countIs(page, rows, 1);
      t.match(await page.locator(rows).textContent(), /Port the billing job/, 'the newest old session is listed');
      t.equal(await page.locator('select[aria-label="Time window"]').inputValue(), 'all', 'under "all time"');
      t.match(page.url(), /until=/, 'the 90 days up to the newest session, in the deep link');
      await countIs(page, 'table[aria-label="Tokens and cost by model"] tbody tr', 1);
      t.match(
        await page.locator('table[aria-label="Tokens and cost by model"]').textContent(),
        /claude-sonnet-4-5-20250929/,
        "with the figures of that window's models",
      );
      await page.screenshot({ path: `${SHOTS}first-hour-agents.png` });
      await page.getByRole('button', { name: '← Earlier sessions' }).click();
      await page.locator(rows, { hasText: 'Set up the repository' }).waitFor();
      t.equal(await page.locator(rows).count(), 1, 'earlier: the 90 days up to the session before, 400 days ago');
      // Looking back means asking window by window, ten years of them: wait for the answer.
      await page.getByRole('button', { name: 'Nothing earlier' }).waitFor();
      t.ok(await page.getByRole('button', { name: 'Nothing earlier' }).isDisabled(), 'and nothing before that');

      // The default window (7 days) holds no session: the page lands on the newest.
      await page.goto(`${server.url}/#/agents`);
      await page.waitForURL(/window=all/);
      await countIs(page, rows, 1);
      t.match(
        await page.locator(rows).textContent(),
        /Port the billing job/,
        'an empty window lands on the newest data',
      );
    });

    t.same(pageErrors, [], 'no script error in the page');
    t.same(consoleComplaints, [], 'nor a complaint in the console');
  },
);
