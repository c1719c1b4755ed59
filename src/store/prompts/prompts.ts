/**
 * Prompt versions and labels. Versions are immutable and numbered from 1 per prompt; labels point
 * at one version each and move; `latest` is not stored, it is the highest version. Writes of one app
 * run one at a time (`serially`), so numbering and label moves never race.
 */
import { listValue } from '../duckdb.js';
import { ApiError } from '../../core/errors.js';
import { KeyedLock } from '../../core/keyedLock.js';
import type { JsonValue } from '../../core/span.js';
import { LATEST } from '../../core/prompts/names.js';
import type { ChatMessage, PromptContent, PromptType } from '../../core/prompts/document.js';
import type { Database, Reader, Transaction } from '../db.js';
import type { Page } from '../spans/reads.js';
import { iso, TS_PARAM } from '../sql.js';
import type { AppRef } from '../git/connections.js';

/** One version as the API shows it. */
export interface PromptVersionView {
  name: string;
  version: number;
  type: PromptType;
  prompt: string | ChatMessage[];
  config: Record<string, JsonValue>;
  variables: string[];
  /** The labels on this version, `latest` included when it is the highest. */
  labels: string[];
  commit_message: string | null;
  source: 'api' | 'git';
  source_path: string | null;
  commit_sha: string | null;
  blob_sha: string | null;
  created_at: string;
  created_by: string | null;
}

/** A prompt in a listing: its versions and labels, and its highest version's type, variables and config. */
export interface PromptSummary {
  name: string;
  type: PromptType;
  versions: number[];
  latest_version: number;
  /** Label → version, `latest` included. */
  labels: Record<string, number>;
  variables: string[];
  config: Record<string, JsonValue>;
  source: 'api' | 'git';
  updated_at: string;
}

export interface NewVersion {
  name: string;
  content: PromptContent;
  labels: string[];
  commitMessage: string | null;
  source: 'api' | 'git';
  sourcePath: string | null;
  commitSha: string | null;
  blobSha: string | null;
  by: string;
}

/** Which version of a prompt: by label (`latest` too) or by number. */
export type Selector = { label: string } | { version: number };

const promptWrites = new KeyedLock();

/** Runs the writes of one app one after another (the store thread runs many tasks at once). */
export function serially<T>(app: AppRef, work: () => Promise<T>): Promise<T> {
  return promptWrites.run(`${app.tenantId}/${app.appId}`, work);
}

type Row = Omit<PromptVersionView, 'prompt' | 'config' | 'labels'> & { prompt: string; config: string };

const VERSION_COLUMNS = `name, version, type, prompt, config, variables, commit_message, source, source_path, commit_sha, blob_sha,
                         ${iso('created_at')} AS created_at, created_by`;

function view(row: Row, labels: string[]): PromptVersionView {
  return {
    ...row,
    prompt: row.type === 'chat' ? (JSON.parse(row.prompt) as ChatMessage[]) : row.prompt,
    config: JSON.parse(row.config) as Record<string, JsonValue>,
    labels,
  };
}

/** The stored labels of `version`, then `latest` when it is the highest. */
async function labelsOf(q: Reader, app: AppRef, name: string, version: number): Promise<string[]> {
  const rows = await q.query<{ label: string; latest: boolean }>(
    `SELECT label, false AS latest FROM prompt_labels WHERE tenant_id = $1 AND app_id = $2 AND name = $3 AND version = $4
     UNION ALL
     SELECT '${LATEST}', true FROM prompt_versions WHERE tenant_id = $1 AND app_id = $2 AND name = $3
     HAVING max(version) = $4
     ORDER BY latest, label`,
    [app.tenantId, app.appId, name, version],
  );
  return rows.map((r) => r.label);
}

