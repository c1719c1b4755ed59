import type { ScoreTasks } from '../pool/scoreTasks.js';
import type { Database } from './db.js';

/** The store thread's handlers of the score tasks. */
export function scoreHandlers(_db: () => Promise<Database>): { [K in keyof ScoreTasks]: (input: ScoreTasks[K]['in']) => Promise<ScoreTasks[K]['out']> } {
  return {};
}
