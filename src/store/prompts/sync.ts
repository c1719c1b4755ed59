/**
 * Prompts discovered in the repository become versions: a file whose content (its blob sha) no
 * version of that prompt was read from yet gets the next version, with the commit recorded and the
 * labels of its front matter; a file already read is left alone, so labels moved through the API
 * since stay where they are.
 */
import { ApiError } from '../../core/errors.js';
import type { PromptDocument } from '../../core/prompts/document.js';
import type { Database } from '../db.js';
import { markSynced, type AppRef } from '../git/connections.js';
import { createVersion, hasBlob } from './prompts.js';

export interface RepositoryPrompt {
  name: string;
  path: string;
  blobSha: string;
  /** The file read into a prompt, or why it could not be. */
  document: PromptDocument | { error: string };
}

export interface SyncReport {
  commit_sha: string;
  created: { name: string; version: number; path: string }[];
  unchanged: string[];
  errors: { path: string; message: string }[];
}

export async function syncPrompts(
  db: Database,
  app: AppRef,
  input: { commitSha: string; prompts: RepositoryPrompt[]; by: string },
): Promise<SyncReport> {
  const report: SyncReport = { commit_sha: input.commitSha, created: [], unchanged: [], errors: [] };
  for (const p of input.prompts) {
    if ('error' in p.document) {
      report.errors.push({ path: p.path, message: p.document.error });
      continue;
    }
    if (await hasBlob(db, app, p.name, p.blobSha)) {
      report.unchanged.push(p.name);
      continue;
    }
    const { labels, ...content } = p.document;
    try {
      const v = await createVersion(db, app, {
        name: p.name,
        content,
        labels,
        commitMessage: null,
        source: 'git',
        sourcePath: p.path,
        commitSha: input.commitSha,
        blobSha: p.blobSha,
        by: input.by,
      });
      report.created.push({ name: p.name, version: v.version, path: p.path });
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      report.errors.push({ path: p.path, message: e.message });
    }
  }
  await markSynced(db, app, input.commitSha);
  return report;
}
