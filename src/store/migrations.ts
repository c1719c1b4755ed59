/** Every migration of the store: the domains' lists, assembled here and nowhere else. */
import { ADMIN_MIGRATIONS } from './admin/migrations.js';
import { EVAL_MIGRATIONS } from './evals/migrations.js';
import { GIT_MIGRATIONS } from './git/migrations.js';
import type { Migration } from './migration.js';
import { PROMPT_MIGRATIONS } from './prompts/migrations.js';
import { SCORE_MIGRATIONS } from './scores/migrations.js';
import { SPAN_MIGRATIONS } from './spans/migrations.js';
import { WORKER_MIGRATIONS } from './workers/migrations.js';

export const MIGRATIONS: readonly Migration[] = [
  ...ADMIN_MIGRATIONS,
  ...SPAN_MIGRATIONS,
  ...SCORE_MIGRATIONS,
  ...EVAL_MIGRATIONS,
  ...GIT_MIGRATIONS,
  ...PROMPT_MIGRATIONS,
  ...WORKER_MIGRATIONS,
].sort((a, b) => a.version - b.version);
