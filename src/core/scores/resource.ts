/**
 * A score's `resource_id` must name a trace or span of the caller's app (and environment, for a
 * pinned key); `session_id` a session of it. The store looks the ids of a whole batch up at once;
 * this module judges each item against what was found.
 */
import type { ItemError, ResourceType } from './model.js';

export interface ResourceLookup {
  /**
   * Trace id → an environment of its spans and the sessions its spans name; `ambiguous` when the id
   * is a trace in several environments, none of them the writer's (`addTrace`).
   */
  traces: Map<string, FoundTrace>;
  /** Span id → its trace. */
  spans: Map<string, { traceId: string }>;
  /** Session id → an environment of its spans. */
  sessions: Map<string, { environmentId: string }>;
}

export interface FoundTrace {
  environmentId: string;
  sessions: string[];
  ambiguous?: boolean;
}

/**
 * Records a trace found in one environment. One trace id in several environments is several
 * traces: a score goes to the writer's environment's when there is one, and is refused otherwise
 * (`resolveResource`) — a lower environment reusing a production trace id never draws its scores.
 */
export function addTrace(
  traces: ResourceLookup['traces'],
  id: string,
  found: FoundTrace,
  writeEnvironmentId: string | null,
): void {
  const seen = traces.get(id);
  if (seen === undefined || found.environmentId === writeEnvironmentId) traces.set(id, found);
  else if (seen.environmentId !== found.environmentId && seen.environmentId !== writeEnvironmentId)
    seen.ambiguous = true;
}

/** What an item names, as `prepareItem` left it. */
export interface ResourceRef {
  resourceId: string | null;
  resourceKind: 'trace' | 'span' | null;
  sessionId: string | null;
}

export interface ResolvedResource {
  resourceType: ResourceType;
  /** The trace or span id, or for a session score the session id. */
  resourceId: string;
  /** The scored trace, or the trace of the scored span; null for a session. */
  traceId: string | null;
  sessionId: string | null;
  environmentId: string;
}

export type Resolution = { ok: true; value: ResolvedResource } | { ok: false; error: ItemError };

/** The ids to look up for `refs`: span ids first, since their traces are looked up next. */
export function idsToLookUp(refs: readonly ResourceRef[]): {
  traceIds: string[];
  spanIds: string[];
  sessionIds: string[];
} {
  const traceIds = new Set<string>();
  const spanIds = new Set<string>();
  const sessionIds = new Set<string>();
  for (const r of refs) {
    if (r.resourceKind === 'trace') traceIds.add(r.resourceId!);
    if (r.resourceKind === 'span') spanIds.add(r.resourceId!);
    if (r.resourceId === null && r.sessionId !== null) sessionIds.add(r.sessionId);
  }
  return { traceIds: [...traceIds], spanIds: [...spanIds], sessionIds: [...sessionIds] };
}

/**
 * Judges one reference against the lookup. With both a resource and a session, the resource's
 * trace must belong to the session. The environment is the pinned one when the caller is pinned,
 * else the resource's own.
 */
export function resolveResource(
  ref: ResourceRef,
  lookup: ResourceLookup,
  pinnedEnvironmentId: string | null,
): Resolution {
  if (ref.resourceId === null) {
    const session = lookup.sessions.get(ref.sessionId!);
    if (!session) return notFound('session_id', `no session "${ref.sessionId}" in this app`);
    // A session score's resource is the session: its id is the score's resource_id.
    return ok({
      resourceType: 'session',
      resourceId: ref.sessionId!,
      traceId: null,
      sessionId: ref.sessionId,
      environmentId: pinnedEnvironmentId ?? session.environmentId,
    });
  }
  const traceId = ref.resourceKind === 'span' ? lookup.spans.get(ref.resourceId)?.traceId : ref.resourceId;
  const trace = traceId === undefined ? undefined : lookup.traces.get(traceId);
  if (!trace) return notFound('resource_id', `no ${ref.resourceKind} "${ref.resourceId}" in this app`);
  if (pinnedEnvironmentId === null && trace.ambiguous) {
    return {
      ok: false,
      error: {
        code: 'invalid_request_body',
        message: `resource_id: the trace ${traceId} is in several environments of this app, none of them the one these credentials write to: score it with a key of its environment`,
        field: 'resource_id',
      },
    };
  }
  if (ref.sessionId !== null && !trace.sessions.includes(ref.sessionId)) {
    return {
      ok: false,
      error: {
        code: 'invalid_request_body',
        message: `session_id: the trace ${traceId} is not part of session "${ref.sessionId}"`,
        field: 'session_id',
      },
    };
  }
  return ok({
    resourceType: ref.resourceKind!,
    resourceId: ref.resourceId,
    traceId: traceId!,
    sessionId: ref.sessionId,
    environmentId: pinnedEnvironmentId ?? trace.environmentId,
  });
}

function ok(value: ResolvedResource): Resolution {
  return { ok: true, value };
}

function notFound(field: string, message: string): Resolution {
  return { ok: false, error: { code: 'not_found', message: `${field}: ${message}`, field } };
}
