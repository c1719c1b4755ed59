/** Store-thread tasks of coding-agent sync (part of StoreTasks). */
import type { KnownOfSessions } from './known.js';
import type { ReadScope } from '../scope.js';

export interface AgentStoreTasks {
  /** Span ids of these traces and the blobs of these hashes that the store already holds. */
  agentsKnown: {
    in: { scope: ReadScope & { environmentId: string }; traceIds: string[]; blobShas: string[] };
    out: KnownOfSessions;
  };
}
