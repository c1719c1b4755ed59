/**
 * A periodic job's tick that starts the job only once its last run has ended: a job slower than its
 * interval (a lease sweep on a busy store) would otherwise pile runs up beside each other.
 */
export function oneAtATime(job: () => Promise<void>): () => Promise<void> {
  let running = false;
  return async () => {
    if (running) return;
    running = true;
    try {
      await job();
    } finally {
      running = false;
    }
  };
}
