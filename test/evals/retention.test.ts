/**
 * Retention drops old blobs with old spans, but not eval trial artifacts: trials and their scores
 * are kept, so their artifacts are too.
 */
import { rmSync } from 'node:fs';
import t from 'tap';
import { Database } from '../../src/store/db.js';
import { call, rootCredentials, startServer, tempDir } from '../helpers/server.js';
import { until } from '../helpers/until.js';
import { claimedRun, sendTrials, trial } from './helpers.js';

const OLD_BLOB = 'f'.repeat(64);

t.test('span retention keeps eval artifacts', async (t) => {
  const dataDir = tempDir();
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const first = await startServer({ dataDir });
  const root = rootCredentials(first);
  const scope = {
    tenantId: first.bootstrap!.tenant_id as string,
    appId: root.appId,
    environmentId: first.bootstrap!.environment_id as string,
  };
  const run = await claimedRun(first, root, { experiment: 'retention' });
  const sent = await sendTrials(first, run.worker, run.id, [trial('kept', { artifact: { keep: 'me' } })]);
  t.equal(sent.body.data.blobsStored, 1);
  const [listed] = (await call(first, 'GET', `/v1/evals/runs/${run.id}/trials`, { auth: root })).body.data;
  await first.stop();

  // Ten days pass for every blob; a blob no trial names stands for a span's.
  const db = await Database.open({ dataDir, threads: 1, memoryLimit: '256MiB', queryTimeoutMs: 10_000 });
  await db.exec('UPDATE blobs SET created_at = created_at - INTERVAL 10 DAY');
  await db.exec(
    `INSERT INTO blobs VALUES ($1, $2, '${OLD_BLOB}', 'application/json', 2, '{}'::BLOB, now()::TIMESTAMP - INTERVAL 10 DAY)`,
    [scope.tenantId, scope.appId],
  );
  await db.exec(`INSERT INTO blob_refs VALUES ($1, $2, $3, '${OLD_BLOB}')`, [
    scope.tenantId,
    scope.appId,
    scope.environmentId,
  ]);
  db.close();

  const server = await startServer({ dataDir, args: ['--retention-days', '1'] });
  t.teardown(() => server.stop('SIGKILL').then(() => undefined));
  const oldBlob = () => call(server, 'GET', `/v1/agents/blob/${OLD_BLOB}`, { auth: root });
  await until(async () => (await oldBlob()).status !== 200, 15_000);
  t.equal((await oldBlob()).status, 404, 'an old blob no trial names is dropped at start');
  const artifact = await call(server, 'GET', `/v1/agents/blob/${listed.artifact_sha256}`, { auth: root });
  t.equal(artifact.status, 200, 'the artifact of a trial stays');
  t.same(JSON.parse(artifact.text), { keep: 'me' });
});
