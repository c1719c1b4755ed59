import type { Migration } from './migrations.js';

/** Migrations of tenancy administration (versions 200–299). */
export const ADMIN_MIGRATIONS: readonly Migration[] = [];
