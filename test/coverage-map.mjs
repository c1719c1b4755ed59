// Coverage policy: the pure core (src/core) is held to full coverage by its own unit tests;
// integration tests drive I/O layers and are not counted, so they cannot hide gaps in the core.
export default function coverageMap(testFile) {
  const m = /^dist\/test\/core\/(.+)\.test\.js$/.exec(testFile.replace(/\\/g, '/'));
  return m ? `dist/src/core/${m[1]}.js` : null;
}
