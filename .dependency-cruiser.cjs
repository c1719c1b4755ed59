/**
 * The import rules of src/ (`npm run lint:deps`, part of `npm test`). The layers are written once,
 * bottom first; a module may import its own layer and those below it, never one above, and no
 * import circle is allowed, type-only imports included. docs/architecture.md ("Layers") says what
 * each layer is for.
 */
const layers = [
  { name: 'core', path: '^src/core/' },
  { name: 'base', path: '^src/(auth/|durableFile\\.ts$|log\\.ts$|promptModules\\.ts$|testHooks\\.ts$)' },
  { name: 'pool', path: '^src/pool/' },
  { name: 'store', path: '^src/store/' },
  { name: 'contract', path: '^src/contract/' },
  { name: 'ingest', path: '^src/ingest/' },
  { name: 'services', path: '^src/(http/|openapi/|git/|web/|worker/|config\\.ts$)' },
  { name: 'entry', path: '^src/(cli/|app\\.ts$|serve\\.ts$|main\\.ts$|cli\\.ts$|firstStart\\.ts$)' },
];

const anyOf = (paths) => paths.map((p) => `(${p})`).join('|');

const noArrowUp = layers.slice(0, -1).map((layer, index) => ({
  name: `no-arrow-up-from-${layer.name}`,
  comment: `${layer.name} imports only its own layer and those below it`,
  severity: 'error',
  from: { path: layer.path },
  to: { path: anyOf(layers.slice(index + 1).map((above) => above.path)) },
}));

module.exports = {
  forbidden: [
    { name: 'no-circular', comment: 'no import circle, type-only imports included', severity: 'error', from: {}, to: { circular: true } },
    {
      name: 'in-a-layer',
      comment: 'every module of src/ belongs to a layer of .dependency-cruiser.cjs',
      severity: 'error',
      from: { path: '^src/', pathNot: anyOf(layers.map((layer) => layer.path)) },
      to: {},
    },
    ...noArrowUp,
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^src/web/build\\.mjs$' },
  },
};
