import type { AdminTasks } from '../pool/adminTasks.js';
import type { Database } from './db.js';

/** The store thread's handlers of the administration tasks. */
export function adminHandlers(_db: () => Promise<Database>): { [K in keyof AdminTasks]: (input: AdminTasks[K]['in']) => Promise<AdminTasks[K]['out']> } {
  return {};
}
