/** Store-thread tasks of git connections and prompts (part of StoreTasks). */
import type { AppRef, ConnectionRow, NewHandshake } from '../git/connections.js';
import type { PromptMetricsInput } from './handlers.js';
import type { PromptVersionMetrics } from './metrics.js';
import type { NewVersion, PromptListQuery, PromptSummary, PromptVersionView, Selector } from './prompts.js';
import type { RepositoryPrompt, SyncReport } from './sync.js';
import type { Page } from '../spans/reads.js';

export interface PromptTasks {
  gitConnection: { in: AppRef; out: ConnectionRow | null };
  gitConnectionByState: { in: { stateHash: string }; out: ConnectionRow | null };
  startGitHandshake: { in: NewHandshake; out: ConnectionRow };
  authoriseGit: { in: AppRef & { stateHash: string; installationId: number; credentials: string }; out: ConnectionRow | null };
  selectGitRepository: { in: AppRef & { stateHash: string | null; repository: string; branch: string }; out: ConnectionRow | null };
  disconnectGit: { in: AppRef; out: boolean };
  createPromptVersion: { in: { app: AppRef; version: NewVersion }; out: PromptVersionView };
  setPromptLabels: { in: { app: AppRef; name: string; version: number; labels: string[]; by: string }; out: PromptVersionView | null };
  removePromptLabel: { in: { app: AppRef; name: string; label: string }; out: boolean };
  getPromptVersion: { in: { app: AppRef; name: string; selector: Selector }; out: PromptVersionView | null };
  listPrompts: { in: { app: AppRef; query: PromptListQuery }; out: Page<PromptSummary> };
  syncPrompts: { in: { app: AppRef; commitSha: string; prompts: RepositoryPrompt[]; by: string }; out: SyncReport };
  promptMetrics: { in: PromptMetricsInput; out: PromptVersionMetrics[] };
}
