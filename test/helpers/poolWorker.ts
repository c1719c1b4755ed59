/**
 * A Piscina worker for test/pool: tasks that hold their slot for a while and record that they ran,
 * through the same `dispatchTask` as the store and compute workers.
 */
import { threadId } from 'node:worker_threads';
import { dispatchTask } from '../../src/pool/taskPool.js';

export interface PoolTestTasks {
  /** Runs for `ms`, then answers its id and the worker's thread id. */
  hold: { in: { id: number; ms: number }; out: { id: number; thread: number } };
  /** The ids of the `hold` tasks that started, in order. */
  started: { in: Record<string, never>; out: number[] };
}

const started: number[] = [];

const handlers: { [K in keyof PoolTestTasks]: (input: PoolTestTasks[K]['in']) => Promise<PoolTestTasks[K]['out']> } = {
  async hold({ id, ms }) {
    started.push(id);
    await new Promise((r) => setTimeout(r, ms));
    return { id, thread: threadId };
  },
  started: async () => [...started],
};

export default (message: { task: keyof PoolTestTasks; input: unknown }) =>
  dispatchTask<PoolTestTasks>(handlers, message);
