/**
 * The prompt render thread (promptRenderer.ts): renders one version at a time with the output
 * budget it is sent, and answers each. It says when it is ready, so that its start (loading
 * Handlebars) is not counted against the first render's time.
 */
import { parentPort } from 'node:worker_threads';
import { renderPrompt } from '../core/prompts/document.js';
import type { RenderRequest } from './promptRenderer.js';

parentPort!.on('message', ({ prompt, variables, maxChars }: RenderRequest) => {
  parentPort!.postMessage(renderPrompt(prompt, variables, maxChars));
});
parentPort!.postMessage('ready');
