/**
 * Loads a dependency of native-bench/package.json (pg, pg-copy-streams, better-sqlite3): the
 * root's `npm install` leaves them out, and Node's resolution from dist/native-bench/peers never
 * reaches native-bench/node_modules, so they are required from there. `npm run bench:peers`
 * installs them first.
 */
import { createRequire } from 'node:module';

const requireFromBench = createRequire(new URL('../../../native-bench/package.json', import.meta.url));

export function benchDependency<T>(name: string): T {
  try {
    return requireFromBench(name) as T;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw err;
    throw new Error(
      `${name} is a dependency of native-bench/package.json, not installed: run npm run bench:peers (it installs them), or npm install --prefix native-bench`,
    );
  }
}
