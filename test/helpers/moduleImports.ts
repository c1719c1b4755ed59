/**
 * The modules a compiled module loads, read from its text: what test/harness/startImports.alone.test.ts
 * walks (what a thread loads at start) and test/ops/dependencies.test.ts checks against
 * package.json (what the server loads at all).
 */
import { builtinModules } from 'node:module';

/** How a module is loaded: an ESM import or re-export, `require()`, or `import()` of a literal. */
export type Loading = 'import' | 'require' | 'dynamic';

// Static imports and re-exports at a line's start, side-effect imports, `require()`, `import()`.
const SPECIFIERS =
  /^(?:import|export)\s[^;]*?\sfrom\s*['"]([^'"]+)['"]|^import\s*['"]([^'"]+)['"]|\brequire\(\s*['"]([^'"]+)['"]\s*\)|\bimport\(\s*['"]([^'"]+)['"]\s*\)/gm;

/** Each module specifier in `text`, in order, with how it is loaded. */
export function specifiersIn(text: string): { spec: string; how: Loading }[] {
  return [...text.matchAll(SPECIFIERS)].map((m) => ({
    spec: (m[1] ?? m[2] ?? m[3] ?? m[4])!,
    how: m[3] !== undefined ? 'require' : m[4] !== undefined ? 'dynamic' : 'import',
  }));
}

/** The package a bare specifier names (`@scope/name/sub` → `@scope/name`); null for paths and Node's own modules. */
export function packageOf(spec: string): string | null {
  if (spec.startsWith('.') || spec.startsWith('/') || spec.startsWith('node:')) return null;
  const parts = spec.split('/');
  const name = spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
  return builtinModules.includes(name) ? null : name;
}
