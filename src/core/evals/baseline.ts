/**
 * Which run of an experiment is the baseline, and which run is compared with it
 * (`GET /v1/experiments/baseline`; docs/decisions.md, "Experiments").
 *
 * The baseline is the run pinned on the experiment (`PUT /v1/experiments/{id}/baseline`); without a
 * pin it is the latest succeeded run before the candidate, so an unpinned experiment compares each
 * run with the one before it (a lone succeeded run is the baseline, with no candidate). The
 * candidate is the run asked for, else the latest succeeded run that is not the baseline.
 */
import { ApiError } from '../errors.js';
import type { RunStatus } from './runState.js';

export interface RunRef {
  id: string;
  status: RunStatus;
  createdMs: number;
}

export interface Choice {
  baseline: RunRef | null;
  /** Null when there is nothing to compare: no other run, or the candidate is the baseline itself. */
  candidate: RunRef | null;
  pinned: boolean;
}

const newestFirst = (a: RunRef, b: RunRef) => b.createdMs - a.createdMs || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

/** `runs`: the experiment's runs in the reader's scope, in any order; `pinnedId`: the pin, if any. */
export function chooseRuns(runs: readonly RunRef[], pinnedId: string | null, requestedId: string | null): Choice {
  const ordered = [...runs].sort(newestFirst);
  const succeeded = ordered.filter((r) => r.status === 'succeeded');
  // A pin the reader cannot see (a run of another environment) does not exist for it.
  const pin = pinnedId === null ? undefined : ordered.find((r) => r.id === pinnedId);
  let candidate: RunRef | null;
  let baseline: RunRef | null;
  if (requestedId !== null) {
    candidate = ordered.find((r) => r.id === requestedId) ?? null;
    if (!candidate) throw new ApiError('not_found', `Run ${requestedId} is not a run of this experiment`);
    baseline = pin ?? succeeded.find((r) => newestFirst(r, candidate!) > 0) ?? null;
  } else if (pin) {
    baseline = pin;
    candidate = succeeded.find((r) => r.id !== pin.id) ?? null;
  } else {
    // The latest against the one before it; a lone succeeded run is the baseline, with nothing to compare.
    [candidate = null, baseline = null] = succeeded;
    if (baseline === null) [baseline, candidate] = [candidate, null];
  }
  if (candidate !== null && baseline !== null && candidate.id === baseline.id) candidate = null;
  return { baseline, candidate, pinned: pin !== undefined && baseline === pin };
}
