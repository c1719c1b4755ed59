/**
 * Migrations of the scores tables (versions 100–199). Scores are append-only rows, versioned by
 * `created_at`; configs and comments are ordinary tables. No foreign keys (see ../migration.ts).
 */
import type { Migration } from '../migration.js';

export const SCORE_MIGRATIONS: readonly Migration[] = [
  {
    version: 100,
    name: 'scores, score configs, comments',
    sql: [
      // Columns in the order of SCORE_COLUMNS (store/scores.ts): rows are appended positionally.
      // The CHECKs hold the vocabulary of core/scores/model.ts at the storage level too.
      `CREATE TABLE scores (
         id UUID NOT NULL,
         tenant_id UUID NOT NULL,
         app_id UUID NOT NULL,
         environment_id UUID,
         name VARCHAR NOT NULL,
         score DOUBLE NOT NULL,
         data_type VARCHAR NOT NULL CHECK (data_type IN ('NUMERIC', 'BOOLEAN', 'CATEGORICAL')),
         label VARCHAR,
         reason VARCHAR,
         source VARCHAR NOT NULL CHECK (source IN ('api', 'annotation', 'eval', 'sdk')),
         user_id VARCHAR,
         resource_id VARCHAR,
         resource_type VARCHAR NOT NULL CHECK (resource_type IN ('trace', 'span', 'session')),
         trace_id VARCHAR,
         session_id VARCHAR,
         config_id UUID,
         created_at TIMESTAMP NOT NULL,
         created_by VARCHAR
       )`,
      // Reads and deletes of one score by id.
      'CREATE INDEX scores_id ON scores (id)',
      `CREATE TABLE score_configs (
         id UUID NOT NULL,
         tenant_id UUID NOT NULL,
         app_id UUID NOT NULL,
         name VARCHAR NOT NULL,
         data_type VARCHAR NOT NULL CHECK (data_type IN ('NUMERIC', 'BOOLEAN', 'CATEGORICAL')),
         min_value DOUBLE,
         max_value DOUBLE,
         categories VARCHAR,
         description VARCHAR,
         created_at TIMESTAMP NOT NULL,
         created_by VARCHAR,
         updated_at TIMESTAMP NOT NULL,
         updated_by VARCHAR,
         PRIMARY KEY (tenant_id, app_id, name)
       )`,
      `CREATE TABLE comments (
         id UUID NOT NULL,
         tenant_id UUID NOT NULL,
         app_id UUID NOT NULL,
         environment_id UUID,
         resource_type VARCHAR NOT NULL CHECK (resource_type IN ('trace', 'span', 'session')),
         resource_id VARCHAR NOT NULL,
         content VARCHAR NOT NULL,
         author_user_id VARCHAR,
         created_at TIMESTAMP NOT NULL,
         created_by VARCHAR
       )`,
    ],
  },
  {
    version: 101,
    name: "a session score's resource_id is its session (the spec requires resource_id on every score)",
    sql: ["UPDATE scores SET resource_id = session_id WHERE resource_type = 'session' AND resource_id IS NULL"],
  },
];
