/**
 * The store's creations that check, then write (a tenant name that must be free, a count under a
 * plan's limit), run one at a time per what their check reads: see core/oneAtATime.ts.
 */
import { OneAtATime } from '../../core/oneAtATime.js';

export const checkedCreations = new OneAtATime();
