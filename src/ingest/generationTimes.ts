/**
 * Where a generation's time goes on its way to readable, and each request's time from its answer
 * to its spans being readable, for the operations metrics: a generation is open (records appended)
 * from its first record to its cut, then written by its worker until reported, then queued for the
 * store's commit, then committed. Nothing is kept when no one is told.
 */
import type { GenerationId } from '../store/spans/generation.js';
import { keyOf } from './commitProgress.js';

/**
 * A generation's way from its first record to readable: open (until it is cut), write (the worker's
 * rows to segments, until its report arrives), queue (waiting for the commits before it), commit.
 */
export type GenerationStage = 'open' | 'write' | 'queue' | 'commit';

/** A cut generation's times (performance.now(), ms). */
export interface CutTimes {
  firstAt: number;
  cutAt: number;
  /** When each of its records was answered. */
  answeredAt: number[];
}

export class GenerationTimes {
  /** Told where each generation's time went until it was readable (seconds by stage). */
  stageObserver: ((stage: GenerationStage, seconds: number) => void) | null = null;
  /** Told, for each request kept, the time from its answer to its spans being readable (seconds). */
  visibleObserver: ((seconds: number) => void) | null = null;
  /** Generations cut and not yet committed, by key. */
  private readonly stages = new Map<string, CutTimes & { reportedAt: number }>();

  /** Whether requests' answer times are wanted (kept by their generations until the commit). */
  get wantsAnswers(): boolean {
    return this.visibleObserver !== null;
  }

  cut(g: GenerationId, times: CutTimes): void {
    if (this.stageObserver || this.visibleObserver) this.stages.set(keyOf(g), { ...times, reportedAt: 0 });
  }

  reported(g: GenerationId, at: number): void {
    const stage = this.stages.get(keyOf(g));
    if (stage) stage.reportedAt = at;
  }

  /**
   * A worker ended: its generations will not be committed under their own names (another worker
   * replays its log), so their times are dropped rather than kept for good.
   */
  forgetWorker(workerId: string): void {
    const prefix = `${workerId}:`;
    for (const key of this.stages.keys()) if (key.startsWith(prefix)) this.stages.delete(key);
  }

  /** The generation was committed by a commit that ran from `committingAt` to `committedAt`. */
  committed(g: GenerationId, committingAt: number, committedAt: number): void {
    const stage = this.stages.get(keyOf(g));
    if (!stage) return;
    this.stages.delete(keyOf(g));
    const see = this.stageObserver;
    if (see) {
      see('open', (stage.cutAt - stage.firstAt) / 1000);
      see('write', (stage.reportedAt - stage.cutAt) / 1000);
      see('queue', (committingAt - stage.reportedAt) / 1000);
      see('commit', (committedAt - committingAt) / 1000);
    }
    if (this.visibleObserver) for (const at of stage.answeredAt) this.visibleObserver((committedAt - at) / 1000);
  }
}
