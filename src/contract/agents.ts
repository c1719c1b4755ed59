/**
 * Wire types of `POST /v1/agents/sync` (spec: Coding-agent sessions). The envelope is checked whole
 * (a wrong `schemaVersion` is a 400); sessions and blobs are checked one by one, so that a malformed
 * one is listed in `rejected` and the rest of the batch is stored. The session shape is
 * core/agents/session.ts.
 */
import typia, { type tags } from 'typia';
import type { AgentBlob, AgentSession } from '../core/agents/session.js';

export interface AgentSyncBody {
  schemaVersion: number;
  sessions: unknown[] & tags.MaxItems<1000>;
  blobs?: unknown[] & tags.MaxItems<10000>;
}

/** One entry of `rejected` (spec: Ingest results). */
export interface SyncRejection {
  index: number;
  reason: string;
  id: string;
}

/** `data` of the answer (spec: Ingest results, coding-agent sync result). */
export interface AgentSyncResult {
  accepted: string[];
  rejected: SyncRejection[];
  blobsStored: number;
  spanRows: number;
  tenantTier: string;
}

export const validateAgentSyncBody = typia.createValidateEquals<AgentSyncBody>();
export const validateAgentSession = typia.createValidateEquals<AgentSession>();
export const validateAgentBlob = typia.createValidateEquals<AgentBlob>();
