/**
 * The live thread page of a worker run in Debian's headless Chromium (playwright-core), with a real
 * worker and the fake agent (test/helpers/workers.ts): the page shows the agent's lines while it
 * runs (it prints, then holds until the test lets it go), then the turn's end — status, cost, the
 * checkpoint — without a reload; tool calls open and close; opened again after the run ended, the
 * page shows the whole thread; the list of runs opens it. Screenshots as ui.test.ts.
 */
import t from 'tap';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openPage, withoutChromium } from '../helpers/chromium.js';
import { workingRepo } from '../helpers/git.js';
import { call, createKey, rootCredentials, serverFor, tempDir } from '../helpers/server.js';
import { fakeAgentProfiles, startWorker } from '../helpers/workers.js';

const SHOTS = new URL(
  process.env.TRACELAKE_UPDATE_SCREENSHOTS === '1' ? '../../../docs/screenshots/' : '../../../.tap/screenshots/',
  import.meta.url,
).pathname;

t.test(
  'the live thread of a worker run in headless Chromium',
  {
    skip: withoutChromium,
  },
  async (t) => {
    mkdirSync(SHOTS, { recursive: true });
    const dir = tempDir('tracelake-workers-ui-');
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const gitRoot = join(dir, 'git');
    workingRepo(join(gitRoot, 'acme', 'shop'), { 'README.md': '# Shop\n' });
    const profiles = fakeAgentProfiles(dir);
    const server = await serverFor(t, { args: ['--git-root', gitRoot] });
    const root = rootCredentials(server);
    await call(server, 'POST', `/v1/apps/${root.appId}/git/connect`, {
      auth: root,
      body: { provider: 'local', repository: 'acme/shop' },
    });
    const workerKey = await createKey(server, root, { name: 'worker', role: 'Worker' });
    const worker = startWorker(server, workerKey, { name: 'ui', gitRoot, profiles, workDir: join(dir, 'work') });
    t.teardown(() => void worker.child.kill('SIGKILL'));

    const gate = join(dir, 'go');
    const launched = await call(server, 'POST', '/v1/workers/runs', {
      auth: root,
      body: { task_prompt: `Add a note to the README\nTICK 4 HOLD ${gate}`, profile: 'fake', title: 'Add a note' },
    });
    t.equal(launched.status, 201, launched.text);
    const run = launched.body.data;
    const url = new URL(run.url);
    t.equal(url.hash, `#/workers/runs/${run.id}`, 'the link is the thread page; it carries no credential');

    const { page, pageErrors } = await openPage(t, { width: 1280, height: 900 }, 30_000);
    const polls: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/v1/workers/runs/') && !r.url().includes('/stream')) polls.push(r.url());
    });

    // The link as sent, opened by someone who then signs in (the URL holds no credential).
    await page.goto(`${server.url}/${url.hash}`);
    await page.getByLabel('API key or session token').fill(root.key);
    await page.getByLabel('App id').fill(root.appId);
    await page.getByRole('button', { name: 'Sign in' }).click();

    const lines = page.locator('.thread-event[data-kind="stdout"]');
    await t.test('events appear while the agent runs', async (t) => {
      await page.locator('.thread-event', { hasText: 'tick 1' }).waitFor();
      await page.locator('.thread-event', { hasText: 'holding' }).waitFor();
      t.equal(await page.locator('.turn-card').getAttribute('data-status'), 'running', 'the turn is still running');
      t.same(
        await lines.allTextContents().then((l) => l.map((x) => x.replace(/^out/, ''))),
        ['tick 1', 'tick 2', 'tick 3', 'tick 4', 'holding'],
        'each line as it was printed, in order',
      );
      t.equal(await page.locator('[data-link]').textContent(), 'live');
      t.match(await page.locator('.turn-card .bubble.user').textContent(), /Add a note to the README/, 'the prompt');
      t.ok(
        await page
          .locator('.thread-event[data-kind="step"]', { hasText: 'Workspace: checked out acme/shop main' })
          .count(),
        "the worker's own steps",
      );
      await page.screenshot({ path: `${SHOTS}worker-run-live.png`, fullPage: true });
    });

    await t.test('then the end of the turn, pushed: status, cost, checkpoint', async (t) => {
      writeFileSync(gate, '');
      await page.locator('.turn-card[data-status="succeeded"]').waitFor();
      const end = page.locator('.turn-end');
      await end.locator('.turn-commit').waitFor();
      const detail = (await call(server, 'GET', `/v1/workers/runs/${run.id}`, { auth: root })).body.data;
      const turn = detail.turns[0];
      t.equal(await end.locator('.turn-commit').textContent(), turn.commit_sha.slice(0, 12), 'the checkpoint commit');
      t.equal(await end.locator('.turn-cost').textContent(), `$${turn.cost_usd.toFixed(4)}`, 'the cost');
      t.equal(await page.locator('.page-head .status.run-succeeded').count(), 1, "the run's final status");
      t.ok(await page.locator('.bubble.assistant', { hasText: 'Done.' }).count(), "the agent's messages");
      t.same(polls, [], 'no polling: everything came over the stream');
    });

    await t.test('tool calls are collapsible', async (t) => {
      const call = page.locator('details.tool-call[data-tool="Write"]');
      t.equal(await call.getAttribute('open'), null, 'closed at first');
      await call.locator('summary').click();
      t.match(await call.locator('.tool-input').textContent(), /notes\/turn-0\.md/, 'its input');
      t.equal(await call.locator('.tool-result').textContent(), 'written', 'and its result');
      await page.screenshot({ path: `${SHOTS}worker-run.png`, fullPage: true });
      await call.locator('summary').click();
      t.equal(await call.getAttribute('open'), null, 'closed again');
    });

    await t.test('opened after the run ended, the page shows the whole thread', async (t) => {
      const again = await page.context().browser()!.newPage();
      await again.goto(`${server.url}/#/workers`);
      // Same browser context, its own tab: sign in again (credentials live in the tab's session storage).
      await again.getByLabel('API key or session token').fill(root.key);
      await again.getByLabel('App id').fill(root.appId);
      await again.getByRole('button', { name: 'Sign in' }).click();
      const row = again.locator('table[aria-label="Worker runs"] tbody tr', { hasText: 'Add a note' });
      await row.waitFor();
      t.match(await row.textContent(), /succeeded/);
      await again.locator('table[aria-label="Worker runs"]').focus();
      await again.keyboard.press('Enter');
      await again.locator('.turn-card[data-status="succeeded"]').waitFor();
      await again.locator('.thread-event', { hasText: 'holding' }).waitFor();
      t.equal(
        await again.locator('.thread-event[data-kind="stdout"]').count(),
        await lines.count(),
        'every line, replayed',
      );
      t.equal(await again.locator('[data-link]').textContent(), 'up to date');
    });
    t.same(pageErrors, [], 'no script errors');
  },
);
