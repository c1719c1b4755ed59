/**
 * Git connections, one per app: the row of its handshake, then of its picked repository. Every
 * transition names the state token it answers to (`state_hash`), so a stale or replayed token
 * changes nothing; the token is cleared once the connection is made.
 */
import type { ConnectionState, GitProviderName, Phase } from '../../core/git/connection.js';
import { RERUN_ON_CONFLICT, type Database } from '../db.js';
import { TS_PARAM } from '../sql.js';

export interface AppRef {
  tenantId: string;
  appId: string;
}

/** A connection as stored: its state, its sealed credentials and the handshake's token hash. */
export interface ConnectionRow extends ConnectionState, AppRef {
  credentials: string | null;
  stateHash: string | null;
  syncedCommit: string | null;
}

export interface NewHandshake extends AppRef {
  provider: GitProviderName;
  phase: Exclude<Phase, 'connected'> | 'connected';
  /** GitHub App installations have their own id; the others get a number of ours. */
  installationId: number | null;
  credentials: string | null;
  stateHash: string | null;
  stateExpiresAtMs: number | null;
  repository: string | null;
  branch: string | null;
  by: string;
}

const COLUMNS = `tenant_id::VARCHAR AS "tenantId", app_id::VARCHAR AS "appId", provider, phase, installation_id::DOUBLE AS "installationId",
                 repository, branch, credentials, state_hash AS "stateHash", synced_commit AS "syncedCommit",
                 (epoch_ms(state_expires_at))::DOUBLE AS "stateExpiresAtMs"`;

export async function getConnection(db: Database, app: AppRef): Promise<ConnectionRow | null> {
  const [row] = await db.query<ConnectionRow>(
    `SELECT ${COLUMNS} FROM git_connections WHERE tenant_id = $1 AND app_id = $2`,
    [app.tenantId, app.appId],
  );
  return row ?? null;
}

/** The connection whose handshake token hashes to `stateHash`, whatever its app. */
export async function connectionByState(db: Database, stateHash: string): Promise<ConnectionRow | null> {
  const [row] = await db.query<ConnectionRow>(`SELECT ${COLUMNS} FROM git_connections WHERE state_hash = $1`, [
    stateHash,
  ]);
  return row ?? null;
}

/** Replaces the app's connection (if any) with a new one, as a handshake starts. */
export async function startHandshake(db: Database, h: NewHandshake): Promise<ConnectionRow> {
  await db.transaction(async (tx) => {
    await tx.exec('DELETE FROM git_connections WHERE tenant_id = $1 AND app_id = $2', [h.tenantId, h.appId]);
    await tx.exec(
      `INSERT INTO git_connections (tenant_id, app_id, provider, phase, installation_id, repository, branch, state_hash, state_expires_at,
                                    credentials, synced_commit, created_at, created_by, updated_at)
       VALUES ($1, $2, $3, $4, coalesce($5::BIGINT, nextval('git_connection_numbers')), $6, $7, $8,
               CASE WHEN $9::BIGINT IS NULL THEN NULL ELSE ${TS_PARAM(9)} END, $10, NULL, ${TS_PARAM(11)}, $12, ${TS_PARAM(11)})`,
      [
        h.tenantId,
        h.appId,
        h.provider,
        h.phase,
        h.installationId,
        h.repository,
        h.branch,
        h.stateHash,
        h.stateExpiresAtMs,
        h.credentials,
        Date.now(),
        h.by,
      ],
    );
    // Two handshakes at once: the one that commits last replaces the other, as one after the other.
  }, RERUN_ON_CONFLICT);
  return (await getConnection(db, h))!;
}

/** GitHub sent the human back: the installation authorises the connection (repository still to pick). */
export async function authorise(
  db: Database,
  app: AppRef & { stateHash: string; installationId: number; credentials: string },
): Promise<ConnectionRow | null> {
  await db.exec(
    `UPDATE git_connections SET phase = 'authorised', installation_id = $4, credentials = $5, updated_at = ${TS_PARAM(6)}
      WHERE tenant_id = $1 AND app_id = $2 AND state_hash = $3 AND phase = 'pending'`,
    [app.tenantId, app.appId, app.stateHash, app.installationId, app.credentials, Date.now()],
  );
  return getConnection(db, app);
}

/**
 * The human picked `repository` and `branch`: the connection is made and its token cleared. With a
 * `stateHash` the row must still hold that token (the page's form); without, any row of the app
 * (an admin naming the repository through the API).
 */
export async function select(
  db: Database,
  app: AppRef & { stateHash: string | null; repository: string; branch: string },
): Promise<ConnectionRow | null> {
  const byToken = app.stateHash === null ? '' : 'AND state_hash = $6';
  await db.exec(
    `UPDATE git_connections SET phase = 'connected', repository = $3, branch = $4, state_hash = NULL, state_expires_at = NULL,
            synced_commit = NULL, updated_at = ${TS_PARAM(5)}
      WHERE tenant_id = $1 AND app_id = $2 ${byToken}`,
    [
      app.tenantId,
      app.appId,
      app.repository,
      app.branch,
      Date.now(),
      ...(app.stateHash === null ? [] : [app.stateHash]),
    ],
  );
  const row = await getConnection(db, app);
  return row?.phase === 'connected' && row.repository === app.repository ? row : null;
}

/** Records the commit the app's prompts were last discovered at. */
export async function markSynced(db: Database, app: AppRef, commit: string): Promise<void> {
  await db.exec('UPDATE git_connections SET synced_commit = $3 WHERE tenant_id = $1 AND app_id = $2', [
    app.tenantId,
    app.appId,
    commit,
  ]);
}

/** Removes the app's connection; whether there was one. Prompt versions read from it stay. */
export async function disconnect(db: Database, app: AppRef): Promise<boolean> {
  const [row] = await db.query<{ n: number }>(
    'SELECT count(*)::INTEGER AS n FROM git_connections WHERE tenant_id = $1 AND app_id = $2',
    [app.tenantId, app.appId],
  );
  await db.exec('DELETE FROM git_connections WHERE tenant_id = $1 AND app_id = $2', [app.tenantId, app.appId]);
  return (row?.n ?? 0) > 0;
}
