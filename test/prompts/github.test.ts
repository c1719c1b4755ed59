/**
 * Integration: the `github` provider against a local fake of GitHub's REST API (no internet): a
 * fine-grained token (authorised at once, repository picked after), a GitHub App (installation on
 * "GitHub", callback, repository picked), templates and prompts read through the API, and
 * credentials that never come back out nor sit in the data directory in clear.
 */
import { generateKeyPairSync } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { blobSha, FakeGitHub, type FakeRepo } from '../helpers/fakeGithub.js';
import { call, rootCredentials, serverFor, type TestServer } from '../helpers/server.js';

const TOKEN = 'github_pat_11FAKE0TOKEN0abcdefghijklmnopqrstuvwxyz';
const GREETING = '---\nlabels: [production]\n---\nHello {{name}} from GitHub\n';
const C1 = 'a'.repeat(40);
const C2 = 'b'.repeat(40);

const REPOS: FakeRepo[] = [
  {
    owner: 'acme',
    name: 'prompts',
    defaultBranch: 'main',
    branches: { main: C1, dev: C2 },
    commits: {
      [C1]: { 'prompts/greeting.md': GREETING, 'README.md': 'x' },
      [C2]: { 'prompts/greeting.md': GREETING.replace('Hello', 'Hey') },
    },
  },
  {
    owner: 'acme',
    name: 'secret',
    defaultBranch: 'trunk',
    branches: { trunk: C1 },
    commits: { [C1]: { 'prompts/x.md': 'x' } },
  },
];

/** Every file of the data directory, as bytes. */
function dataBytes(dir: string): Buffer {
  const parts: Buffer[] = [];
  for (const entry of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    const path = join(dir, entry);
    if (statSync(path).isFile()) parts.push(readFileSync(path));
  }
  return Buffer.concat(parts);
}

