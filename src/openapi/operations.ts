/**
 * Every operation's note by `noteKey` (`GET /v1/traces/:traceId`), read off the documented route
 * table: how tests and tools look up what the reference says of one operation.
 */
import { documentedRoutes } from '../http/routeTable.js';
import { noteKey } from './document.js';
import type { OperationNote } from './note.js';

export const OPERATIONS: Readonly<Record<string, OperationNote>> = Object.fromEntries(
  documentedRoutes()
    .filter((r) => r.note)
    .map((r) => [noteKey(r.method, r.path), r.note!]),
);
