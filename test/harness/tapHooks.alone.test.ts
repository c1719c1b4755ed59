/**
 * A test process carries only the import hooks of the tap plugins package.json asks for. A fresh
 * install holds tap's Test class built with tap's default plugins; the runner rebuilds it when the
 * configured set differs, but the test processes of that same run still get the hooks of the build
 * the runner had loaded (@tapjs/run, run.js: "this won't affect the tap loaded here in the runner").
 * So every CI run, on its clean checkout, had @tapjs/typescript's ts-node hook and @tapjs/mock's in
 * each of its ~220 test processes, ~1 s of CPU apiece. `npm install` builds tap's class first
 * (package.json, prepare), so the first run is like every other.
 */
import t from 'tap';

const hooks = process.execArgv.filter((a) => a.startsWith('--import') || a.startsWith('--loader')).join(' ');
t.match(hooks, /@tapjs\/processinfo/, "the runner's own hook is there: the check reads where tap puts them");
t.notMatch(hooks, /@tapjs\/typescript/, 'no TypeScript hook (the tests are compiled JavaScript)');
t.notMatch(hooks, /@tapjs\/mock/, 'no mock hook (no test mocks a module)');
