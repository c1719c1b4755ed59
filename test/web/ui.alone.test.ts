/**
 * The web UI in a real browser: Debian's headless Chromium driven by playwright-core (no browser
 * download), against a server seeded through the real OpenTelemetry exporters. Signs in, filters
 * with a typo and sees the error at its position, completes fields and operators, opens a trace,
 * folds and opens spans, sees chat messages and an image output, opens a session, sees the
 * dashboard's charts, follows deep links, and works from the keyboard — with no request leaving
 * the server's origin. Screenshots go to .tap/screenshots (docs/screenshots with
 * TRACELAKE_UPDATE_SCREENSHOTS=1, which the README shows).
 */
import t from 'tap';
import { mkdirSync } from 'node:fs';
import { deflateSync, crc32 } from 'node:zlib';
import { SpanStatusCode, context, trace } from '@opentelemetry/api';
import type { Page } from 'playwright-core';
import { tracerProvider } from '../helpers/otel.js';
import { countIs, openPage, withoutChromium } from '../helpers/chromium.js';
import { call, rootCredentials, serverFor, type TestServer } from '../helpers/server.js';

const SHOTS = new URL(
  process.env.TRACELAKE_UPDATE_SCREENSHOTS === '1' ? '../../../docs/screenshots/' : '../../../.tap/screenshots/',
  import.meta.url,
).pathname;

