/**
 * Migrations of prompts (versions 520–599): immutable numbered versions and the labels that point
 * at them. A prompt belongs to an app (all its environments share it), like a score config.
 */
import type { Migration } from '../migration.js';

export const PROMPT_MIGRATIONS: readonly Migration[] = [
  {
    version: 520,
    name: 'prompt versions and labels',
    sql: [
      `CREATE TABLE prompt_versions (
         tenant_id UUID NOT NULL,
         app_id UUID NOT NULL,
         name VARCHAR NOT NULL,
         version INTEGER NOT NULL,
         type VARCHAR NOT NULL CHECK (type IN ('text', 'chat')),
         -- The template text, or the chat messages as JSON.
         prompt VARCHAR NOT NULL,
         config VARCHAR NOT NULL,
         variables VARCHAR[] NOT NULL,
         commit_message VARCHAR,
         source VARCHAR NOT NULL CHECK (source IN ('api', 'git')),
         source_path VARCHAR,
         commit_sha VARCHAR,
         blob_sha VARCHAR,
         created_at TIMESTAMP NOT NULL,
         created_by VARCHAR,
         PRIMARY KEY (tenant_id, app_id, name, version)
       )`,
      // Labels move (delete + insert) so they carry no key; writes of an app are serialised.
      `CREATE TABLE prompt_labels (
         tenant_id UUID NOT NULL,
         app_id UUID NOT NULL,
         name VARCHAR NOT NULL,
         label VARCHAR NOT NULL,
         version INTEGER NOT NULL,
         updated_at TIMESTAMP NOT NULL,
         updated_by VARCHAR
       )`,
    ],
  },
];