/** One version by label or number; null when there is none. */
export async function getVersion(
  db: Database,
  app: AppRef,
  name: string,
  selector: Selector,
): Promise<PromptVersionView | null> {
  const base = 'FROM prompt_versions v WHERE v.tenant_id = $1 AND v.app_id = $2 AND v.name = $3';
  const [row] =
    'version' in selector
      ? await db.query<Row>(`SELECT ${VERSION_COLUMNS} ${base} AND v.version = $4`, [
          app.tenantId,
          app.appId,
          name,
          selector.version,
        ])
      : selector.label === LATEST
        ? await db.query<Row>(`SELECT ${VERSION_COLUMNS} ${base} ORDER BY v.version DESC LIMIT 1`, [
            app.tenantId,
            app.appId,
            name,
          ])
        : await db.query<Row>(
            `SELECT ${VERSION_COLUMNS} ${base}
                AND v.version = (SELECT l.version FROM prompt_labels l WHERE l.tenant_id = $1 AND l.app_id = $2 AND l.name = $3 AND l.label = $4)`,
            [app.tenantId, app.appId, name, selector.label],
          );
  return row ? view(row, await labelsOf(db, app, name, row.version)) : null;
}

/** Creates the next version of `v.name` (refused when the prompt exists with another type). */
export async function createVersion(db: Database, app: AppRef, v: NewVersion): Promise<PromptVersionView> {
  const version = await serially(app, () => db.transaction((tx) => insertVersion(tx, app, v)));
  return (await getVersion(db, app, v.name, { version }))!;
}

async function insertVersion(tx: Transaction, app: AppRef, v: NewVersion): Promise<number> {
  const [head] = await tx.query<{ version: number; type: PromptType }>(
    'SELECT version, type FROM prompt_versions WHERE tenant_id = $1 AND app_id = $2 AND name = $3 ORDER BY version DESC LIMIT 1',
    [app.tenantId, app.appId, v.name],
  );
  if (head && head.type !== v.content.type) {
    throw new ApiError(
      'conflict',
      `Prompt "${v.name}" is a ${head.type} prompt; a version of type ${v.content.type} cannot be added to it`,
    );
  }
  const version = (head?.version ?? 0) + 1;
  const c = v.content;
  await tx.exec(
    `INSERT INTO prompt_versions (tenant_id, app_id, name, version, type, prompt, config, variables, commit_message, source, source_path, commit_sha, blob_sha, created_at, created_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, from_json($8::JSON, '["VARCHAR"]'), $9, $10, $11, $12, $13, ${TS_PARAM(14)}, $15)`,
    [
      app.tenantId,
      app.appId,
      v.name,
      version,
      c.type,
      typeof c.prompt === 'string' ? c.prompt : JSON.stringify(c.prompt),
      JSON.stringify(c.config),
      // As JSON: an empty list has no element type to bind.
      JSON.stringify(c.variables),
      v.commitMessage,
      v.source,
      v.sourcePath,
      v.commitSha,
      v.blobSha,
      Date.now(),
      v.by,
    ],
  );
  await moveLabels(tx, app, v.name, version, v.labels, v.by);
  return version;
}

async function moveLabels(
  tx: Transaction,
  app: AppRef,
  name: string,
  version: number,
  labels: readonly string[],
  by: string,
): Promise<void> {
  if (labels.length === 0) return;
  await tx.exec(
    'DELETE FROM prompt_labels WHERE tenant_id = $1 AND app_id = $2 AND name = $3 AND label IN (SELECT unnest($4::VARCHAR[]))',
    [app.tenantId, app.appId, name, listValue([...labels])],
  );
  await tx.exec(
    `INSERT INTO prompt_labels (tenant_id, app_id, name, label, version, updated_at, updated_by)
     SELECT $1, $2, $3, unnest($4::VARCHAR[]), $5, ${TS_PARAM(6)}, $7`,
    [app.tenantId, app.appId, name, listValue([...labels]), version, Date.now(), by],
  );
}

/** Puts `labels` on `version` (taking them from the versions that had them); null when there is no such version. */
export async function setLabels(
  db: Database,
  app: AppRef,
  name: string,
  version: number,
  labels: string[],
  by: string,
): Promise<PromptVersionView | null> {
  const found = await serially(app, () =>
    db.transaction(async (tx) => {
      const [exists] = await tx.query(
        'SELECT 1 FROM prompt_versions WHERE tenant_id = $1 AND app_id = $2 AND name = $3 AND version = $4',
        [app.tenantId, app.appId, name, version],
      );
      if (!exists) return false;
      await moveLabels(tx, app, name, version, labels, by);
      return true;
    }),
  );
  return found ? getVersion(db, app, name, { version }) : null;
}

