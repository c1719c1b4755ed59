/**
 * Chooses the front end a server listens with: uWebSockets.js where its build loads, node:http
 * elsewhere (`auto`), or the one the operator named. Both sit behind the same pipeline.
 */
import { StartRefusal } from '../auth/secret.js';
import { NodeFrontEnd } from './nodeFrontEnd.js';
import { loadNativeUws } from './uws.js';
import { UwsFrontEnd } from './uwsFrontEnd.js';
import type { FrontEnd } from './wire.js';

export type FrontEndChoice = 'auto' | 'uws' | 'node';

/**
 * Exit code of a start refused because `--front-end uws` was asked for and no build loads
 * (EX_UNAVAILABLE in sysexits.h): the runtime, not the configuration, is what must change.
 */
export const EXIT_NO_NATIVE_HTTP = 69;

export interface ChosenFrontEnd {
  frontEnd: FrontEnd;
  /** Why uWebSockets.js is not serving, when it is not (logged at start). */
  fallback: string | null;
}

export function chooseFrontEnd(choice: FrontEndChoice): ChosenFrontEnd {
  if (choice === 'node') return { frontEnd: new NodeFrontEnd(), fallback: null };
  const load = loadNativeUws();
  if (load.kind === 'loaded') return { frontEnd: new UwsFrontEnd(load.uws, load.build), fallback: null };
  if (choice === 'uws')
    throw new StartRefusal(
      `${load.why} Start with --front-end auto (or node) to serve through node:http.`,
      EXIT_NO_NATIVE_HTTP,
    );
  return { frontEnd: new NodeFrontEnd(), fallback: load.why };
}
