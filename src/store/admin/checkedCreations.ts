/**
 * The store's creations that check, then write — a tenant name that must be free, a count under a
 * plan's limit — one at a time per what their check reads. The store thread runs many tasks at once,
 * each transaction on its own connection, and DuckDB's snapshot isolation lets two of them pass the
 * same check and both insert: twelve keys created at once under a limit of five were all stored.
 */
import { KeyedLock } from '../../core/keyedLock.js';

export const checkedCreations = new KeyedLock();
