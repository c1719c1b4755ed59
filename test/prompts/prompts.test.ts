/**
 * Integration: prompts discovered in a connected repository and created over the API — immutable
 * numbered versions, labels (production, latest, custom) that move, fetches by name + label or
 * version with ETag / 304 (and the cache dropped on every change), rendering that refuses missing
 * variables, and a new commit becoming a new version.
 */
import { join } from 'node:path';
import t from 'tap';
import { commit, git, workingRepo } from '../helpers/git.js';
import { hex } from '../helpers/otlp.js';
import { call, createKey, rootCredentials, serverFor, tempDir, type Credentials } from '../helpers/server.js';
import { exportSpans } from '../helpers/exportSpans.js';

const GREETING = '---\nlabels: [production]\nmodel: gpt-4o\n---\nHello {{name}}, welcome to {{product}}!\n';
const AGENT = '---\ntype: chat\n---\nsystem:\nYou support {{product}}.\n\nuser:\n{{question}}\n';

t.test('prompts', async (t) => {
  const root = tempDir('tracelake-git-root-');
  const repo = join(root, 'acme', 'prompts');
  workingRepo(repo, {
    'prompts/greeting.md': GREETING,
    'prompts/support/agent.md': AGENT,
    'prompts/broken.md': '---\ntype: audio\n---\n',
    'docs/readme.md': 'not a prompt {{x}}\n',
  });
  const server = await serverFor(t, { args: ['--git-root', root] });
  const admin = rootCredentials(server);
  const sdk = await createKey(server, admin, { name: 'sdk', role: 'SDK' });
  const get = (path: string, auth: Credentials = sdk, headers: Record<string, string> = {}) =>
    call(server, 'GET', path, { auth, headers });
  const post = (path: string, body: unknown, auth: Credentials = admin) => call(server, 'POST', path, { auth, body });
  const connected = await post(`/v1/apps/${admin.appId}/git/connect`, {
    provider: 'local',
    repository: 'acme/prompts',
  });
  t.equal(connected.status, 200, connected.text);

  await t.test('the first listing discovers the repository prompts', async (t) => {
    const list = await get('/v1/prompts');
    t.equal(list.status, 200, list.text);
    t.same(list.body.pagination, { total: 2, limit: 50, offset: 0 });
    const [greeting, agent] = list.body.data;
    t.match(greeting, {
      name: 'greeting',
      type: 'text',
      versions: [1],
      latest_version: 1,
      labels: { production: 1, latest: 1 },
      variables: ['name', 'product'],
      config: { model: 'gpt-4o' },
      source: 'git',
    });
    t.match(agent, {
      name: 'support/agent',
      type: 'chat',
      versions: [1],
      labels: { latest: 1 },
      variables: ['product', 'question'],
    });
    const sync = await post('/v1/prompts/sync', undefined);
    t.equal(sync.status, 200, sync.text);
    t.same(sync.body.data.created, [], 'nothing new');
    t.same(sync.body.data.unchanged.sort(), ['greeting', 'support/agent']);
    t.match(sync.body.data.errors, [{ path: 'prompts/broken.md', message: /type must be text or chat/ }]);
    t.equal(
      (await call(server, 'POST', '/v1/prompts/sync', { auth: sdk })).status,
      403,
      'discovery on demand is an admin write',
    );
  });

  let etag = '';
  await t.test('fetch by name: production by default, with an ETag and 304', async (t) => {
    const r = await get('/v1/prompts/greeting');
    t.equal(r.status, 200, r.text);
    t.match(r.body.data, {
      name: 'greeting',
      version: 1,
      type: 'text',
      prompt: 'Hello {{name}}, welcome to {{product}}!',
      labels: ['production', 'latest'],
      source: 'git',
      source_path: 'prompts/greeting.md',
      commit_sha: git(repo, 'rev-parse', 'HEAD'),
      blob_sha: git(repo, 'rev-parse', 'HEAD:prompts/greeting.md'),
    });
    etag = r.headers.get('etag')!;
    t.match(etag, /^"[A-Za-z0-9_-]{22}"$/);
    const again = await get('/v1/prompts/greeting', sdk, { 'if-none-match': etag });
    t.equal(again.status, 304);
    t.equal(again.text, '');
    t.equal(again.headers.get('etag'), etag);
    t.equal(
      (await get('/v1/prompts/greeting', sdk, { 'if-none-match': `"other", W/${etag}` })).status,
      304,
      'a list, weak comparison',
    );
    t.equal((await get('/v1/prompts/greeting', sdk, { 'if-none-match': '"other"' })).status, 200);
    const chat = await get(`/v1/prompts/${encodeURIComponent('support/agent')}?label=latest`);
    t.same(chat.body.data.prompt, [
      { role: 'system', content: 'You support {{product}}.' },
      { role: 'user', content: '{{question}}' },
    ]);
    t.equal((await get(`/v1/prompts/${encodeURIComponent('support/agent')}`)).status, 404, 'no production label');
    t.equal((await get('/v1/prompts/nothing')).status, 404);
    t.equal((await get('/v1/prompts/greeting?label=latest&version=1')).status, 400);
    const reader = await createKey(server, admin, {
      name: 'no-templates',
      role: 'Custom',
      permissions: ['trace.read'],
    });
    t.equal((await get('/v1/prompts/greeting', reader)).status, 403, 'template.read is needed');
  });

  await t.test('versions created over the API are numbered, immutable, labelled', async (t) => {
    const v2 = await post('/v1/prompts', {
      name: 'greeting',
      prompt: 'Hi {{name}}!',
      labels: ['staging'],
      config: { model: 'gpt-4o-mini' },
      commit_message: 'shorter',
    });
    t.equal(v2.status, 201, v2.text);
    t.match(v2.body.data, {
      name: 'greeting',
      version: 2,
      type: 'text',
      labels: ['staging', 'latest'],
      variables: ['name'],
      source: 'api',
      commit_sha: null,
      commit_message: 'shorter',
      created_by: /^key:/,
    });
    const production = await get('/v1/prompts/greeting', sdk, { 'if-none-match': etag });
    t.equal(production.status, 200, 'the cached answer went with the change: v1 lost `latest`');
    t.same(production.body.data.labels, ['production']);
    t.equal(production.body.data.version, 1);
    t.equal((await get('/v1/prompts/greeting?label=latest')).body.data.version, 2);
    t.equal((await get('/v1/prompts/greeting?label=staging')).body.data.version, 2);
    t.equal((await get('/v1/prompts/greeting?version=1')).body.data.prompt, 'Hello {{name}}, welcome to {{product}}!');
    t.equal((await get('/v1/prompts/greeting?version=3')).status, 404);

    const conflict = await post('/v1/prompts', { name: 'support/agent', prompt: 'plain text' });
    t.equal(conflict.status, 409, 'a chat prompt takes chat versions');
    t.equal(conflict.body.error.code, 'conflict');
    const chat = await post('/v1/prompts', {
      name: 'support/agent',
      prompt: [{ role: 'system', content: 'Be brief about {{product}}.' }],
      labels: ['production'],
    });
    t.equal(chat.status, 201, chat.text);
    t.equal(chat.body.data.version, 2);

    for (const [body, field] of [
      [{ name: '../etc', prompt: 'x' }, 'name'],
      [{ name: 'a//b', prompt: 'x' }, 'name'],
      [{ name: 'ok', prompt: 'x', labels: ['latest'] }, 'labels'],
      [{ name: 'ok', prompt: 'x', labels: ['Upper'] }, 'labels'],
      [{ name: 'ok', prompt: 'x', labels: ['a', 'a'] }, 'labels'],
      [{ name: 'ok', prompt: '{{#if x}}unclosed' }, 'prompt'],
      [{ name: 'ok', prompt: '{{> partial}}' }, 'prompt'],
      [{ name: 'ok', type: 'chat', prompt: 'x' }, 'prompt'],
    ] as const) {
      const r = await post('/v1/prompts', body);
      t.equal(r.status, 400, JSON.stringify(body));
      t.ok(r.body.error.details[field], `names ${field}: ${r.text}`);
    }
    t.equal((await post('/v1/prompts', { name: 'x', prompt: 'y' }, sdk)).status, 403, 'writes need an admin');
    const plain = await post('/v1/prompts', { name: 'plain', prompt: 'No variables at all' });
    t.equal(plain.status, 201, `a template without variables: ${plain.text}`);
    t.same(plain.body.data.variables, []);
  });

  await t.test('labels move', async (t) => {
    const moved = await call(server, 'PATCH', '/v1/prompts/greeting/versions/2', {
      auth: admin,
      body: { labels: ['production'] },
    });
    t.equal(moved.status, 200, moved.text);
    t.same(moved.body.data.labels, ['production', 'staging', 'latest']);
    t.equal((await get('/v1/prompts/greeting')).body.data.version, 2, 'production follows');
    const v1 = await get('/v1/prompts/greeting?version=1');
    t.same(v1.body.data.labels, []);
    t.equal(
      (await call(server, 'PATCH', '/v1/prompts/greeting/versions/2', { auth: admin, body: { labels: ['latest'] } }))
        .status,
      400,
    );
    t.equal(
      (await call(server, 'PATCH', '/v1/prompts/greeting/versions/9', { auth: admin, body: { labels: ['x'] } })).status,
      404,
    );
    t.equal(
      (await call(server, 'PATCH', '/v1/prompts/greeting/versions/0', { auth: admin, body: { labels: ['x'] } })).status,
      400,
    );
    t.equal((await call(server, 'DELETE', '/v1/prompts/greeting/labels/staging', { auth: admin })).status, 200);
    t.equal((await get('/v1/prompts/greeting?label=staging')).status, 404);
    t.equal((await call(server, 'DELETE', '/v1/prompts/greeting/labels/staging', { auth: admin })).status, 404);
    t.equal((await call(server, 'DELETE', '/v1/prompts/greeting/labels/latest', { auth: admin })).status, 400);
    const list = await get('/v1/prompts?label=production');
    t.same(
      list.body.data.map((p: { name: string }) => p.name),
      ['greeting', 'support/agent'],
    );
    t.same((await get('/v1/prompts?name=greeting')).body.data[0].labels, { production: 2, latest: 2 });
    t.same(
      (await get('/v1/prompts?limit=1&offset=2')).body.data.map((p: { name: string }) => p.name),
      ['support/agent'],
      'by name: greeting, plain, support/agent',
    );
  });

  await t.test('render refuses missing variables', async (t) => {
    const ok = await post(
      '/v1/prompts/greeting/render',
      { variables: { name: 'Ada', product: 'Tracelake' }, version: 1 },
      sdk,
    );
    t.equal(ok.status, 200, ok.text);
    t.equal(ok.body.data.prompt, 'Hello Ada, welcome to Tracelake!');
    t.equal(ok.body.data.version, 1);
    const missing = await post('/v1/prompts/greeting/render', { variables: { name: 'Ada' }, version: 1 }, sdk);
    t.equal(missing.status, 400);
    t.same(missing.body.error.details, { 'variables.product': 'is required by the template' });
    const chat = await post(
      `/v1/prompts/${encodeURIComponent('support/agent')}/render`,
      { variables: { product: 'Tracelake', question: 'Why?' }, version: 1 },
      sdk,
    );
    t.same(chat.body.data.prompt, [
      { role: 'system', content: 'You support Tracelake.' },
      { role: 'user', content: 'Why?' },
    ]);
    const noHtml = await post(
      '/v1/prompts/greeting/render',
      { variables: { name: '<b>&"' }, label: 'production' },
      sdk,
    );
    t.equal(noHtml.body.data.prompt, 'Hi <b>&"!', 'no HTML escaping');
  });

  await t.test('a render past its time or output budget is refused, and blocks nobody', async (t) => {
    const nested = (body: string) =>
      `{{#each @root.a}}{{#each @root.a}}{{#each @root.a}}${body}{{/each}}{{/each}}{{/each}}`;
    for (const [name, prompt] of [
      ['cube/silent', nested('')],
      ['cube/loud', nested('{{this}},')],
    ])
      t.equal((await post('/v1/prompts', { name, prompt })).status, 201);
    const items = (n: number) => ({ variables: { a: Array.from({ length: n }, (_, i) => i) }, label: 'latest' });

    // 600³ iterations with no output: unbounded, they held the main thread ~10 s.
    const started = performance.now();
    let rendered: Awaited<ReturnType<typeof post>> | null = null;
    const render = post('/v1/prompts/cube%2Fsilent/render', items(600), sdk).then((r) => {
      rendered = r;
      return performance.now() - started;
    });
    const latencies: number[] = [];
    while (rendered === null) {
      const at = performance.now();
      const health = await call(server, 'GET', '/health');
      const exported = await exportSpans(server, admin, [{ traceId: hex(16) }], { 'x-tracelake-wait': '' });
      t.equal(health.status, 200, health.text);
      t.equal(exported.status, 200, exported.text);
      latencies.push(performance.now() - at);
    }
    const renderMs = await render;
    const refused = rendered as unknown as Awaited<ReturnType<typeof post>>;
    t.equal(refused.status, 422, refused.text);
    t.match(refused.body.error, { code: 'render_limit_exceeded', budget: 'time', limit: 2000 });
    t.ok(renderMs < 4000, `refused within about the budget: ${Math.round(renderMs)} ms`);
    t.ok(latencies.length >= 2, `requests answered while it ran: ${latencies.length}`);
    t.ok(
      Math.max(...latencies) < 1000,
      `a health check and an export took at most ${Math.round(Math.max(...latencies))} ms`,
    );

    // 200³ iterations of 2,000 characters each: 16 GB unbounded. Long items reach the output budget
    // within a few hundred iterations, so a loaded machine does not meet the time budget first.
    const wide = {
      variables: { a: Array.from({ length: 200 }, (_, i) => String(i).padStart(2000, '.')) },
      label: 'latest',
    };
    const loud = await post('/v1/prompts/cube%2Floud/render', wide, sdk);
    t.equal(loud.status, 422, loud.text.slice(0, 200));
    t.match(loud.body.error, { code: 'render_limit_exceeded', budget: 'output', limit: 1048576 });
    const small = await post('/v1/prompts/cube%2Floud/render', items(2), sdk);
    t.equal(small.status, 200, `a thread took over after the one stopped: ${small.text}`);
    t.equal(small.body.data.prompt, '0,1,0,1,0,1,0,1,');

    const huge = await post('/v1/prompts', {
      name: 'huge',
      type: 'chat',
      prompt: [
        { role: 'system', content: 'x'.repeat(40_000) },
        { role: 'user', content: 'y'.repeat(40_000) },
      ],
    });
    t.equal(huge.status, 400, huge.text.slice(0, 200));
    t.match(huge.body.error, { code: 'invalid_request_body', limit: 65536, details: { prompt: /limit is 65536/ } });
  });

  await t.test('a new commit becomes a new version, with its front-matter labels', async (t) => {
    const sha = commit(
      repo,
      {
        'prompts/greeting.md': GREETING.replace('Hello', 'Greetings'),
        'prompts/new/one.md': 'New {{thing}}\n',
        'prompts/broken.md': null,
      },
      'edit greeting',
    );
    const sync = await post('/v1/prompts/sync', undefined);
    t.equal(sync.status, 200, sync.text);
    t.equal(sync.body.data.commit_sha, sha);
    t.same(sync.body.data.created, [
      { name: 'greeting', version: 3, path: 'prompts/greeting.md' },
      { name: 'new/one', version: 1, path: 'prompts/new/one.md' },
    ]);
    t.same(sync.body.data.errors, []);
    const production = await get('/v1/prompts/greeting');
    t.match(production.body.data, {
      version: 3,
      commit_sha: sha,
      prompt: 'Greetings {{name}}, welcome to {{product}}!',
      labels: ['production', 'latest'],
    });
    const again = await post('/v1/prompts/sync', undefined);
    t.same(again.body.data.created, [], 'the same files make no versions');
  });

  await t.test("another app does not see this app's prompts", async (t) => {
    const app = await post('/v1/apps', { name: 'other' });
    const key = await createKey(server, admin, { name: 'other', role: 'Full Access', app_id: app.body.data.id });
    const other = { key: key.key, appId: app.body.data.id as string };
    t.equal((await get('/v1/prompts/greeting', other)).status, 404);
    t.same((await get('/v1/prompts', other)).body.data, []);
  });
});
