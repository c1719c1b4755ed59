// The registry reachable from our machines serves only the linux-x64 builds of @duckdb/node-bindings,
// so `npm install` leaves the other platforms' optional packages out of package-lock.json, and
// `npm ci` then refuses the lock as out of sync. This adds them back as optional, platform-restricted
// entries (npm skips them on other platforms without fetching anything).
// Run after any dependency change: `node .ci/fix-lock.mjs`.
import { readFileSync, writeFileSync } from 'node:fs';

const path = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(path, 'utf8'));
const packages = lock.packages;
const bindings = packages['node_modules/@duckdb/node-bindings'];
for (const name of Object.keys(bindings.optionalDependencies ?? {})) {
  const key = `node_modules/${name}`;
  if (packages[key]) continue;
  const [, os, cpu, libc] = /node-bindings-(\w+)-(\w+)(?:-(musl))?$/.exec(name);
  packages[key] = {
    version: bindings.optionalDependencies[name],
    cpu: [cpu],
    license: 'MIT',
    optional: true,
    os: [os],
    ...(os === 'linux' ? { libc: [libc ?? 'glibc'] } : {}),
  };
}
lock.packages = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : 1)));
writeFileSync(path, JSON.stringify(lock, null, 2) + '\n');
