/**
 * Which uWebSockets.js builds Tracelake serves with, and the line that tells an operator what to do
 * when none of them loads natively on the running Node. `http/uws.ts` does the loading; this module
 * only knows the builds and words the refusal, so it is tested without loading anything.
 *
 * uWebSockets.js publishes no package to npm itself; these are republished builds (a table of what
 * each holds is in docs/decisions.md, "Node versions and uWebSockets.js builds").
 */

export interface UwsBuild {
  /** The dependency's name in package.json (an npm alias for the first one). */
  readonly name: string;
  /** The folder, inside the package, of its `uws_<platform>_<arch>_<abi>.node` binaries. */
  readonly binaryDir: string;
}

/** Tried in this order; the first whose binary for the running Node loads natively serves. */
export const UWS_BUILDS: readonly UwsBuild[] = [
  // uWS v20.30, linked against glibc 2.17+: Node 16, 18, 20 only. First, so Node 20 keeps the
  // build whose edge behaviour the suite pins (test/reliability/http-edges) on every glibc system.
  { name: 'uWebSockets.js', binaryDir: 'binaries' },
  // uWS v20.57: Node 20, 22, 24, 25; its Linux binaries need glibc 2.38 or newer.
  { name: '@btc-vision/uwebsockets.js', binaryDir: '.' },
];

/** The glibc the Linux binaries of Node 22 and 24 builds need (they call `__isoc23_strtol`). */
export const GLIBC_FOR_NEWER_NODE = '2.38';

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

/** Why one build did not serve. */
export interface Miss {
  build: string;
  reason: string;
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

/** What the operator can do, for the system they are on. */
function advice(r: Runtime): string {
  if (r.platform === 'linux' && r.glibc === null) {
    return 'no build serves on musl (Alpine): run Tracelake on a glibc Linux (Debian, Ubuntu, RHEL and their images)';
  }
  if (r.glibc !== null && versionBelow(r.glibc, GLIBC_FOR_NEWER_NODE)) {
    return `start it with Node 20 on this system, or with Node 22 or 24 on one with glibc ${GLIBC_FOR_NEWER_NODE} or newer (Debian 13, Ubuntu 24.04, RHEL 10 or later)`;
  }
  return 'start it with Node 20, 22 or 24';
}

/**
 * The one line a start refused for want of a native HTTP server prints: which Node versions serve,
 * what each build said, and what to do.
 */
export function noNativeBuild(r: Runtime, misses: readonly Miss[]): string {
  const where = [`${r.platform}-${r.arch}`, ...(r.glibc === null ? [] : [`glibc ${r.glibc}`])].join(', ');
  const tried = misses.map((m) => `${m.build}: ${m.reason}`).join('; ');
  return (
    `No native uWebSockets.js build loads on Node ${r.nodeVersion.replace(/^v/, '')} (${where}; tried ${tried}). ` +
    `Tracelake serves on Node 20, and on Node 22 and 24 where glibc is ${GLIBC_FOR_NEWER_NODE} or newer: ${advice(r)}.`
  );
}
