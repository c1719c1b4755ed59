/**
 * Migrations of git connections (versions 500–519): one connection per app, from the start of its
 * handshake to a picked repository. Credentials are sealed (core/git/credentials.ts) before they
 * reach this table.
 */
import type { Migration } from '../migration.js';

export const GIT_MIGRATIONS: readonly Migration[] = [
  {
    version: 500,
    name: 'git connections',
    sql: [
      // Numbers the connections that have no GitHub installation (local, token): the spec's
      // installation_id is an integer on every connection.
      'CREATE SEQUENCE git_connection_numbers START 1',
      `CREATE TABLE git_connections (
         tenant_id UUID NOT NULL,
         app_id UUID NOT NULL,
         provider VARCHAR NOT NULL CHECK (provider IN ('local', 'github')),
         phase VARCHAR NOT NULL CHECK (phase IN ('pending', 'authorised', 'connected')),
         installation_id BIGINT,
         repository VARCHAR,
         branch VARCHAR,
         state_hash VARCHAR,
         state_expires_at TIMESTAMP,
         credentials VARCHAR,
         synced_commit VARCHAR,
         created_at TIMESTAMP NOT NULL,
         created_by VARCHAR,
         updated_at TIMESTAMP NOT NULL
       )`,
    ],
  },
];
