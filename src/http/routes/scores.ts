import type { AnyRoute } from '../route.js';

/** Scores, score configs and comments. */
export const scoreRoutes: AnyRoute[] = [];
