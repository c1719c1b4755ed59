/**
 * A run's workspace on the worker's disk: `<work dir>/runs/<run id>/workspace`, a working copy of
 * the run's repository (git/local.ts `checkout`), and beside it `agent/`, the agent's own state
 * (kept out of the workspace, so it is never committed). A session's later turns reuse the
 * workspace when it is still at the commit the run's last turn left (so the agent finds its files
 * and its conversation); anything else — a first turn, a retry after a lost lease, another worker
 * — starts from a fresh copy of the run's branch.
 */
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { LocalGitProvider } from '../git/local.js';
import { cutText } from '../core/text.js';
import type { TurnClaim } from '../store/workers/leases.js';

export interface Prepared {
  dir: string;
  agentDir: string;
  /** The commit the turn starts from. */
  commit: string;
  /** What was done, for the thread: reused, or checked out afresh. */
  how: string;
}

export const CHECKPOINT_AUTHOR = { name: 'Tracelake worker', email: 'worker@tracelake.invalid' };

export class Workspaces {
  constructor(
    private readonly root: string,
    private readonly git: LocalGitProvider,
  ) {}

  dirsOf(runId: string): { dir: string; agentDir: string } {
    const base = join(this.root, 'runs', runId);
    return { dir: join(base, 'workspace'), agentDir: join(base, 'agent') };
  }

  async prepare(claim: TurnClaim): Promise<Prepared> {
    const { dir, agentDir } = this.dirsOf(claim.run.id);
    await mkdir(agentDir, { recursive: true });
    const state = await this.git.inspect(dir);
    if (state && claim.run.head_commit !== null && state.commit === claim.run.head_commit && state.clean) {
      return { dir, agentDir, commit: state.commit, how: `reused the workspace at ${state.commit.slice(0, 12)}` };
    }
    await rm(dir, { recursive: true, force: true });
    const { commit } = await this.git.checkout(claim.run.repository, claim.run.checkout_branch, dir);
    const why =
      state === null
        ? ''
        : state.clean
          ? ' (the workspace was at another commit)'
          : ' (the workspace held changes no turn reported)';
    return {
      dir,
      agentDir,
      commit,
      how: `checked out ${claim.run.repository} ${claim.run.checkout_branch} at ${commit.slice(0, 12)}${why}`,
    };
  }

  /** Commits what the turn changed and pushes it to the run's work branch; null when nothing changed. */
  async checkpoint(claim: TurnClaim, dir: string): Promise<string | null> {
    const first = cutText(claim.turn.prompt.split('\n')[0]!, 72);
    const message = `Tracelake run ${claim.run.id}, turn ${claim.turn.index}: ${first}\n\nRun: ${claim.run.id}\nTurn: ${claim.turn.index}\nAttempt: ${claim.turn.attempt}\n`;
    const { commit } = await this.git.commitAndPush(dir, {
      branch: claim.run.work_branch,
      message,
      author: CHECKPOINT_AUTHOR,
    });
    return commit;
  }
}
