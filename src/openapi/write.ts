/**
 * Writes docs/openapi.json from the route table, as `npm run build` does after compiling. The file
 * is rewritten only when its content changed, and says so: a changed reference is a change to
 * commit (test/http/openapi.alone.test.ts fails while the committed file differs from the routes).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { documentedRoutes } from '../http/routeTable.js';
import { documentText, referenceDocument } from './reference.js';

const ROOT = new URL('../../../', import.meta.url);
const TARGET = new URL('docs/openapi.json', ROOT);

const version = (JSON.parse(readFileSync(new URL('package.json', ROOT), 'utf8')) as { version: string }).version;
const text = documentText(referenceDocument(documentedRoutes(), version));
let current: string | null = null;
try {
  current = readFileSync(TARGET, 'utf8');
} catch {
  // No file yet: written below.
}
if (current !== text) {
  writeFileSync(TARGET, text);
  process.stdout.write('docs/openapi.json updated from the route table: commit it\n');
}
