/**
 * Loads the uWebSockets.js native binary that serves on the running Node, or refuses the start.
 *
 * The binary is required by its path, never through a package's main file: the build we pinned for
 * Node 20 falls back, when its binary does not load, to a JavaScript shim that lets the server say
 * `listening` and then throws on the first request ("Not implemented"). Going around the main file
 * means no shim, whatever UWS_USE_FALLBACK says, and no warning printed by a package on its own.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type * as Uws from 'uWebSockets.js';
import { StartRefusal } from '../auth/secret.js';
import { binaryName, noNativeBuild, UWS_BUILDS, whyNotLoaded, type Miss, type Runtime } from './uwsBuilds.js';

export type UwsModule = typeof Uws;

export interface NativeUws {
  uws: UwsModule;
  /** The package that served, `name@version`, for the `listening` line. */
  build: string;
}

/**
 * Exit code of a start refused because no native build loads (EX_UNAVAILABLE in sysexits.h): the
 * runtime, not the configuration, is what must change, and restarting will not help.
 */
export const EXIT_NO_NATIVE_HTTP = 69;

const require = createRequire(import.meta.url);

/** The first build whose binary for this Node loads; a StartRefusal saying what to do otherwise. */
export function loadNativeUws(): NativeUws {
  const runtime = currentRuntime();
  const misses: Miss[] = [];
  for (const build of UWS_BUILDS) {
    const root = packageRoot(build.name);
    if (!root) {
      misses.push({ build: build.name, reason: 'not installed' });
      continue;
    }
    const { name, version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name: string; version: string };
    const binary = join(root, build.binaryDir, binaryName(runtime));
    if (!existsSync(binary)) {
      misses.push({ build: `${name}@${version}`, reason: `no binary for this Node (ABI ${runtime.abi})` });
      continue;
    }
    try {
      return { uws: require(binary) as UwsModule, build: `${name}@${version}` };
    } catch (e) {
      misses.push({ build: `${name}@${version}`, reason: whyNotLoaded((e as Error).message) });
    }
  }
  throw new StartRefusal(noNativeBuild(runtime, misses), EXIT_NO_NATIVE_HTTP);
}

function currentRuntime(): Runtime {
  const header = (process.report.getReport() as { header?: { glibcVersionRuntime?: string } }).header;
  return {
    nodeVersion: process.version,
    platform: process.platform,
    arch: process.arch,
    abi: process.versions.modules,
    glibc: header?.glibcVersionRuntime ?? null,
  };
}

/** The installed package's folder (resolving its main file runs none of it); null when absent. */
function packageRoot(name: string): string | null {
  let dir: string;
  try {
    dir = dirname(require.resolve(name));
  } catch {
    return null;
  }
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) return null;
    dir = up;
  }
  return dir;
}
