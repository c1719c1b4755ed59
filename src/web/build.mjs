// Builds the web UI into dist/web: one bundle (Preact, uPlot and our code) and one stylesheet,
// minified by esbuild, no source from a network. Run at install (npm's `prepare`) and by
// `npm run build`; prints the bundle size, which docs/guide/web-ui.md quotes.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const out = join(root, 'dist', 'web');
mkdirSync(out, { recursive: true });

// Type-check first: esbuild only strips types. `--no-check` (npm's prepare) skips it: the bundle is
// the same, and `npm run build`, which `npm test` runs, checks.
if (!process.argv.includes('--no-check')) {
  execFileSync(
    process.execPath,
    [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(here, 'tsconfig.json')],
    { stdio: 'inherit' },
  );
}

const version = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version;
await build({
  entryPoints: { app: join(here, 'main.tsx'), style: join(here, 'style.css') },
  bundle: true,
  minify: true,
  format: 'esm',
  target: 'es2022',
  jsx: 'automatic',
  jsxImportSource: 'preact',
  outdir: out,
  legalComments: 'linked',
  define: { __TRACELAKE_VERSION__: JSON.stringify(version) },
  logLevel: 'warning',
});
writeFileSync(
  join(out, 'index.html'),
  readFileSync(join(here, 'index.html'), 'utf8').replaceAll('__VERSION__', version),
);
copyFileSync(join(here, 'favicon.svg'), join(out, 'favicon.svg'));

const size = (f) => {
  const bytes = readFileSync(join(out, f));
  return `${f} ${(statSync(join(out, f)).size / 1024).toFixed(1)} KiB (${(gzipSync(bytes).length / 1024).toFixed(1)} KiB gzipped)`;
};
console.log(`web UI built in dist/web: ${size('app.js')}, ${size('style.css')}`);
