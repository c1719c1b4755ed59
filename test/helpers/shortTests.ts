/**
 * The short integration tests, run a directory to a process: each directory below has a
 * `short.tests.ts` that runs the files named here one after another (testsHere.ts), and package.json's
 * tap config leaves those files out of the suite's own list (test/harness/groups.test.ts holds the
 * two to each other). A process of tap's costs ~1.3–1.9 s of CPU before and around a file's own
 * work (its processinfo hook, through which every module the test loads goes, and the modules the
 * file shares with its neighbours), and the suite's two cores are busy throughout a CI run; the
 * seven score tests took 36.5 s of CPU as seven processes and 25.4 as one.
 *
 * A file stays in a process of its own when it is long (over ~12 s in a CI run: the two jobs'
 * balance, and tap's 300 s timeout a process) or when it changes the process for the files after
 * it: instrumentations.test.ts registers OpenTelemetry's global context manager,
 * reliability/http-edges.test.ts sets the root's `jobs`, the harness tests look at their own
 * process, coverage-map.test.ts changes directory. Files run in the order listed.
 */
export const SHORT_TESTS: Readonly<Record<string, readonly string[]>> = {
  admin: ['apps', 'environments', 'permissions'],
  evals: ['experiments', 'retention', 'runs', 'trials'],
  http: ['abandoned', 'auth', 'bootstrap', 'cors', 'errors', 'exports', 'health', 'local', 'metrics', 'money', 'pinning', 'presets', 'quotas', 'races', 'search', 'session'],
  ingest: ['ackPriority', 'concurrency', 'coordinator', 'durability', 'input', 'lanes', 'otel', 'otlpProto', 'overload', 'protoDecode', 'unstorable'],
  ops: ['allocator', 'dependencies', 'deploy', 'start'],
  prompts: ['github', 'local', 'metrics', 'prompts'],
  reliability: ['corruption', 'node-versions', 'parsing', 'pins'],
  scores: ['aggregations', 'batch', 'comments', 'configs', 'permissions', 'scores', 'store'],
  store: ['db', 'partsWriters', 'walGuard'],
  'store/spans': ['filterSql', 'format', 'formatVersions', 'pageBound', 'parts', 'segmentBuffer', 'upgrade'],
};
