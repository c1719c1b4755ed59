/**
 * kill -9 after a sync request of blobs alone was made durable (run by `npm run faults`): its
 * record holds blobs and no span, and the restart's replay of the ingest log stores them still.
 */
import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import t from 'tap';
import { call, rootCredentials, startServer, tempDir } from '../helpers/server.js';

t.test('kill -9 after-log-sync of blobs sent alone: the replay stores them', async (t) => {
  const dataDir = tempDir();
  const crashing = await startServer({
    dataDir,
    env: { TRACELAKE_FAULT_INJECTION: 'on', TRACELAKE_CRASH_AT: 'after-log-sync' },
  });
  const auth = rootCredentials(crashing);
  const data = Buffer.from('a screenshot sent before the session that shows it');
  const sha256 = createHash('sha256').update(data).digest('hex');
  const body = {
    schemaVersion: 1,
    sessions: [],
    blobs: [{ sha256, mediaType: 'image/png', bytes: data.length, data: data.toString('base64') }],
  };
  const died = await call(crashing, 'POST', '/v1/agents/sync', { auth, body }).then(
    (r) => `answered ${r.status}`,
    () => 'no answer',
  );
  t.equal(died, 'no answer', 'the process died once the record was durable');
  t.not(await crashing.stop('SIGKILL'), 0);

  const server = await startServer({ dataDir });
  t.teardown(async () => {
    await server.stop('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });
  const back = await fetch(`${server.url}/v1/agents/blob/${sha256}`, {
    headers: { authorization: `Bearer ${auth.key}`, 'x-service-app-id': auth.appId },
  });
  t.equal(back.status, 200, 'the replayed record stored its blob');
  t.same(Buffer.from(await back.arrayBuffer()), data);
});
