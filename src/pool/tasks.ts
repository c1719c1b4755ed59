/**
 * The thread boundary's generic types: a table of tasks (name → input and output) and how a result
 * crosses it. The tables themselves live with their handlers (store/storeTasks.ts,
 * ingest/computeTasks.ts), imported type-only by both sides, so the two cannot drift apart.
 */
import type { ErrorData } from '../core/errors.js';

/** Any table of tasks: name → input and output. */
export type TaskTable<T> = { [K in keyof T]: { in: unknown; out: unknown } };

/** ApiErrors cannot cross threads as instances; they travel as data and are rebuilt. */
export type TaskResult<Out> = { ok: true; value: Out } | { ok: false; error: ErrorData };

/**
 * The task table of an object of handlers: each handler's input (a handler without one takes `{}`)
 * and what its promise gives.
 */
export type TasksOf<H> = {
  [K in keyof H]: H[K] extends (...input: infer I) => Promise<infer O>
    ? { in: I extends [infer In, ...unknown[]] ? In : Record<string, never>; out: O }
    : never;
};
