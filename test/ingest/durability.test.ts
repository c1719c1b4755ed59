/** Integration: a 2xx on ingestion means durable — kill -9 right after the answer loses nothing. */
import { rmSync } from 'node:fs';
import t from 'tap';
import { hex } from '../helpers/otlp.js';
import { call, rootCredentials, startServer, tempDir } from '../helpers/server.js';
import { exportSpans } from '../helpers/exportSpans.js';

t.test('acknowledged spans survive SIGKILL', async (t) => {
  const dataDir = tempDir();
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const first = await startServer({ dataDir });
  const root = rootCredentials(first);
  const traces = Array.from({ length: 20 }, () => hex(16));
  await Promise.all(
    traces.map(async (traceId) => {
      const r = await exportSpans(first, root, [{ traceId }, { traceId }, { traceId }]);
      t.equal(r.status, 200);
    }),
  );
  t.not(await first.stop('SIGKILL'), 0, 'killed, not stopped');
  const second = await startServer({ dataDir });
  t.teardown(() => second.stop('SIGKILL'));
  for (const traceId of traces) {
    const r = await call(second, 'GET', `/v1/traces/${traceId}/spans`, { auth: root });
    t.equal(r.body.data?.length, 3, `trace ${traceId.slice(0, 8)} is whole after the crash`);
  }
});
