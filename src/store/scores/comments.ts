/**
 * Comments on traces, spans and sessions: their own rows, never a change to what they comment on.
 * The commented resource must exist in the caller's scope when the comment is made.
 */
import { randomUUID } from 'node:crypto';
import { ApiError } from '../../core/errors.js';
import type { ResourceType } from '../../core/scores/model.js';
import { resolveResource, type ResourceRef } from '../../core/scores/resource.js';
import type { Database } from '../db.js';
import type { Page } from '../spans/reads.js';
import { scopeSql, type ReadScope } from '../scope.js';
import type { SegmentStore } from '../spans/segmentStore.js';
import { lookupResources } from './resources.js';
import { iso, TS_PARAM } from '../sql.js';

export interface CommentView {
  id: string;
  resource_type: ResourceType;
  resource_id: string;
  content: string;
  author_user_id: string | null;
  environment_id: string | null;
  created_at: string;
}

export interface NewComment {
  scope: ReadScope;
  /** The environment the caller writes to: its copy of a trace id found in several is the one meant. */
  writeEnvironmentId: string | null;
  resourceType: ResourceType;
  target: ResourceRef;
  content: string;
  authorUserId: string | null;
  createdBy: string;
}

const FIELDS = `id, resource_type, resource_id, content, author_user_id, environment_id, ${iso('created_at')} AS created_at`;

export async function createComment(db: Database, segments: SegmentStore, c: NewComment): Promise<CommentView> {
  const resolved = resolveResource(
    c.target,
    await lookupResources(db, segments, c.scope, [c.target], c.writeEnvironmentId),
    c.scope.environmentId,
  );
  if (!resolved.ok)
    throw new ApiError('not_found', `No ${c.resourceType} "${c.target.resourceId ?? c.target.sessionId}" in this app`);
  const id = randomUUID();
  const resourceId = c.target.resourceId ?? c.target.sessionId!;
  await db.exec(
    `INSERT INTO comments (id, tenant_id, app_id, environment_id, resource_type, resource_id, content, author_user_id, created_at, created_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, ${TS_PARAM(9)}, $10)`,
    [
      id,
      c.scope.tenantId,
      c.scope.appId,
      resolved.value.environmentId,
      c.resourceType,
      resourceId,
      c.content,
      c.authorUserId,
      Date.now(),
      c.createdBy,
    ],
  );
  return (await getComment(db, c.scope, id))!;
}

/** The comments on one resource, oldest first. */
export async function listComments(
  db: Database,
  scope: ReadScope,
  type: ResourceType,
  resourceId: string,
  limit: number,
  offset: number,
): Promise<Page<CommentView>> {
  const s = scopeSql(scope);
  const n = s.params.length;
  const where = `${s.sql} AND resource_type = $${n + 1} AND resource_id = $${n + 2}`;
  const params = [...s.params, type, resourceId];
  const [rows, [count]] = await Promise.all([
    db.query<CommentView>(
      `SELECT ${FIELDS} FROM comments WHERE ${where} ORDER BY created_at, id LIMIT $${n + 3} OFFSET $${n + 4}`,
      [...params, limit, offset],
    ),
    db.query<{ n: number }>(`SELECT count(*)::INTEGER AS n FROM comments WHERE ${where}`, params),
  ]);
  return { data: rows, total: count?.n ?? 0 };
}

export async function getComment(db: Database, scope: ReadScope, id: string): Promise<CommentView | null> {
  const s = scopeSql(scope);
  const [row] = await db.query<CommentView>(
    `SELECT ${FIELDS} FROM comments WHERE ${s.sql} AND id = $${s.params.length + 1}`,
    [...s.params, id],
  );
  return row ?? null;
}

/** Deletes one comment; the deleted comment, or null when none of that id is in scope. */
export async function deleteComment(db: Database, scope: ReadScope, id: string): Promise<CommentView | null> {
  const s = scopeSql(scope);
  const [row] = await db.query<CommentView>(
    `DELETE FROM comments WHERE ${s.sql} AND id = $${s.params.length + 1} RETURNING ${FIELDS}`,
    [...s.params, id],
  );
  return row ?? null;
}