function form(server: TestServer, fields: Record<string, string>) {
  return call(server, 'POST', '/v1/git/setup', {
    rawBody: new URLSearchParams(fields).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
}

t.test('github provider against a fake GitHub', async (t) => {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pem = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
  const fake = await FakeGitHub.start({
    app: { id: 4242, publicKey },
    installations: { 77: ['acme/prompts'] },
    token: TOKEN,
    repos: REPOS,
  });
  t.teardown(() => fake.close());
  const server = await serverFor(t, { args: ['--github-api-url', fake.url] });
  const root = rootCredentials(server);
  const gitPath = `/v1/apps/${root.appId}/git`;
  const get = (path: string) => call(server, 'GET', path, { auth: root });
  const connect = (body: unknown) => call(server, 'POST', `${gitPath}/connect`, { auth: root, body });
  const answers: string[] = [];

  await t.test('a token: authorised at once, the repository picked on the page', async (t) => {
    const refused = await connect({ provider: 'github', token: 'wrong' });
    t.equal(refused.status, 400);
    t.same(refused.body.error.details, { token: 'GitHub refused this token' });
    t.equal((await connect({ provider: 'github' })).status, 400, 'a token or an App');
    // Such a token cannot go into a header: it was a 503 "GitHub could not be reached" (found by the at-once sweep).
    const before = fake.requests.length;
    for (const token of ['ghp_é', 'ghp_ x', 'ghp_\u0000']) {
      const unsendable = await connect({ provider: 'github', token });
      t.equal(unsendable.status, 400, `${JSON.stringify(token)}: ${unsendable.text}`);
      t.ok(unsendable.body.error.details?.token, 'the answer names the token');
    }
    t.equal(fake.requests.length, before, 'GitHub was not asked');
    t.same((await get(gitPath)).body.data.connected, false, 'and nothing was connected');
    const r = await connect({ provider: 'github', token: TOKEN });
    t.equal(r.status, 200, r.text);
    answers.push(r.text);
    t.same(
      r.body.data.status,
      {
        connected: true,
        provider: 'github',
        installation_id: r.body.data.status.installation_id,
        repository: null,
        branch: null,
      },
      'authorised, no repository yet',
    );
    const repos = await get(`${gitPath}/repositories`);
    t.same(repos.body.data, [
      { name: 'prompts', full_name: 'acme/prompts', default_branch: 'main' },
      { name: 'secret', full_name: 'acme/secret', default_branch: 'trunk' },
    ]);
    t.same((await get(`${gitPath}/branches?repository=acme/prompts`)).body.data, ['dev', 'main']);
    t.equal((await get(`${gitPath}/branches?repository=acme/none`)).status, 404);
    const page = await fetch(r.body.data.url);
    t.match(await page.text(), 'acme/secret');
    const done = await form(server, { state: r.body.data.state, repository: 'acme/prompts', branch: 'dev' });
    t.equal(done.status, 200, done.text);
    const status = await get(gitPath);
    answers.push(status.text);
    t.match(status.body.data, { connected: true, provider: 'github', repository: 'acme/prompts', branch: 'dev' });
    const template = await get('/v1/templates?path=prompts/greeting.md');
    t.equal(template.status, 200, template.text);
    t.match(template.body.data, {
      commit_sha: C2,
      sha: blobSha(GREETING.replace('Hello', 'Hey')),
      content: GREETING.replace('Hello', 'Hey'),
      variables: ['name'],
      labels: ['production'],
    });
    t.equal((await get(`/v1/templates?path=prompts/greeting.md&ref=${C1}`)).body.data.content, GREETING);
    t.equal((await get('/v1/templates?path=prompts/none.md')).status, 404);
    t.ok(
      fake.requests.every((q) => q.caller === 'token' || q.caller === 'none'),
      'the token was sent',
    );
  });

  await t.test('a GitHub App: installed on GitHub, called back, then picked', async (t) => {
    t.equal(
      (await connect({ provider: 'github', app: { app_id: 4242, private_key: 'not a key', slug: 'tracelake' } }))
        .status,
      400,
    );
    const r = await connect({ provider: 'github', app: { app_id: 4242, private_key: pem, slug: 'tracelake-test' } });
    t.equal(r.status, 200, r.text);
    answers.push(r.text);
    const state = r.body.data.state as string;
    t.equal(
      r.body.data.url,
      `${fake.url}/github-apps/tracelake-test/installations/new?state=${encodeURIComponent(state)}`,
      "the App's installation page",
    );
    t.same((await get(gitPath)).body.data, {
      connected: false,
      provider: 'github',
      installation_id: null,
      repository: null,
      branch: null,
    });
    t.equal((await get(`${gitPath}/repositories`)).status, 409, 'not installed yet');
    t.equal(
      (await fetch(`${server.url}/v1/git/setup?state=${encodeURIComponent(state)}`)).status,
      409,
      'the page waits for the installation',
    );

    const foreign = await fetch(
      `${server.url}/v1/git/github/callback?state=${encodeURIComponent(state)}&installation_id=99&setup_action=install`,
      { redirect: 'manual' },
    );
    t.equal(foreign.status, 404, 'an installation of another App is refused');
    const back = await fetch(
      `${server.url}/v1/git/github/callback?state=${encodeURIComponent(state)}&installation_id=77&setup_action=install`,
      { redirect: 'manual' },
    );
    t.equal(back.status, 302);
    t.equal(back.headers.get('location'), `/v1/git/setup?state=${encodeURIComponent(state)}`);
    t.ok(
      fake.requests.some((q) => q.path === '/app/installations/77' && q.caller === 'app'),
      'verified with the App JWT',
    );
    const authorised = await get(gitPath);
    answers.push(authorised.text);
    t.same(authorised.body.data, {
      connected: true,
      provider: 'github',
      installation_id: 77,
      repository: null,
      branch: null,
    });
    const repos = await get(`${gitPath}/repositories`);
    t.same(
      repos.body.data.map((x: { full_name: string }) => x.full_name),
      ['acme/prompts'],
      'what the installation reaches',
    );
    t.ok(
      fake.requests.some((q) => q.path === '/installation/repositories' && q.caller === 'installation'),
      'with an installation token',
    );
    t.equal((await form(server, { state, repository: 'acme/secret' })).status, 400, 'outside the installation');
    t.equal((await form(server, { state, repository: 'acme/prompts' })).status, 200);
    t.match((await get(gitPath)).body.data, {
      connected: true,
      installation_id: 77,
      repository: 'acme/prompts',
      branch: 'main',
    });

    const sync = await call(server, 'POST', '/v1/prompts/sync', { auth: root });
    t.equal(sync.status, 200, sync.text);
    t.same(sync.body.data.created, [{ name: 'greeting', version: 1, path: 'prompts/greeting.md' }]);
    t.match((await get('/v1/prompts/greeting')).body.data, {
      version: 1,
      commit_sha: C1,
      blob_sha: blobSha(GREETING),
      labels: ['production', 'latest'],
    });
  });

  await t.test('credentials never come back out, nor sit in the data directory in clear', async (t) => {
    for (const text of answers) {
      t.notMatch(text, TOKEN);
      t.notMatch(text, 'PRIVATE KEY');
    }
    t.equal(await server.stop('SIGTERM'), 0);
    const bytes = dataBytes(server.dataDir);
    t.equal(bytes.indexOf(TOKEN), -1, 'the token is sealed');
    t.equal(bytes.indexOf(pem.split('\n')[1]!), -1, 'the private key is sealed');
  });
});
