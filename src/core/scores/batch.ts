/**
 * The answer of `POST /v1/scores/batch` from its per-item outcomes (spec: Scores, the status table):
 * 201 when every item was stored, 207 when some failed their checks, 400 when all did, 500 when the
 * insert itself failed (then nothing was stored, so every item reports an error). 413 (more than
 * 1000 items) is decided before any item is looked at.
 */
import { ApiError, validationError } from '../errors.js';
import { MAX_BATCH, type ItemError } from './model.js';

/** What became of one item: stored under `id`, or refused with `error`. */
export type ItemOutcome =
  | { index: number; id: string; error?: undefined }
  | { index: number; id?: undefined; error: ItemError };

export interface BatchItemResult {
  index: number;
  id: string | null;
  status: 'success' | 'error';
  client_id?: string;
  error?: ItemError;
}

export interface BatchAnswer {
  status: 201 | 207 | 400 | 500;
  results: BatchItemResult[];
  summary: { total: number; succeeded: number; failed: number };
}

export const INSERT_FAILED: ItemError = {
  code: 'internal_error',
  message: 'the batch insert failed; no score of this batch was stored',
};

/** 413 for a batch over the limit, before per-item validation; an empty batch is a malformed envelope. */
export function assertBatchSize(items: number): void {
  if (items === 0) throw validationError('body', { scores: 'a batch holds 1 to 1000 scores' });
  if (items > MAX_BATCH) {
    throw new ApiError('payload_too_large', `A batch holds at most ${MAX_BATCH} scores, got ${items}`, {
      limit: MAX_BATCH,
      count: items,
    });
  }
}

/**
 * Results in item order with each `client_id` echoed (`clientIds[index]`), the summary and the
 * status. With `insertFailed`, items that passed their checks report INSERT_FAILED.
 */
export function batchAnswer(
  outcomes: readonly ItemOutcome[],
  clientIds: readonly (string | undefined)[],
  insertFailed: boolean,
): BatchAnswer {
  const results = [...outcomes]
    .sort((a, b) => a.index - b.index)
    .map((o): BatchItemResult => {
      const clientId = clientIds[o.index];
      const error = o.error ?? (insertFailed ? INSERT_FAILED : undefined);
      return {
        index: o.index,
        id: error ? null : o.id!,
        status: error ? 'error' : 'success',
        ...(clientId === undefined ? {} : { client_id: clientId }),
        ...(error ? { error } : {}),
      };
    });
  const succeeded = results.filter((r) => r.status === 'success').length;
  const failed = results.length - succeeded;
  const status = insertFailed ? 500 : failed === 0 ? 201 : succeeded === 0 ? 400 : 207;
  return { status, results, summary: { total: results.length, succeeded, failed } };
}
