/**
 * A store for the read benchmarks: a server's first start bootstraps it (tenant, app, environment
 * and the key `key`), then `spans` synthetic spans are written straight into its segments.
 */
import { Database } from '../src/store/db.js';
import { startServer, tempDir } from '../test/helpers/server.js';
import { loadSynthetic, type SyntheticScope } from './synthetic.js';

export interface SyntheticStore {
  dataDir: string;
  scope: SyntheticScope;
  /** How the benchmark opens the store's database itself. */
  dbOptions: { dataDir: string; threads: number; memoryLimit: string; queryTimeoutMs: number };
  /** The newest trace starts a minute before this. */
  now: number;
}

export async function syntheticStore(name: string, key: string, spans: number): Promise<SyntheticStore> {
  const dataDir = tempDir(`tracelake-${name}-bench-`);
  const boot = await startServer({ dataDir, env: { TRACELAKE_BOOTSTRAP_KEY: key } });
  const b = boot.bootstrap!;
  const scope = {
    tenantId: b.tenant_id as string,
    appId: b.app_id as string,
    environmentId: b.environment_id as string,
  };
  await boot.stop('SIGTERM');
  const dbOptions = { dataDir, threads: 2, memoryLimit: '4GiB', queryTimeoutMs: 600_000 };
  const now = Date.now();
  const db = await Database.open(dbOptions);
  const t0 = performance.now();
  await loadSynthetic(db, dataDir, scope, spans, now);
  await db.checkpoint();
  db.close();
  console.log(`loaded ${spans.toLocaleString('en-US')} spans in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return { dataDir, scope, dbOptions, now };
}
