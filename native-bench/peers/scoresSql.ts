/**
 * Scores rendered to a tab-separated file (id, trace id, name, value, source, Unix µs), loaded into a
 * stopped Tracelake's store with one statement, rows as the store writes them (a trace score keeps no
 * resource_id of its own: `storedResourceId`). The API stamps scores with the time they arrive, so a
 * dataset's times can only be kept this way.
 */
import { Database } from '../../src/store/db.js';
import type { ReadScope } from '../../src/store/scope.js';
import { quote } from '../../src/store/spans/manifest.js';

export async function writeScores(dataDir: string, scope: ReadScope, file: string): Promise<void> {
  const db = await Database.open({ dataDir, threads: 2, memoryLimit: '4GiB', queryTimeoutMs: 3_600_000 });
  try {
    const [env] = await db.query<{ id: string }>(
      'SELECT id::VARCHAR AS id FROM environments WHERE app_id = $1 AND is_default',
      [scope.appId],
    );
    await db.exec(
      `INSERT INTO scores (id, tenant_id, app_id, environment_id, name, score, data_type, source, resource_id, resource_type, trace_id, created_at, created_by)
       SELECT s.id::UUID, $1::UUID, $2::UUID, $3::UUID, s.name, s.value, 'NUMERIC', s.source, NULL, 'trace', s.trace_id, make_timestamp(s.us), 'bench'
         FROM read_csv(${quote(file)}, delim = '\t', header = false, quote = '', escape = '',
                       columns = {'id': 'VARCHAR', 'trace_id': 'VARCHAR', 'name': 'VARCHAR', 'value': 'DOUBLE', 'source': 'VARCHAR', 'us': 'BIGINT'}) s`,
      [scope.tenantId, scope.appId, env!.id],
    );
    await db.checkpoint();
  } finally {
    db.close();
  }
}
