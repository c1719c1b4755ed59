/**
 * Prompt rendering, off the main thread (promptRenderThread.ts): a template's loops multiply its
 * work without bound, and a Handlebars render cannot be interrupted from inside, so a render that
 * outlives its time budget ends with its thread, and a new thread takes the next. Output is
 * bounded by the render itself (core/prompts/template.ts). Renders run one at a time, in order of
 * arrival; the thread starts with the first render, not with the server.
 */
import { Worker } from 'node:worker_threads';
import { ApiError, overloaded } from '../core/errors.js';
import type { ChatMessage, RenderedPrompt } from '../core/prompts/document.js';
import type { Variables } from '../core/prompts/template.js';

/** How long one render may run. */
export const RENDER_TIME_BUDGET_MS = 2000;
/** The most characters a rendered prompt may have, all messages together. */
export const RENDER_MAX_CHARS = 1024 * 1024;
/** Renders waiting for the thread before more are refused (503 `overloaded`). */
const MAX_WAITING = 64;

export interface RenderRequest {
  prompt: string | ChatMessage[];
  variables: Variables;
  maxChars: number;
}

type Rendered = Exclude<RenderedPrompt, { overBudget: true }>;

interface Job {
  request: RenderRequest;
  resolve: (r: Rendered) => void;
  reject: (e: Error) => void;
}

export class PromptRenderer {
  private thread: Worker | null = null;
  private ready = false;
  private running: { job: Job; timer: NodeJS.Timeout } | null = null;
  private readonly waiting: Job[] = [];
  private closed = false;

  /** `prompt` with `variables` filled in; 422 `render_limit_exceeded` past the time or output budget. */
  render(prompt: string | ChatMessage[], variables: Variables): Promise<Rendered> {
    if (this.waiting.length >= MAX_WAITING) return Promise.reject(overloaded());
    return new Promise((resolve, reject) => {
      this.waiting.push({ request: { prompt, variables, maxChars: RENDER_MAX_CHARS }, resolve, reject });
      this.next();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.thread?.terminate();
  }

  private next(): void {
    if (this.running || this.waiting.length === 0 || this.closed) return;
    if (!this.thread) {
      this.start();
      return;
    }
    if (!this.ready) return;
    const job = this.waiting.shift()!;
    const timer = setTimeout(() => this.overtime(), RENDER_TIME_BUDGET_MS);
    this.running = { job, timer };
    this.thread.postMessage(job.request);
  }

  private start(): void {
    const thread = new Worker(new URL('./promptRenderThread.js', import.meta.url));
    this.thread = thread;
    this.ready = false;
    thread.on('message', (message: 'ready' | RenderedPrompt) => {
      if (message === 'ready') {
        this.ready = true;
        this.next();
        return;
      }
      this.finish((job) => {
        if ('overBudget' in message)
          job.reject(
            new ApiError('render_limit_exceeded', `The rendered prompt passed ${RENDER_MAX_CHARS} characters`, {
              budget: 'output',
              limit: RENDER_MAX_CHARS,
            }),
          );
        else job.resolve(message);
      });
    });
    // A thread that fails or ends on its own fails the render it ran; the next render starts a new
    // one — unless it never got ready: then the renders waiting fail too, rather than start it again.
    const lost = (e: Error) => {
      if (this.thread !== thread) return;
      this.thread = null;
      if (!this.ready) for (const job of this.waiting.splice(0)) job.reject(e);
      this.finish((job) => job.reject(e));
    };
    thread.on('error', lost);
    thread.on('exit', (code) => lost(new Error(`the prompt render thread ended (exit code ${code})`)));
    thread.unref();
  }

  /** The render under way ran out of time: its thread goes with it. */
  private overtime(): void {
    const thread = this.thread!;
    this.thread = null;
    void thread.terminate();
    this.finish((job) =>
      job.reject(
        new ApiError('render_limit_exceeded', `The render took longer than ${RENDER_TIME_BUDGET_MS} ms`, {
          budget: 'time',
          limit: RENDER_TIME_BUDGET_MS,
        }),
      ),
    );
  }

  /** Settles the render under way (if any) and starts the next. */
  private finish(settle: (job: Job) => void): void {
    const running = this.running;
    this.running = null;
    if (running) {
      clearTimeout(running.timer);
      settle(running.job);
    }
    this.next();
  }
}
