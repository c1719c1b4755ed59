/**
 * Trials of an eval run (`POST /v1/evals/trials`), checked one by one: a malformed trial is
 * rejected with its index and reason, the rest go on. Ids are derived from what identifies a trial
 * (run, task, attempt), so a retried batch names the same trials and stores nothing twice; the
 * content hash tells a retry from a different result sent under the same identity.
 */
import { createHash } from 'node:crypto';
import type { IValidation } from 'typia';
import { roundUsd } from '../cost/money.js';
import { ApiError, validationError } from '../errors.js';
import { firstIssue } from '../scores/item.js';

/** At most this many trials in one batch (the score batch's limit). */
export const MAX_TRIALS = 1000;

/** The score rows every trial gets (spec: Evaluations). */
export const TRIAL_SCORES = {
  resolved: 'eval.trial.resolved',
  cost: 'eval.trial.cost_usd',
  duration: 'eval.trial.duration_ms',
} as const;

/** A trial as the wire carries it (the contract adds the limits). */
export interface TrialInput {
  taskId: string;
  /** 1 for the first try of a task; a retry of the task is the next attempt. */
  attempt?: number;
  resolved: boolean;
  costUsd: number;
  durationMs: number;
  /** The trace the trial produced (32 hex). */
  traceId?: string;
  /** The agent session the trial ran as. */
  sessionId?: string;
  artifact: Record<string, unknown>;
  metadata?: Record<string, unknown>;
}

/** A trial that passed its checks; it crosses to the store thread as plain data. */
export interface PreparedTrial {
  index: number;
  id: string;
  taskId: string;
  attempt: number;
  resolved: boolean;
  costUsd: number;
  durationMs: number;
  traceId: string | null;
  sessionId: string | null;
  /** The artifact as stored (JSON text) and its SHA-256, the blob's address. */
  artifactJson: string;
  artifactSha256: string;
  metadataJson: string | null;
  contentHash: string;
  scoreIds: { resolved: string; cost: string; duration: string };
}

/** The spec's rejected entry: `{index, reason, sessionId}`. */
export interface TrialRejection {
  index: number;
  reason: string;
  sessionId: string | null;
}

/** 413 over the limit, 400 for an empty batch; decided before any trial is looked at. */
export function assertTrialCount(count: number): void {
  if (count === 0) throw validationError('body', { trials: 'a batch holds 1 to 1000 trials' });
  if (count > MAX_TRIALS)
    throw new ApiError('payload_too_large', `A batch holds at most ${MAX_TRIALS} trials, got ${count}`, {
      limit: MAX_TRIALS,
      count,
    });
}

/** A UUID (version 8: vendor-defined) from the first 128 bits of SHA-256 of `parts`. */
export function derivedUuid(...parts: string[]): string {
  const h = createHash('sha256').update(parts.join('\n')).digest();
  h[6] = (h[6]! & 0x0f) | 0x80;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The session id a rejected entry names: the trial's own, when it sent a readable one. */
function sessionIdOf(raw: unknown): string | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const id = (raw as { sessionId?: unknown }).sessionId;
  return typeof id === 'string' && id.length <= 256 ? id : null;
}

export type PreparedBatch = { trials: PreparedTrial[]; rejected: TrialRejection[] };

/**
 * Checks each raw trial against `shape` (the contract's validator), derives its ids and hashes,
 * and refuses a second trial of the same task and attempt in one batch.
 */
export function prepareTrials(
  runId: string,
  raws: readonly unknown[],
  shape: (input: unknown) => IValidation<TrialInput>,
): PreparedBatch {
  const trials: PreparedTrial[] = [];
  const rejected: TrialRejection[] = [];
  const seen = new Map<string, number>();
  raws.forEach((raw, index) => {
    const checked = shape(raw);
    if (!checked.success) {
      const issue = firstIssue(checked.errors);
      rejected.push({
        index,
        reason: issue.field === undefined ? 'a trial is a JSON object' : issue.message,
        sessionId: sessionIdOf(raw),
      });
      return;
    }
    const trial = prepareTrial(runId, checked.data, index);
    const first = seen.get(trial.id);
    if (first !== undefined) {
      rejected.push({
        index,
        reason: `task "${trial.taskId}" attempt ${trial.attempt} is already trial ${first} of this batch`,
        sessionId: trial.sessionId,
      });
      return;
    }
    seen.set(trial.id, index);
    trials.push(trial);
  });
  return { trials, rejected };
}

export function prepareTrial(runId: string, t: TrialInput, index: number): PreparedTrial {
  const attempt = t.attempt ?? 1;
  const id = derivedUuid('trial', runId, t.taskId, String(attempt));
  const artifactJson = JSON.stringify(t.artifact);
  const metadataJson = t.metadata === undefined ? null : JSON.stringify(t.metadata);
  const trial = {
    taskId: t.taskId,
    attempt,
    resolved: t.resolved,
    costUsd: roundUsd(t.costUsd),
    durationMs: t.durationMs,
    traceId: t.traceId?.toLowerCase() ?? null,
    sessionId: t.sessionId ?? null,
  };
  const artifactSha256 = sha256(artifactJson);
  return {
    index,
    id,
    ...trial,
    artifactJson,
    artifactSha256,
    metadataJson,
    contentHash: sha256(JSON.stringify([trial, artifactSha256, metadataJson])),
    scoreIds: {
      resolved: derivedUuid('score', id, TRIAL_SCORES.resolved),
      cost: derivedUuid('score', id, TRIAL_SCORES.cost),
      duration: derivedUuid('score', id, TRIAL_SCORES.duration),
    },
  };
}

export interface TrialResource {
  resourceType: 'trace' | 'session';
  resourceId: string;
  traceId: string | null;
  sessionId: string | null;
}

/**
 * What a trial's scores are attached to: its trace when it names one; else its session; else the
 * trial itself, as a session named `trial:<id>` (a score always names a resource, and the scores
 * table knows traces, spans and sessions).
 */
export function trialResource(t: Pick<PreparedTrial, 'id' | 'traceId' | 'sessionId'>): TrialResource {
  if (t.traceId !== null)
    return { resourceType: 'trace', resourceId: t.traceId, traceId: t.traceId, sessionId: t.sessionId };
  const session = t.sessionId ?? `trial:${t.id}`;
  return { resourceType: 'session', resourceId: session, traceId: null, sessionId: session };
}
