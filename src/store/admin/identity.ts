/**
 * The store's hold on its secret: the check value recorded with the first secret it was started
 * with (see auth/secret.ts). A store older than the check takes the secret it is started with.
 */
import type { SecretVerdict } from '../../auth/secret.js';
import type { Database } from '../db.js';

/**
 * Judges the secret whose check value is `check`: `mismatch` when the store knows another one;
 * `lost` when the secret is new (`fresh`) but the store already has live API keys, which only the old
 * secret verifies; otherwise records it (if it is not yet) and answers `ok`.
 */
export async function verifySecret(db: Database, check: string, fresh: boolean): Promise<SecretVerdict> {
  return db.transaction(async (tx) => {
    const [known] = await tx.query<{ secret_check: string }>('SELECT secret_check FROM store_identity LIMIT 1');
    // A fresh secret cannot match a recorded check: the one the store knows is missing.
    if (known) return known.secret_check === check ? 'ok' : fresh ? 'lost' : 'mismatch';
    const [{ n } = { n: 0 }] = await tx.query<{ n: number }>(
      'SELECT count(*)::INTEGER AS n FROM api_keys WHERE revoked_at IS NULL',
    );
    if (n > 0 && fresh) return 'lost';
    await tx.exec('INSERT INTO store_identity (secret_check) VALUES ($1)', [check]);
    return 'ok';
  });
}

/**
 * The recovery from a lost secret: every key is revoked (no key can verify any more) and the new
 * secret's check value replaces the old one. Returns the apps, each with its default environment,
 * for which the caller mints new keys.
 */
export async function resetSecret(
  db: Database,
  check: string,
): Promise<{ tenantId: string; appId: string; environmentId: string }[]> {
  return db.transaction(async (tx) => {
    await tx.exec('UPDATE api_keys SET revoked_at = now()::TIMESTAMP WHERE revoked_at IS NULL');
    await tx.exec('DELETE FROM store_identity');
    await tx.exec('INSERT INTO store_identity (secret_check) VALUES ($1)', [check]);
    return tx.query<{ tenantId: string; appId: string; environmentId: string }>(
      `SELECT a.tenant_id::VARCHAR AS "tenantId", a.id::VARCHAR AS "appId", e.id::VARCHAR AS "environmentId"
         FROM apps a JOIN environments e ON e.app_id = a.id AND e.is_default ORDER BY a.created_at, a.id`,
    );
  });
}
