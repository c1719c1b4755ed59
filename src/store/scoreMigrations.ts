import type { Migration } from './migrations.js';

/** Migrations of the scores tables (versions 100–199). */
export const SCORE_MIGRATIONS: readonly Migration[] = [];
