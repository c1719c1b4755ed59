import { join } from 'node:path';

/** A scenario's command-line options: `--name value`, or the fallback when absent. */
export function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

/** A switch without a value: `--name`. */
export function flag(name: string): boolean {
  return process.argv.includes(`--${name}`);
}

export function textArg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1]! : fallback;
}

/**
 * Where a module of a build is, for `import()`: under `root`'s `dist` (a built checkout named by
 * `--baseline`), or this build's own when `root` is empty. `path` is relative to `dist`.
 */
export function buildModule(root: string, path: string): string {
  return root ? join(root, 'dist', path) : new URL(`../${path}`, import.meta.url).href;
}
