/** src/http/uwsBuilds.ts: the builds tried, the binary asked for, and the refusal line's wording. */
import t from 'tap';
import { binaryName, noNativeBuild, UWS_BUILDS, versionBelow, whyNotLoaded, type Runtime } from '../../../src/http/uwsBuilds.js';

const node22: Runtime = { nodeVersion: 'v22.23.3', platform: 'linux', arch: 'x64', abi: '127', glibc: '2.36' };

t.test('the Node 20 build is tried first, then the one with Node 22 and 24 binaries', async (t) => {
  t.same(
    UWS_BUILDS.map((b) => b.name),
    ['uWebSockets.js', '@btc-vision/uwebsockets.js'],
  );
  t.equal(binaryName(node22), 'uws_linux_x64_127.node');
  t.equal(binaryName({ ...node22, platform: 'darwin', arch: 'arm64', abi: '137' }), 'uws_darwin_arm64_137.node');
});

t.test('a failed load is reduced to its cause', async (t) => {
  const path = '/srv/tracelake/node_modules/@btc-vision/uwebsockets.js/uws_linux_x64_127.node';
  t.equal(whyNotLoaded(`/lib/x86_64-linux-gnu/libc.so.6: version \`GLIBC_2.38' not found (required by ${path})`), "version `GLIBC_2.38' not found");
  t.equal(whyNotLoaded('Cannot load native addon because loading addons is disabled.'), 'Cannot load native addon because loading addons is disabled.');
  t.equal(whyNotLoaded(`/usr/lib/libstdc++.so.6.0.30: cannot open shared object file\nsecond line`), 'cannot open shared object file', 'the library path goes, and lines after the first');
  t.equal(whyNotLoaded('  \nstack'), 'failed to load', 'an empty message still says something');
});

t.test('versions compare part by part', async (t) => {
  t.ok(versionBelow('2.36', '2.38'));
  t.notOk(versionBelow('2.38', '2.38'));
  t.notOk(versionBelow('2.41', '2.38'));
  t.notOk(versionBelow('3.0', '2.38'));
  t.ok(versionBelow('2', '2.38'), 'a missing part counts as 0');
  t.notOk(versionBelow('2.38.1', '2.38'));
});

t.test('the refusal says which Node versions serve, what each build said, and what to do here', async (t) => {
  const misses = [
    { build: '@trufflesuite/uws-js-unofficial@20.30.0-unofficial.0', reason: 'no binary for this Node (ABI 127)' },
    { build: '@btc-vision/uwebsockets.js@20.57.0', reason: "version `GLIBC_2.38' not found" },
  ];
  t.equal(
    noNativeBuild(node22, misses),
    'No native uWebSockets.js build loads on Node 22.23.3 (linux-x64, glibc 2.36; tried @trufflesuite/uws-js-unofficial@20.30.0-unofficial.0: no binary for this Node (ABI 127); ' +
      "@btc-vision/uwebsockets.js@20.57.0: version `GLIBC_2.38' not found). Tracelake serves on Node 20, and on Node 22 and 24 where glibc is 2.38 or newer: " +
      'start it with Node 20 on this system, or with Node 22 or 24 on one with glibc 2.38 or newer (Debian 13, Ubuntu 24.04, RHEL 10 or later).',
  );
  t.notMatch(noNativeBuild(node22, misses), /\n/, 'one line');

  const musl = noNativeBuild({ ...node22, glibc: null }, misses);
  t.match(musl, /\(linux-x64; tried /, 'no glibc to name');
  t.match(musl, /: no build serves on musl \(Alpine\): run Tracelake on a glibc Linux/);

  const node26 = noNativeBuild({ nodeVersion: 'v26.1.0', platform: 'linux', arch: 'x64', abi: '147', glibc: '2.41' }, misses);
  t.match(node26, /on Node 26\.1\.0 \(linux-x64, glibc 2\.41;/);
  t.match(node26, /: start it with Node 20, 22 or 24\.$/, 'a new enough glibc: the Node version is what to change');

  t.match(noNativeBuild({ ...node22, platform: 'darwin', arch: 'arm64', glibc: null }, misses), /\(darwin-arm64; tried .*: start it with Node 20, 22 or 24\.$/, 'no glibc outside Linux');
});