/** Takes `label` off the prompt; whether it was on a version. */
export async function removeLabel(db: Database, app: AppRef, name: string, label: string): Promise<boolean> {
  return serially(app, async () => {
    const [row] = await db.query<{ n: number }>(
      'SELECT count(*)::INTEGER AS n FROM prompt_labels WHERE tenant_id = $1 AND app_id = $2 AND name = $3 AND label = $4',
      [app.tenantId, app.appId, name, label],
    );
    await db.exec('DELETE FROM prompt_labels WHERE tenant_id = $1 AND app_id = $2 AND name = $3 AND label = $4', [
      app.tenantId,
      app.appId,
      name,
      label,
    ]);
    return (row?.n ?? 0) > 0;
  });
}

export interface PromptListQuery {
  name?: string;
  label?: string;
  limit: number;
  offset: number;
}

/** The app's prompts by name, optionally one name, or those carrying `label`. */
export async function listPrompts(db: Database, app: AppRef, q: PromptListQuery): Promise<Page<PromptSummary>> {
  const params: unknown[] = [app.tenantId, app.appId];
  const where: string[] = [];
  if (q.name !== undefined) {
    params.push(q.name);
    where.push(`p.name = $${params.length}`);
  }
  if (q.label !== undefined && q.label !== LATEST) {
    params.push(q.label);
    where.push(
      `EXISTS (SELECT 1 FROM prompt_labels l WHERE l.tenant_id = $1 AND l.app_id = $2 AND l.name = p.name AND l.label = $${params.length})`,
    );
  }
  const relation = `WITH p AS (
      SELECT name, list(version ORDER BY version) AS versions, max(version) AS latest_version
        FROM prompt_versions WHERE tenant_id = $1 AND app_id = $2 GROUP BY name)
    SELECT p.name, p.versions, p.latest_version, v.type, v.variables, v.config, v.source, ${iso('v.created_at')} AS updated_at,
           (SELECT list({'label': l.label, 'version': l.version} ORDER BY l.label) FROM prompt_labels l
             WHERE l.tenant_id = $1 AND l.app_id = $2 AND l.name = p.name) AS labels
      FROM p JOIN prompt_versions v ON v.tenant_id = $1 AND v.app_id = $2 AND v.name = p.name AND v.version = p.latest_version
     ${where.length ? `WHERE ${where.join(' AND ')}` : ''}`;
  const n = params.length;
  const [rows, [count]] = await Promise.all([
    db.query<
      Omit<PromptSummary, 'labels' | 'config'> & { config: string; labels: { label: string; version: number }[] | null }
    >(`${relation} ORDER BY p.name LIMIT $${n + 1} OFFSET $${n + 2}`, [...(params as string[]), q.limit, q.offset]),
    db.query<{ n: number }>(`SELECT count(*)::INTEGER AS n FROM (${relation})`, params as string[]),
  ]);
  const data = rows.map((r) => ({
    ...r,
    config: JSON.parse(r.config) as Record<string, JsonValue>,
    labels: Object.fromEntries([
      ...(r.labels ?? []).map((l) => [l.label, l.version] as const),
      [LATEST, r.latest_version] as const,
    ]),
  }));
  return { data, total: count?.n ?? 0 };
}

/** Whether the prompt `name` already has a version read from the file content `blobSha`. */
export async function hasBlob(db: Database, app: AppRef, name: string, blobSha: string): Promise<boolean> {
  const [row] = await db.query(
    'SELECT 1 FROM prompt_versions WHERE tenant_id = $1 AND app_id = $2 AND name = $3 AND blob_sha = $4 LIMIT 1',
    [app.tenantId, app.appId, name, blobSha],
  );
  return row !== undefined;
}
