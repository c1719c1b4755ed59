/**
 * The eval run's state machine (spec: States, "Evaluation run"). A run is created
 * `queued` (the spec's "claimable run"); a status report with neither card nor error claims it, one
 * with a card completes it, one with an error fails it. The run's key ends with the run.
 */
import { ApiError, validationError } from '../errors.js';

export const RUN_STATUSES = ['queued', 'running', 'succeeded', 'failed'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

export type ReportKind = 'claim' | 'complete' | 'fail';

/** A status report as the worker sends it (spec: `{card, costUsd, error}`); null is the same as absent. */
export interface StatusReport {
  card?: Record<string, unknown> | null;
  costUsd?: number | null;
  error?: string | null;
}

/** What a report asks for; a report with both a card and an error asks for two things and is refused. */
export function reportKind(report: StatusReport): ReportKind {
  const hasCard = report.card !== undefined && report.card !== null;
  const hasError = report.error !== undefined && report.error !== null;
  if (hasCard && hasError)
    throw validationError('body', { card: 'a report has a card (complete) or an error (fail), not both' });
  if (hasError && report.error!.trim() === '') throw validationError('body', { error: 'must not be blank' });
  return hasCard ? 'complete' : hasError ? 'fail' : 'claim';
}

export function isTerminal(status: RunStatus): boolean {
  return status === 'succeeded' || status === 'failed';
}

/**
 * The status a report moves a run to, or the 409 that refuses it: a terminal run takes no report,
 * a claimed run cannot be claimed again (the loser of a claim race learns it here), and a run is
 * claimed before it is completed or failed.
 */
export function transition(from: RunStatus, kind: ReportKind): RunStatus {
  if (isTerminal(from))
    throw new ApiError('conflict', `The run has already ${from}: a terminal run takes no status report`, {
      status: from,
    });
  if (kind === 'claim') {
    if (from === 'running') throw new ApiError('conflict', 'The run is already claimed by a worker', { status: from });
    return 'running';
  }
  if (from === 'queued')
    throw new ApiError(
      'conflict',
      `Claim the run (a report with neither card nor error) before reporting it ${kind === 'complete' ? 'complete' : 'failed'}`,
      { status: from },
    );
  return kind === 'complete' ? 'succeeded' : 'failed';
}

/** Trials are reported while the run is claimed: before, no worker holds it; after, it is closed. */
export function acceptsTrials(status: RunStatus): void {
  if (status === 'running') return;
  if (isTerminal(status))
    throw new ApiError('conflict', `The run has already ${status}: it takes no more trials`, { status });
  throw new ApiError(
    'conflict',
    'Claim the run (a status report with neither card nor error) before reporting trials',
    { status },
  );
}
