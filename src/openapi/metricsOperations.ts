/**
 * The notes on metrics: `GET /v1/metrics` (time-bucketed measures of the app's traces, spans and
 * scores) and the Prometheus exposition of the server's own operations metrics on the API port.
 * Kept apart from operations.ts for size.
 */
import type { OperationNote } from './note.js';
import { answer } from './note.js';

export const METRICS_TAG = 'Metrics';

export const METRICS_OPERATIONS: Readonly<Record<string, OperationNote>> = {
};
