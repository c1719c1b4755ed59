/**
 * Integration: the `local` git provider end to end on a real server — the handshake a human
 * completes on the page Tracelake serves, repositories and branches (a working repository and a bare
 * one, made with git itself), templates read at a branch or a commit with traversal refused, and the
 * 409s before a connection exists.
 */
import { mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { bareRepo, commit, git, workingRepo } from '../helpers/git.js';
import { call, createKey, rootCredentials, serverFor, tempDir, type TestServer } from '../helpers/server.js';

const GREETING = `---
type: text
labels: [production]
model: gpt-4o
temperature: 0.2
---
Hello {{name}}, welcome to {{product}}!
`;

const AGENT = `---
type: chat
model: gpt-4o-mini
---
system:
You are the support agent of {{product}}.

user:
{{question}}
`;

/** A root with acme/prompts (a working repository, branches main and staging) and acme/shared.git (bare). */
function makeRoot() {
  const root = tempDir('tracelake-git-root-');
  const prompts = join(root, 'acme', 'prompts');
  workingRepo(prompts, {
    'README.md': '# prompts\n',
    'prompts/greeting.md': GREETING,
    'prompts/support/agent.md': AGENT,
    'prompts/broken.md': '---\ntype: audio\n---\nx\n',
    'prompts/notes.txt': 'Dear {{customer}},\n',
  });
  git(prompts, 'checkout', '-q', '-b', 'staging');
  const stagingCommit = commit(prompts, { 'prompts/greeting.md': GREETING.replace('Hello', 'Hi') }, 'staging greeting');
  git(prompts, 'checkout', '-q', 'main');
  const source = join(tempDir('tracelake-git-src-'), 'shared');
  workingRepo(source, { 'prompts/shared.md': 'Shared {{thing}}\n' });
  git(source, 'checkout', '-q', '-b', 'feature');
  commit(source, { 'prompts/shared.md': 'Feature {{thing}}\n' });
  git(source, 'checkout', '-q', 'main');
  bareRepo(root, 'acme', 'shared', source);
  // A link out of the root must never be followed.
  mkdirSync(join(root, 'evil'));
  symlinkSync(source, join(root, 'evil', 'escape'));
  return { root, prompts, stagingCommit, mainCommit: git(prompts, 'rev-parse', 'main') };
}

function form(server: TestServer, fields: Record<string, string>) {
  return call(server, 'POST', '/v1/git/setup', {
    rawBody: new URLSearchParams(fields).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
}

const OPERATOR_TOKEN = `op-${'7'.repeat(40)}`;

t.test('local git connection', async (t) => {
  const repo = makeRoot();
  const server = await serverFor(t, {
    args: ['--git-root', repo.root],
    env: { TRACELAKE_OPERATOR_TOKEN: OPERATOR_TOKEN },
  });
  const root = rootCredentials(server);
  const sdk = await createKey(server, root, { name: 'sdk', role: 'SDK' });
  const gitPath = `/v1/apps/${root.appId}/git`;
  const get = (path: string, auth = root, headers: Record<string, string> = {}) =>
    call(server, 'GET', path, { auth, headers });

  await t.test('capabilities report git, templates and prompts', async (t) => {
    const caps = await call(server, 'GET', '/v1/capabilities');
    t.match(caps.body.data.features, { git: true, templates: true, prompts: true });
  });

  await t.test('before a connection: connected false, and 409 git_connection_missing', async (t) => {
    const status = await get(gitPath);
    t.equal(status.status, 200);
    t.same(status.body.data, {
      connected: false,
      provider: null,
      installation_id: null,
      repository: null,
      branch: null,
    });
    for (const path of [
      `${gitPath}/repositories`,
      `${gitPath}/branches?repository=acme/prompts`,
      '/v1/templates?path=prompts/greeting.md',
    ]) {
      const r = await get(path);
      t.equal(r.status, 409, path);
      t.equal(r.body.error.code, 'git_connection_missing', path);
    }
    t.equal((await call(server, 'POST', '/v1/prompts/sync', { auth: root })).status, 409);
    t.equal((await get(gitPath, sdk)).status, 403, 'an SDK key does not administer connections');
    t.equal((await call(server, 'POST', `${gitPath}/connect`, { auth: sdk, body: { provider: 'local' } })).status, 403);
    t.equal((await get(`/v1/apps/00000000-0000-4000-8000-000000000000/git`)).status, 404, 'an app of nobody');
  });

  let state = '';
  let url = '';
  await t.test('connect: a page to pick the repository, and a state token', async (t) => {
    const bad = await call(server, 'POST', `${gitPath}/connect`, {
      auth: root,
      body: { provider: 'local', token: 'x' },
    });
    t.equal(bad.status, 400);
    t.match(bad.body.error.details, { token: 'only for provider github' });
    const r = await call(server, 'POST', `${gitPath}/connect`, { auth: root, body: { provider: 'local' } });
    t.equal(r.status, 200, r.text);
    state = r.body.data.state;
    url = r.body.data.url;
    t.match(url, new RegExp(`^http://127\\.0\\.0\\.1:${server.port}/v1/git/setup\\?state=`));
    t.ok(state.length >= 43);
    t.same(r.body.data.status, {
      connected: false,
      provider: 'local',
      installation_id: null,
      repository: null,
      branch: null,
    });
    t.same((await get(gitPath)).body.data, r.body.data.status, 'a headless client polls: not connected yet');
    t.equal((await get(`${gitPath}/repositories`)).status, 409, 'not authorised yet');
  });

  await t.test('the page lists the repositories under the root, links out of it not', async (t) => {
    const page = await fetch(url);
    t.equal(page.status, 200);
    t.match(page.headers.get('content-type'), /^text\/html/);
    t.equal(page.headers.get('cache-control'), 'no-store');
    const html = await page.text();
    t.match(html, 'acme/prompts');
    t.match(html, 'acme/shared');
    t.notMatch(html, 'evil');
    t.match(html, `value="${state}"`);
    t.equal((await fetch(`${server.url}/v1/git/setup?state=nothing`)).status, 404, 'an unknown state');
  });

  await t.test('the form completes the connection', async (t) => {
    t.equal((await form(server, { state, repository: 'acme/nothing' })).status, 400);
    t.equal((await form(server, { state, repository: 'evil/escape' })).status, 400);
    const noBranch = await form(server, { state, repository: 'acme/prompts', branch: 'nope' });
    t.equal(noBranch.status, 400);
    t.match(noBranch.body.error.details, { branch: 'acme/prompts has no branch nope' });
    t.equal((await form(server, { state: 'forged', repository: 'acme/prompts' })).status, 404);
    const done = await form(server, { state, repository: 'acme/prompts', branch: '' });
    t.equal(done.status, 200, done.text);
    t.match(done.text, 'acme/prompts');
    const status = await get(gitPath);
    t.match(status.body.data, {
      connected: true,
      provider: 'local',
      installation_id: Number,
      repository: 'acme/prompts',
      branch: 'main',
    });
    t.ok(Number.isInteger(status.body.data.installation_id));
    t.equal((await fetch(url)).status, 404, 'the link is used up');
  });

  await t.test('repositories and branches', async (t) => {
    const repos = await get(`${gitPath}/repositories`);
    t.equal(repos.status, 200);
    t.same(repos.body.data, [
      { name: 'prompts', full_name: 'acme/prompts', default_branch: 'main' },
      { name: 'shared', full_name: 'acme/shared', default_branch: 'main' },
    ]);
    t.same((await get(`${gitPath}/branches?repository=acme/prompts`)).body.data, ['main', 'staging']);
    t.same(
      (await get(`${gitPath}/branches?repository=acme/shared`)).body.data,
      ['feature', 'main'],
      'a bare repository',
    );
    t.equal((await get(`${gitPath}/branches?repository=acme/nothing`)).status, 404);
    t.equal((await get(`${gitPath}/branches?repository=evil/escape`)).status, 404, 'no way out of the root');
    for (const bad of ['', 'x'.repeat(256), 'acme/../x', 'acme', 'a/b/c']) {
      const r = await get(`${gitPath}/branches?repository=${encodeURIComponent(bad)}`);
      t.equal(r.status, 400, `repository=${bad.slice(0, 20)}`);
    }
    t.equal((await get(`${gitPath}/branches`)).status, 400, 'repository is required');
  });

  await t.test('templates: at the branch, at a ref, with what they declare', async (t) => {
    const r = await get('/v1/templates?path=prompts/greeting.md', sdk);
    t.equal(r.status, 200, r.text);
    t.same(r.body.data, {
      path: 'prompts/greeting.md',
      repository: 'acme/prompts',
      ref: 'main',
      commit_sha: repo.mainCommit,
      sha: git(repo.prompts, 'rev-parse', 'main:prompts/greeting.md'),
      content: GREETING,
      prompt_name: 'greeting',
      type: 'text',
      variables: ['name', 'product'],
      config: { model: 'gpt-4o', temperature: 0.2 },
      labels: ['production'],
      error: null,
    });
    const staging = await get('/v1/templates?path=prompts/greeting.md&ref=staging', sdk);
    t.equal(staging.body.data.commit_sha, repo.stagingCommit);
    t.match(staging.body.data.content, 'Hi {{name}}');
    const bySha = await get(`/v1/templates?path=prompts/greeting.md&ref=${repo.stagingCommit}`, sdk);
    t.equal(bySha.body.data.sha, staging.body.data.sha, 'a commit sha is a ref');
    const notes = await get('/v1/templates?path=prompts/notes.txt', sdk);
    t.match(notes.body.data, { type: 'text', variables: ['customer'], prompt_name: null, error: null });
    const broken = await get('/v1/templates?path=prompts/broken.md', sdk);
    t.match(broken.body.data, { error: /type must be text or chat/ });
    t.equal((await get('/v1/templates?path=prompts/nothing.md', sdk)).status, 404);
    t.equal((await get('/v1/templates?path=prompts/greeting.md&ref=nope', sdk)).status, 404);
    t.equal((await get('/v1/templates?path=prompts/greeting.md&ref=a..b', sdk)).status, 400);
    t.equal((await get('/v1/templates?path=prompts/support', sdk)).status, 404, 'a directory is no file');

    const cached = await get('/v1/templates?path=prompts/greeting.md', sdk, {
      'if-none-match': r.headers.get('etag')!,
    });
    t.equal(cached.status, 304);
    t.equal(cached.text, '');
  });

  await t.test('traversal and paths outside prompts/ are 400', async (t) => {
    for (const path of [
      'prompts/../README.md',
      '../etc/passwd',
      '/prompts/greeting.md',
      'README.md',
      'prompts//greeting.md',
      'prompts\\greeting.md',
      'prompts/./greeting.md',
      'prompts/',
      'prompts',
      `prompts/greeting.md\u0000`,
    ]) {
      const r = await get(`/v1/templates?path=${encodeURIComponent(path)}`, sdk);
      t.equal(r.status, 400, JSON.stringify(path));
      t.equal(r.body.error.code, 'invalid_query_parameters');
      t.ok(r.body.error.details.path, 'names the path');
    }
    const encoded = await get('/v1/templates?path=prompts/%2e%2e/README.md', sdk);
    t.equal(encoded.status, 400, 'percent-encoded dots are dots');
    t.notMatch(
      readFileSync(join(repo.prompts, 'README.md'), 'utf8'),
      'Hello',
      'sanity: the README is what a traversal would read',
    );
  });

  await t.test('connecting with the repository named picks it at once; disconnecting', async (t) => {
    const r = await call(server, 'POST', `${gitPath}/connect`, {
      auth: root,
      body: { provider: 'local', repository: 'acme/shared', branch: 'feature' },
    });
    t.equal(r.status, 200, r.text);
    t.equal(r.body.data.url, null);
    t.match(r.body.data.status, { connected: true, repository: 'acme/shared', branch: 'feature' });
    t.match((await get('/v1/templates?path=prompts/shared.md', sdk)).body.data, {
      content: 'Feature {{thing}}\n',
      ref: 'feature',
    });
    t.equal(
      (
        await call(server, 'POST', `${gitPath}/connect`, {
          auth: root,
          body: { provider: 'local', repository: 'acme/shared', branch: 'nope' },
        })
      ).status,
      400,
    );
    const off = await call(server, 'DELETE', gitPath, { auth: root });
    t.equal(off.status, 200);
    t.same((await get(gitPath)).body.data.connected, false);
    t.equal((await get('/v1/templates?path=prompts/shared.md', sdk)).status, 409);
    t.equal((await call(server, 'DELETE', gitPath, { auth: root })).status, 404);
  });

  await t.test("each tenant has its own root; the first keeps the shared one, less the others'", async (t) => {
    const operator = { authorization: `Bearer ${OPERATOR_TOKEN}` };
    const tenant = await call(server, 'POST', '/v1/operator/tenants', { headers: operator, body: { name: 'globex' } });
    t.equal(tenant.status, 201, tenant.text);
    const { tenant_id: tenantId, app_id: appId } = tenant.body.data;
    const key = await call(server, 'POST', `/v1/operator/apps/${appId}/keys`, {
      headers: operator,
      body: { name: 'admin', role: 'full-access', environment: 'production' },
    });
    t.equal(key.status, 201, key.text);
    const other = { key: key.body.data.plaintext_key as string, appId };
    const connect = (auth: typeof root, body: Record<string, string>) =>
      call(server, 'POST', `/v1/apps/${auth.appId}/git/connect`, { auth, body: { provider: 'local', ...body } });
    const pageOf = async (auth: typeof root) => {
      const started = await connect(auth, {});
      t.equal(started.status, 200, started.text);
      return (await fetch(started.body.data.url)).text();
    };

    const stolen = await connect(other, { repository: 'acme/prompts' });
    t.equal(stolen.status, 400, `the first tenant's repository is out of reach: ${stolen.text}`);
    t.match(stolen.body.error.details, { repository: /reaches no repository/ });
    const empty = await pageOf(other);
    t.notMatch(empty, 'acme/', 'its page lists none of the first tenant');

    workingRepo(join(repo.root, tenantId, 'globex', 'prompts'), {
      'prompts/hello.md': 'Hello {{who}}\n',
      'prompts/dense.txt': '{{a}}'.repeat(20_000),
    });
    workingRepo(join(repo.root, tenantId, 'stray'), { 'prompts/stray.md': 'Stray\n' });
    const own = await pageOf(other);
    t.match(own, 'globex/prompts');
    t.notMatch(own, 'acme/');
    const connected = await connect(other, { repository: 'globex/prompts' });
    t.equal(connected.status, 200, connected.text);
    const prompts = await call(server, 'GET', '/v1/prompts', { auth: other });
    t.same(
      prompts.body.data.map((p: { name: string }) => p.name),
      ['hello'],
    );

    const dense = await call(server, 'GET', '/v1/templates?path=prompts/dense.txt', { auth: other });
    t.equal(dense.status, 200, 'a file too large to be a template is served all the same');
    t.match(dense.body.data, { variables: [], error: 'the template is 100000 characters long; the limit is 65536' });

    const first = await pageOf(root);
    t.match(first, 'acme/prompts', 'the first tenant reads the shared root as before');
    t.notMatch(first, tenantId, "but not another tenant's directory in it");
    t.equal((await connect(root, { repository: `${tenantId}/stray` })).status, 400);
  });
});
