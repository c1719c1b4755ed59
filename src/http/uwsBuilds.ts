/**
 * The uWebSockets.js build Tracelake serves with where it loads, and the words for why it did not
 * load. `http/uws.ts` does the loading; this module only knows the build and words the reasons, so
 * it is tested without loading anything.
 *
 * uWebSockets.js publishes no package to npm itself; this is a republished build (what the registry
 * holds, and why this one: docs/decisions.md, "Front ends").
 */

export interface UwsBuild {
  /** The dependency's name in package.json. */
  readonly name: string;
  /** The folder, inside the package, of its `uws_<platform>_<arch>_<abi>.node` binaries. */
  readonly binaryDir: string;
}

/** uWS v20.57: Node 20, 22, 24, 25 on Linux (glibc 2.38 or newer), macOS and Windows. */
export const UWS_BUILD: UwsBuild = { name: '@btc-vision/uwebsockets.js', binaryDir: '.' };

/** The glibc the build's Linux binaries need (they call `__isoc23_strtol`). */
export const GLIBC_FOR_UWS = '2.38';

export interface Runtime {
  /** `process.version`, e.g. `v22.23.3`. */
  nodeVersion: string;
  platform: string;
  arch: string;
  /** `process.versions.modules`: the ABI a native addon is built for (115 is Node 20). */
  abi: string;
  /** The running glibc's version on Linux; null elsewhere and on musl. */
  glibc: string | null;
}

export function binaryName(r: Runtime): string {
  return `uws_${r.platform}_${r.arch}_${r.abi}.node`;
}

/**
 * The useful part of a failed load. The dynamic loader's message names the whole binary path
 * (twice for a missing symbol version); the operator needs the cause, e.g. "version `GLIBC_2.38' not
 * found".
 */
export function whyNotLoaded(message: string): string {
  const firstLine = message.split('\n')[0]!.trim();
  const symbolVersion = /version `[^']+' not found/.exec(firstLine);
  if (symbolVersion) return symbolVersion[0];
  return firstLine.replace(/^\/\S+?\.so(?:\.\d+)*: /, '') || 'failed to load';
}

/** Compares dotted version numbers ("2.36" < "2.38"); a missing part counts as 0. */
export function versionBelow(version: string, floor: string): boolean {
  const a = version.split('.').map(Number);
  const b = floor.split('.').map(Number);
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    if (x !== y) return x < y;
  }
  return false;
}

/** Where a uWebSockets.js build would load, for the system this is. */
function whereItLoads(r: Runtime): string {
  if (r.platform === 'linux' && r.glibc === null) return 'it has no build for musl (Alpine)';
  if (r.glibc !== null && versionBelow(r.glibc, GLIBC_FOR_UWS))
    return `its Linux build needs glibc ${GLIBC_FOR_UWS} or newer (Debian 13, Ubuntu 24.04, RHEL 10 or later)`;
  return 'its build has binaries for Node 20, 22, 24 and 25';
}

/** Why uWebSockets.js does not serve here, in one line: the system, what the load said, and where it would. */
export function noNativeBuild(r: Runtime, reason: string): string {
  const where = [`${r.platform}-${r.arch}`, ...(r.glibc === null ? [] : [`glibc ${r.glibc}`])].join(', ');
  return `uWebSockets.js does not load on Node ${r.nodeVersion.replace(/^v/, '')} (${where}): ${reason}; ${whereItLoads(r)}.`;
}
