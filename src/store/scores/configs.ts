/**
 * Score configs: one per score name and app (all environments of the app share them). Updates
 * check the merged definition whole before writing; existing scores are never re-judged.
 */
import { randomUUID } from 'node:crypto';
import { listValue } from '../duckdb.js';
import {
  checkConfigDefinition,
  mergeConfigPatch,
  type Category,
  type ConfigPatch,
  type ConfigRules,
  type ScoreConfigRule,
} from '../../core/scores/config.js';
import type { DataType } from '../../core/scores/model.js';
import { RERUN_ON_CONFLICT, type Database, type Reader } from '../db.js';
import type { Page } from '../spans/reads.js';
import { isUniqueViolation } from '../refusals.js';
import { iso, TS_PARAM } from '../sql.js';

export interface AppScope {
  tenantId: string;
  appId: string;
}

/** A config as the API shows it. */
export interface ScoreConfigView {
  id: string;
  name: string;
  data_type: DataType;
  min_value: number | null;
  max_value: number | null;
  categories: Category[] | null;
  description: string | null;
  created_at: string;
  created_by: string | null;
  updated_at: string;
  updated_by: string | null;
}

const VIEW = `SELECT id, name, data_type, min_value, max_value, categories, description,
                     ${iso('created_at')} AS created_at, created_by, ${iso('updated_at')} AS updated_at, updated_by
                FROM score_configs WHERE tenant_id = $1 AND app_id = $2`;

type RawView = Omit<ScoreConfigView, 'categories'> & { categories: string | null };

function toView(r: RawView): ScoreConfigView {
  return { ...r, categories: r.categories === null ? null : (JSON.parse(r.categories) as Category[]) };
}

export async function listConfigs(
  db: Database,
  scope: AppScope,
  limit: number,
  offset: number,
): Promise<Page<ScoreConfigView>> {
  const [rows, [count]] = await Promise.all([
    db.query<RawView>(`${VIEW} ORDER BY name LIMIT $3 OFFSET $4`, [scope.tenantId, scope.appId, limit, offset]),
    db.query<{ n: number }>('SELECT count(*)::INTEGER AS n FROM score_configs WHERE tenant_id = $1 AND app_id = $2', [
      scope.tenantId,
      scope.appId,
    ]),
  ]);
  return { data: rows.map(toView), total: count?.n ?? 0 };
}

export async function getConfig(db: Reader, scope: AppScope, name: string): Promise<ScoreConfigView | null> {
  const [row] = await db.query<RawView>(`${VIEW} AND name = $3`, [scope.tenantId, scope.appId, name]);
  return row ? toView(row) : null;
}

/** Creates a config; null when the app already has one of that name. */
export async function createConfig(
  db: Database,
  scope: AppScope,
  name: string,
  rules: ConfigRules,
  by: string,
): Promise<ScoreConfigView | null> {
  const created = await db
    .transaction(async (tx) => {
      const [dup] = await tx.query('SELECT 1 FROM score_configs WHERE tenant_id = $1 AND app_id = $2 AND name = $3', [
        scope.tenantId,
        scope.appId,
        name,
      ]);
      if (dup) return false;
      await tx.exec(
        `INSERT INTO score_configs (id, tenant_id, app_id, name, data_type, min_value, max_value, categories, description, created_at, created_by, updated_at, updated_by)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, ${TS_PARAM(10)}, $11, ${TS_PARAM(10)}, $11)`,
        [
          randomUUID(),
          scope.tenantId,
          scope.appId,
          name,
          rules.dataType,
          rules.minValue,
          rules.maxValue,
          categoriesText(rules),
          rules.description,
          Date.now(),
          by,
        ],
      );
      return true;
    })
    // Two creations of one name at once: the second meets the primary key.
    .catch((e: unknown) => {
      if (isUniqueViolation(e)) return false;
      throw e;
    });
  return created ? getConfig(db, scope, name) : null;
}

/**
 * Applies `patch` to the config `name`, checking the result whole; null when there is no such config.
 * Read and written in one transaction, run again should another change the config meanwhile: two
 * patches at once both apply, each checked against the other's result (without that, the later
 * wrote back what it had read, losing the first, or lost the race with a 500).
 */
export async function updateConfig(
  db: Database,
  scope: AppScope,
  name: string,
  patch: ConfigPatch,
  by: string,
): Promise<ScoreConfigView | null> {
  const updated = await db.transaction(async (tx) => {
    const current = await getConfig(tx, scope, name);
    if (!current) return false;
    const stored: ConfigRules = {
      dataType: current.data_type,
      minValue: current.min_value,
      maxValue: current.max_value,
      categories: current.categories,
      description: current.description,
    };
    const rules = checkConfigDefinition(mergeConfigPatch(stored, patch));
    await tx.exec(
      `UPDATE score_configs SET min_value = $4, max_value = $5, categories = $6, description = $7, updated_at = ${TS_PARAM(8)}, updated_by = $9
          WHERE tenant_id = $1 AND app_id = $2 AND name = $3`,
      [
        scope.tenantId,
        scope.appId,
        name,
        rules.minValue,
        rules.maxValue,
        categoriesText(rules),
        rules.description,
        Date.now(),
        by,
      ],
    );
    return true;
  }, RERUN_ON_CONFLICT);
  return updated ? getConfig(db, scope, name) : null;
}

/** The configs of the given score names, by name. */
export async function configRules(
  db: Database,
  scope: AppScope,
  names: readonly string[],
): Promise<Map<string, ScoreConfigRule>> {
  const rules = new Map<string, ScoreConfigRule>();
  if (names.length === 0) return rules;
  const rows = await db.query<RawView>(`${VIEW} AND name IN (SELECT unnest($3::VARCHAR[]))`, [
    scope.tenantId,
    scope.appId,
    listValue([...names]),
  ]);
  for (const r of rows.map(toView)) {
    rules.set(r.name, {
      id: r.id,
      name: r.name,
      dataType: r.data_type,
      minValue: r.min_value,
      maxValue: r.max_value,
      categories: r.categories,
    });
  }
  return rules;
}

function categoriesText(rules: ConfigRules): string | null {
  return rules.categories === null
    ? null
    : JSON.stringify(rules.categories.map(({ label, value }) => ({ label, value })));
}