/** A 48×48 PNG of two colours, made here (chunks with their CRCs), for the image output. */
function png(): string {
  const size = 48;
  const rows: number[] = [];
  for (let y = 0; y < size; y++) {
    rows.push(0);
    for (let x = 0; x < size; x++) rows.push(...(x < y ? [31, 78, 121] : [143, 211, 255]));
  }
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([len, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.from(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]).toString('base64');
}

/**
 * The texts of the elements `selector` matches once they are `expected` — a key press is followed
 * by a render, so they are read after the page has caught up — or as they are when waiting gives up.
 */
async function textsOf(page: Page, selector: string, expected: string[]): Promise<string[]> {
  type Doc = { querySelectorAll(s: string): ArrayLike<{ textContent: string | null }> };
  await page
    .waitForFunction(
      ([sel, want]) =>
        JSON.stringify(
          Array.from((globalThis as unknown as { document: Doc }).document.querySelectorAll(sel), (e) => e.textContent),
        ) === want,
      [selector, JSON.stringify(expected)] as const,
      { timeout: 10_000 },
    )
    .catch(() => undefined);
  return page.locator(selector).allTextContents();
}

const messages = (...m: [string, string][]) => JSON.stringify(m.map(([role, content]) => ({ role, content })));

/** Traces of a support bot through the OpenTelemetry SDK: a chat, an image generation, errors, a graph. */
async function seed(server: TestServer): Promise<{ chat: string; image: string; imageSpan: string }> {
  const root = rootCredentials(server);
  const { provider, tracer } = tracerProvider(server, root, 'proto', 'support-bot');
  const now = Date.now();
  const ids = { chat: '', image: '', imageSpan: '' };
  const turn = (
    name: string,
    at: number,
    work: (parent: ReturnType<typeof trace.setSpan>) => void,
    attrs: Record<string, string> = {},
  ) => {
    const span = tracer.startSpan(name, {
      startTime: at,
      attributes: { 'openinference.span.kind': 'AGENT', 'session.id': 'sess-42', 'user.id': 'ada', ...attrs },
    });
    work(trace.setSpan(context.active(), span));
    span.setStatus({ code: SpanStatusCode.OK });
    span.end(at + 1800);
    return span.spanContext().traceId;
  };
  ids.chat = turn(
    'support-chat',
    now - 20 * 60_000,
    (parent) => {
      const llm = tracer.startSpan(
        'chat gpt-4o',
        {
          startTime: now - 20 * 60_000 + 100,
          attributes: {
            'gen_ai.operation.name': 'chat',
            'gen_ai.request.model': 'gpt-4o',
            'gen_ai.usage.input_tokens': 412,
            'gen_ai.usage.output_tokens': 96,
            'input.value': messages(
              ['system', 'You are a helpful support agent.'],
              ['user', 'How do I reset my password?'],
            ),
            'output.value': messages([
              'assistant',
              'Open Settings → Security and choose "Reset password". A link arrives by email within a minute.',
            ]),
          },
        },
        parent,
      );
      llm.end(now - 20 * 60_000 + 1300);
      const tool = tracer.startSpan(
        'lookup_account',
        {
          startTime: now - 20 * 60_000 + 1350,
          attributes: {
            'openinference.span.kind': 'TOOL',
            'input.value': '{"email":"ada@example.com"}',
            'output.value': '{"plan":"pro","verified":true}',
          },
        },
        parent,
      );
      tool.end(now - 20 * 60_000 + 1700);
    },
    {
      'input.value': 'How do I reset my password?',
      'output.value': 'Open Settings → Security and choose "Reset password".',
      'tracelake.metadata.customer': 'acme',
    },
  );
  ids.image = turn(
    'draw-diagram',
    now - 10 * 60_000,
    (parent) => {
      const gen = tracer.startSpan(
        'generate image',
        {
          startTime: now - 10 * 60_000 + 50,
          attributes: {
            'gen_ai.operation.name': 'chat',
            'gen_ai.request.model': 'gpt-image-1',
            'gen_ai.usage.input_tokens': 64,
            'gen_ai.usage.output_tokens': 1024,
            'input.value': messages(['user', 'Draw the password reset flow as a diagram']),
            'output.value': JSON.stringify({ mimeType: 'image/png', base64: png() }),
          },
        },
        parent,
      );
      ids.imageSpan = gen.spanContext().spanId;
      gen.end(now - 10 * 60_000 + 1500);
    },
    { 'input.value': 'Draw the password reset flow as a diagram', 'output.value': 'Here is the diagram.' },
  );
  // An agent graph (graph.node.*) and a few failing calls for the dashboard.
  turn(
    'router-graph',
    now - 30 * 60_000,
    (parent) => {
      const plan = tracer.startSpan(
        'plan',
        { startTime: now - 30 * 60_000 + 10, attributes: { 'graph.node.id': 'plan', 'graph.node.name': 'plan' } },
        parent,
      );
      plan.end(now - 30 * 60_000 + 400);
      const act = tracer.startSpan(
        'act',
        {
          startTime: now - 30 * 60_000 + 410,
          attributes: { 'graph.node.id': 'act', 'graph.node.parent_id': 'plan', 'graph.node.name': 'act' },
        },
        parent,
      );
      act.end(now - 30 * 60_000 + 900);
    },
    { 'session.id': 'sess-7' },
  );
  for (let i = 0; i < 6; i++) {
    const at = now - (40 + i * 25) * 60_000;
    const s = tracer.startSpan('chat claude', {
      startTime: at,
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': i % 2 ? 'claude-3-5-sonnet' : 'gpt-4o-mini',
        'gen_ai.usage.input_tokens': 200 + i * 50,
        'gen_ai.usage.output_tokens': 40 + i * 9,
      },
    });
    s.setStatus(
      i % 3 === 0 ? { code: SpanStatusCode.ERROR, message: 'rate limited upstream' } : { code: SpanStatusCode.OK },
    );
    s.end(at + 300 + i * 120);
  }
  await provider.forceFlush();
  await provider.shutdown();
  const score = await call(server, 'POST', '/v1/scores', {
    auth: root,
    body: { name: 'helpfulness', resource_id: ids.chat, score: 0.9, reason: 'solved on the first answer' },
  });
  if (score.status !== 201) throw new Error(`score: ${score.text}`);
  return ids;
}

// Chromium's start and the seeding take a while on a busy machine.
t.setTimeout(360_000);

