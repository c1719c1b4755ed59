/**
 * Loads the uWebSockets.js native binary for the running Node, or says why it does not load.
 *
 * The binary is required by its path, never through the package's main file, which throws with a
 * message of its own when no binary loads: here a miss is a reason, and the front end falls back to
 * node:http (http/frontEnds.ts).
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type * as Uws from '@btc-vision/uwebsockets.js';
import { MAX_HEAD_BYTES } from './wire.js';
import { binaryName, noNativeBuild, UWS_BUILD, whyNotLoaded, type Runtime } from './uwsBuilds.js';

export type UwsModule = typeof Uws;

export type UwsLoad = { kind: 'loaded'; uws: UwsModule; build: string } | { kind: 'missing'; why: string };

const require = createRequire(import.meta.url);

export function loadNativeUws(): UwsLoad {
  const runtime = currentRuntime();
  const root = packageRoot(UWS_BUILD.name);
  if (!root) return { kind: 'missing', why: noNativeBuild(runtime, `${UWS_BUILD.name} is not installed`) };
  const { name, version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    name: string;
    version: string;
  };
  const binary = join(root, UWS_BUILD.binaryDir, binaryName(runtime));
  if (!existsSync(binary))
    return {
      kind: 'missing',
      why: noNativeBuild(runtime, `${name}@${version} has no binary for this Node (ABI ${runtime.abi})`),
    };
  // Read once, when the binary loads: the largest request head, as node:http's front end takes it.
  process.env.UWS_HTTP_MAX_HEADERS_SIZE = String(MAX_HEAD_BYTES);
  try {
    return { kind: 'loaded', uws: require(binary) as UwsModule, build: `${name}@${version}` };
  } catch (e) {
    return {
      kind: 'missing',
      why: noNativeBuild(runtime, `${name}@${version}: ${whyNotLoaded((e as Error).message)}`),
    };
  }
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
