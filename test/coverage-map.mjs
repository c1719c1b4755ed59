// Coverage policy: the pure core (src/core) is held to full coverage by its own unit tests: a test in
// test/core/<dir>/ covers the modules of src/core/<dir>/ (a test named after one module covers that
// module alone). Integration tests drive the I/O layers and are not counted, so they cannot hide
// gaps in the core.
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';

export default function coverageMap(testFile) {
  const m = /^dist\/test\/core\/(.+)\.test\.js$/.exec(testFile.replace(/\\/g, '/'));
  if (!m) return null;
  const own = `dist/src/core/${m[1]}.js`;
  if (existsSync(own)) return own;
  const dir = join('dist/src/core', dirname(m[1]));
  return existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.js')).map((f) => join(dir, f)) : null;
}