t.test(
  'the web UI in headless Chromium',
  {
    skip: withoutChromium,
  },
  async (t) => {
    mkdirSync(SHOTS, { recursive: true });
    const server = await serverFor(t);
    const ids = await seed(server);
    const root = rootCredentials(server);
    const { page, pageErrors } = await openPage(t, { width: 1440, height: 900 });
    const foreign: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith(server.url) && !r.url().startsWith('data:')) foreign.push(r.url());
    });
    const shot = (name: string) => page.screenshot({ path: `${SHOTS}${name}.png` });

    await t.test('sign in with an API key alone, kept in session storage', async (t) => {
      await page.goto(server.url + '/');
      t.equal(
        await page.getByLabel('App id').evaluate((e) => (e as unknown as { required: boolean }).required),
        false,
        'the app id may be left out',
      );
      await page.getByLabel('API key or session token').fill('sk_service_wrong0000000000000000000000000000');
      await page.getByRole('button', { name: 'Sign in' }).click();
      t.match(
        await page.getByRole('alert').textContent(),
        /Invalid API key/,
        "a wrong key is refused with the API's message",
      );
      await page.getByLabel('API key or session token').fill(root.key);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.locator('table[aria-label="Traces"] tbody tr[data-id]').first().waitFor();
      t.equal(
        await page.locator('table[aria-label="Traces"] tbody tr[data-id]').count(),
        9,
        'every trace of the window',
      );
      const stored = await page.evaluate("sessionStorage.getItem('tracelake.credentials')");
      t.match(stored, root.key, 'the key is in session storage');
      t.same(
        JSON.parse(String(stored)),
        { token: root.key, appId: root.appId },
        'with the app the server says the key belongs to',
      );
      t.match(await page.locator('.who').getAttribute('title'), root.appId, 'the app shown in the navigation');
      t.equal(await page.evaluate('localStorage.length'), 0, 'and nowhere that outlives the tab');
      t.same(
        await page.locator('nav.top a').allTextContents(),
        [
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
        ],
        'the areas this server offers',
      );
      await shot('traces');
    });

    await t.test('filter: completion, a typo shown at its position, then the right filter', async (t) => {
      const input = page.getByLabel('Filter');
      await input.click();
      await input.pressSequentially('st');
      const offers = async (expected: string[], message: string) =>
        t.same(await textsOf(page, '[role="option"] b', expected), expected, message);
      await offers(['status', 'start'], 'fields complete from the filter schema');
      await input.press('ArrowDown');
      await input.press('ArrowUp');
      await input.press('Tab');
      t.equal(await input.inputValue(), 'status ');
      await offers(['=', '!=', 'in', 'not in'], 'then the operators of the field');
      await input.press('Tab');
      t.equal(await input.inputValue(), 'status = ');
      await offers(['UNSET', 'OK', 'ERROR'], 'then the values of an enum');
      await input.fill('');
      await input.pressSequentially('name = support-chat and nmae = x');
      await input.press('Escape');
      await input.press('Enter');
      const error = page.locator('.filter-error');
      await error.waitFor();
      t.match(await error.textContent(), /unknown field "nmae"/, "the server's message");
      t.equal(await error.locator('mark').textContent(), 'nmae', 'the typo is marked where the server says it is');
      t.match(page.url(), /filter=name/, 'the filter is in the deep link');
      await shot('filter-error');
      await input.fill('name = support-chat');
      await input.press('Escape');
      await input.press('Enter');
      await countIs(page, 'table[aria-label="Traces"] tbody tr[data-id]', 1);
      t.equal(await page.locator('.filter-error').count(), 0, 'the error is gone');
    });

    await t.test('open a trace from the keyboard, fold and open spans, read the chat', async (t) => {
      await page.locator('table[aria-label="Traces"]').focus();
      await page.keyboard.press('Enter');
      await page.waitForURL(new RegExp(`#/traces/${ids.chat}`));
      const rows = page.locator('[role="treeitem"]');
      await rows.first().waitFor();
      t.equal(await rows.count(), 3, 'the span tree: the agent and its two children');
      await page.getByRole('button', { name: 'Collapse' }).click();
      t.equal(await rows.count(), 1, 'folded');
      await page.getByRole('button', { name: 'Expand' }).click();
      t.equal(await rows.count(), 3, 'unfolded');
      await rows.filter({ hasText: 'chat gpt-4o' }).click();
      const detail = page.locator('.span-detail');
      await detail.locator('.bubble').first().waitFor();
      t.same(
        await detail.locator('section[aria-label="Input"] .role').allTextContents(),
        ['system', 'user'],
        'input as chat messages',
      );
      t.match(await detail.locator('section[aria-label="Output"] .bubble').textContent(), /Reset password/);
      t.match(await detail.textContent(), /412 in · 96 out/, 'tokens');
      t.match(page.url(), /span=/, 'the opened span is in the deep link');
      t.match(await page.locator('.feedback').textContent(), /helpfulness.*0\.9/s, "the trace's scores");
      t.match(await page.locator('.metadata').textContent(), /Metadata/);
      await shot('trace');
      await page.locator('.tree').focus();
      await page.keyboard.press('ArrowDown');
      await page.locator('.span-detail h3', { hasText: 'lookup_account' }).waitFor();
      t.pass('↓ opens the next span');
    });

    await t.test('an image output, by deep link', async (t) => {
      await page.goto(`${server.url}/#/traces/${ids.image}?span=${ids.imageSpan}`);
      const img = page.locator('.span-detail img.media');
      await img.waitFor();
      await page.waitForFunction(
        () =>
          (
            globalThis as unknown as { document: { querySelector(s: string): { complete: boolean } | null } }
          ).document.querySelector('.span-detail img.media')?.complete === true,
      );
      t.equal(
        await img.evaluate((i) => (i as unknown as { naturalWidth: number }).naturalWidth),
        48,
        'the generated image, decoded by the browser',
      );
      t.match(await img.getAttribute('src'), /^data:image\/png;base64,/);
      await shot('image-output');
    });

    await t.test('the graph view', async (t) => {
      await page.goto(`${server.url}/#/traces`);
      await page.locator('tr[data-id]', { hasText: 'router-graph' }).click();
      await page.getByRole('tab', { name: 'Graph' }).click();
      await page.locator('svg.graph [data-node="act"]').waitFor();
      t.equal(await page.locator('svg.graph .edge').count(), 1, 'plan → act');
    });

    await t.test('a session as a conversation', async (t) => {
      await page.goto(`${server.url}/#/sessions`);
      await page.locator('tr[data-id="sess-42"]').click();
      await page.waitForURL(/#\/sessions\/sess-42/);
      const turns = page.locator('.turn');
      await turns.first().waitFor();
      t.equal(await turns.count(), 2, 'both traces of the session, oldest first');
      t.match(await turns.nth(0).textContent(), /support-chat.*How do I reset my password\?/s);
      t.match(await turns.nth(1).textContent(), /draw-diagram.*Draw the password reset flow/s);
      await shot('session');
    });

    await t.test('spans and scores pages', async (t) => {
      await page.goto(`${server.url}/#/spans?filter=${encodeURIComponent('model = gpt-4o')}`);
      await page.locator('table[aria-label="Spans"] tr[data-id]').first().waitFor();
      t.equal(await page.locator('table[aria-label="Spans"] tr[data-id]').count(), 1);
      await page.goto(`${server.url}/#/scores`);
      await page.locator('table[aria-label="Score aggregations"] tbody tr').first().waitFor();
      t.match(await page.locator('table[aria-label="Score aggregations"]').textContent(), /helpfulness\s*1\s*0\.900/);
    });

    await t.test('the dashboard draws its charts', async (t) => {
      await page.goto(`${server.url}/#/metrics?window=24h`);
      const cost = page.locator('figure.chart', { hasText: 'Cost by model' });
      await cost.locator('canvas').waitFor();
      await countIs(page, 'figure.chart canvas', 4);
      t.equal(await page.locator('figure.chart canvas').count(), 4, 'cost, tokens, latency and errors');
      t.match(await cost.locator('.u-legend').textContent(), /gpt-4o/, 'one series per model');
      t.match(
        await page.locator('figure.chart', { hasText: 'Error rate' }).locator('.u-legend').textContent(),
        /error_rate/,
      );
      await shot('dashboard');
    });

    await t.test('signing out forgets the key; a key with an app id it does not belong to is refused', async (t) => {
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByLabel('App id').waitFor();
      t.equal(await page.evaluate("sessionStorage.getItem('tracelake.credentials')"), null);
      await page.getByLabel('API key or session token').fill(root.key);
      await page.getByLabel('App id').fill('00000000-0000-4000-8000-000000000000');
      await page.getByRole('button', { name: 'Sign in' }).click();
      t.match(
        await page.getByRole('alert').textContent(),
        /does not belong to the app/,
        'an app id given is the one checked',
      );
    });

    t.same(foreign, [], "no request left the server's origin");
    t.same(pageErrors, [], 'no script error in the page');
  },
);

t.test('the page and its assets', async (t) => {
  const server = await serverFor(t, { args: ['--mode', 'local'] });
  const page = await fetch(`${server.url}/`);
  t.equal(page.status, 200);
  t.match(page.headers.get('content-type'), /^text\/html/);
  t.match(page.headers.get('content-security-policy'), /default-src 'self'/, 'nothing from elsewhere');
  const html = await page.text();
  t.match(html, /\/ui\/app\.js\?v=/, 'assets versioned with the server');
  const app = await fetch(`${server.url}/ui/app.js`);
  t.equal(app.status, 200);
  t.match(app.headers.get('content-type'), /^text\/javascript/);
  t.ok((await app.arrayBuffer()).byteLength < 200 * 1024, 'the bundle stays small');
  t.equal((await fetch(`${server.url}/ui/nope.js`)).status, 404);
  t.equal((await fetch(`${server.url}/ui/..%2Fsrc%2Fmain.js`)).status, 404, 'nothing outside the built UI');
});
