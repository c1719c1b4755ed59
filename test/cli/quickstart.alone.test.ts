/**
 * Integration: `tracelake quickstart` (and `npm run demo`) as a real process against a real server:
 * with the key alone it finds the app, sends the sample agent trace over OTLP/JSON and scores it;
 * the trace, its spans (names, kinds, model, tokens), its session and the scores are read back
 * through the API at once. A server that is not there, a refused key and a usage error each end
 * with one line and their exit code.
 */
import { execFile } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { call, createKey, rootCredentials, serverFor } from '../helpers/server.js';
import { unhooked } from '../helpers/unhooked.js';

const CLI = new URL('../../src/cli.js', import.meta.url).pathname;
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      ...unhooked(command, args),
      { cwd: ROOT, env: { ...process.env, TRACELAKE_API_KEY: '', TRACELAKE_URL: '', TRACELAKE_APP_ID: '', ...env } },
      (error, stdout, stderr) => {
        resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
      },
    );
  });
}

const quickstart = (args: string[], env?: Record<string, string>) =>
  run(process.execPath, [CLI, 'quickstart', ...args], env);

/** A loopback port nothing listens on: taken from the system, then let go. */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

t.test('the sample trace, sent with the key alone, read back through the API', async (t) => {
  const server = await serverFor(t);
  const root = rootCredentials(server);
  // A write-only SDK key: what an instrumented service holds.
  const sdk = await createKey(server, root, { name: 'demo', role: 'SDK' });
  const r = await quickstart(['--key', sdk.key, '--url', `${server.url}/`]);
  t.equal(r.code, 0, r.stderr);
  t.equal(r.stderr, '');
  const link = new RegExp(`^  ${server.url.replace(/[.]/g, '\\.')}/#/traces/([0-9a-f]{32})$`, 'm').exec(r.stdout);
  t.ok(link, `the UI address of the trace: ${r.stdout}`);
  const traceId = link![1]!;
  t.match(r.stdout, `Sent a sample agent trace to ${server.url} (app ${root.appId}):`, 'the app found from the key');
  t.match(r.stdout, /4 spans, 2 calls to gpt-4\.1-mini \(1049 tokens\) and 1 tool call/);
  t.match(r.stdout, 'scores    helpfulness 0.9, resolved true, tone friendly');

  // Readable now: the export waited for visibility.
  const trace = await call(server, 'GET', `/v1/traces/${traceId}`, { auth: root });
  t.equal(trace.status, 200, trace.text.slice(0, 300));
  const d = trace.body.data;
  t.equal(d.name, 'invoke_agent support-agent', 'the agent span names the trace');
  t.equal(d.span_count, 4);
  t.equal(d.tokens, 1049, 'both model calls counted');
  t.ok(d.cost > 0, 'priced');
  t.same(d.metadata, { channel: 'web-chat', customer_plan: 'pro', sent_by: 'tracelake quickstart' });
  t.same(d.tags, ['quickstart', 'support']);
  const spans = await call(server, 'GET', `/v1/traces/${traceId}/spans`, { auth: root });
  t.same(
    spans.body.data.map(
      (s: {
        name: string;
        span_kind: string;
        model: string | null;
        input_tokens: number | null;
        output_tokens: number | null;
      }) => [s.name, s.span_kind, s.model, s.input_tokens, s.output_tokens],
    ),
    [
      ['invoke_agent support-agent', 'agent', null, null, null],
      ['chat gpt-4.1-mini', 'llm', 'gpt-4.1-mini-2025-04-14', 412, 38],
      ['execute_tool lookup_order', 'tool', null, null, null],
      ['chat gpt-4.1-mini', 'llm', 'gpt-4.1-mini-2025-04-14', 538, 61],
    ],
    'the agent, a model call, the tool, a model call — in order',
  );
  const sessionId = /session {3}(\S+), user user-ada$/m.exec(r.stdout)?.[1];
  t.equal(sessionId, `demo-${traceId.slice(0, 8)}`, 'the session it printed');
  t.ok(
    spans.body.data.every((s: { session_id: string }) => s.session_id === sessionId),
    'every span in it',
  );
  const session = await call(server, 'GET', `/v1/sessions/${encodeURIComponent(sessionId!)}/traces`, { auth: root });
  t.same(
    session.body?.data?.map((x: { id: string }) => x.id),
    [traceId],
    `its session (${sessionId})`,
  );

  const scores = await call(server, 'GET', `/v1/scores?trace_id=${traceId}`, { auth: root });
  t.equal(scores.status, 200, scores.text.slice(0, 300));
  const byName = Object.fromEntries(
    scores.body.data.map((s: { name: string; score: number; label: string | null; data_type: string }) => [
      s.name,
      [s.data_type, s.score, s.label],
    ]),
  );
  t.same(byName, {
    helpfulness: ['NUMERIC', 0.9, null],
    resolved: ['BOOLEAN', 1, null],
    tone: ['CATEGORICAL', 1, 'friendly'],
  });

  // `npm run demo`, with the key from the environment and the app given.
  const demo = await run('npm', ['run', '--silent', 'demo', '--', '--url', server.url, '--app', root.appId], {
    TRACELAKE_API_KEY: root.key,
  });
  t.equal(demo.code, 0, demo.stderr);
  t.match(demo.stdout, `${server.url}/#/traces/`);
  t.equal(
    (await call(server, 'GET', '/v1/traces', { auth: root })).body.pagination.total,
    2,
    'a second trace of its own',
  );
});

t.test('no server, a refused key, a usage error', async (t) => {
  const port = await freePort();
  const none = await quickstart(['--key', 'sk_service_x', '--url', `http://127.0.0.1:${port}`]);
  t.equal(none.code, 1);
  t.match(
    none.stderr,
    new RegExp(
      `^tracelake: no Tracelake server answers at http://127\\.0\\.0\\.1:${port} \\(ECONNREFUSED\\): start one with "npm start", or give its address with --url\\n$`,
    ),
  );
  t.equal(none.stdout, '');

  const server = await serverFor(t);
  const refused = await quickstart(['--key', `sk_service_${'9'.repeat(40)}`, '--url', server.url]);
  t.equal(refused.code, 1);
  t.match(refused.stderr, /^tracelake: the server at http:\/\/127\.0\.0\.1:\d+ refused the key: Invalid API key\n$/);
  const wrongApp = await quickstart([
    '--key',
    rootCredentials(server).key,
    '--url',
    server.url,
    '--app',
    '00000000-0000-4000-8000-000000000000',
  ]);
  t.equal(wrongApp.code, 1);
  t.match(wrongApp.stderr, /refused the key: This API key does not belong to the app named in X-Service-App-Id\n$/);
  const reader = await createKey(server, rootCredentials(server), { name: 'reader', role: 'Read-Only' });
  const readOnly = await quickstart(['--key', reader.key, '--url', server.url]);
  t.equal(readOnly.code, 1);
  t.match(readOnly.stderr, /^tracelake: the key may not do this \(sending the trace\): .*trace\.write/);

  const usage = await quickstart([]);
  t.equal(usage.code, 2);
  t.match(usage.stderr, /^tracelake: no API key: give --key .*\nRun "tracelake quickstart --help" for usage\.\n$/);
  const help = await quickstart(['--help']);
  t.equal(help.code, 0);
  t.match(help.stdout, /^Usage: tracelake quickstart --key KEY/);
  const overall = await run(process.execPath, [CLI, '--help']);
  t.match(overall.stdout, /quickstart --key KEY \[--url URL\]/, 'listed in tracelake --help');
});
