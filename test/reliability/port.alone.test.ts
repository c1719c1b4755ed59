/**
 * Integration: one server per port. A second server started on a port another one listens on
 * refuses the start, with exit code 98 and one line naming the port and the process holding it —
 * whichever front end either of them serves with. Before, uWS's SO_REUSEPORT let both listen and
 * split the requests between two stores.
 */
import { readdirSync } from 'node:fs';
import t from 'tap';
import { uwsServerOptions } from '../helpers/newerGlibc.js';
import { rootCredentials, call, runToExit, serverFor, tempDir, type ServerOptions } from '../helpers/server.js';

const uws = uwsServerOptions();
const node: ServerOptions = { env: { TRACELAKE_FRONT_END: 'node' } };
const pairs: [string, ServerOptions | null, ServerOptions | null][] = [
  ['node:http, then node:http', node, node],
  ['uWebSockets.js, then node:http', 'options' in uws ? uws.options : null, node],
  ['node:http, then uWebSockets.js', node, 'options' in uws ? uws.options : null],
];

for (const [name, first, second] of pairs) {
  t.test(
    name,
    { skip: (first === null || second === null) && `uWebSockets.js cannot run here: ${'why' in uws ? uws.why : ''}` },
    async (t) => {
      const holder = await serverFor(t, first!);
      const dataDir = tempDir();
      const run = await runToExit({ ...second!, dataDir, args: ['--port', String(holder.port)] });
      t.equal(run.code, 98, 'exit code 98');
      const lines = run.stdout.split('\n').filter((l) => l.trim() !== '');
      t.equal(lines.length, 1, 'one log line');
      const msg = (JSON.parse(lines[0]!) as { msg: string }).msg;
      t.match(
        msg,
        new RegExp(
          `^Port ${holder.port} on 127\\.0\\.0\\.1 is already in use, most likely by process ${holder.child.pid} \\(`,
        ),
        'naming the port and the process holding it',
      );
      t.match(msg, /Stop that process, or start Tracelake on another port/, 'and what to do');
      t.same(run.stderr.trim(), `tracelake: ${msg}`, 'the same line on stderr');
      t.same(readdirSync(dataDir), [], 'refused before the data directory was touched');

      // The first server still has the port to itself: every request reaches its store.
      const root = rootCredentials(holder);
      const answers = await Promise.all(
        Array.from({ length: 20 }, () => call(holder, 'GET', '/v1/api-keys', { auth: root })),
      );
      t.same(
        answers.map((a) => a.status),
        Array(20).fill(200),
        'all 20 requests answered by the first server',
      );
    },
  );
}
