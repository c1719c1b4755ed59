/** src/http/uwsBuilds.ts: the build loaded, the binary asked for, and the wording of why it did not load. */
import t from 'tap';
import {
  binaryName,
  noNativeBuild,
  UWS_BUILD,
  versionBelow,
  whyNotLoaded,
  type Runtime,
} from '../../../src/http/uwsBuilds.js';

const node22: Runtime = { nodeVersion: 'v22.23.3', platform: 'linux', arch: 'x64', abi: '127', glibc: '2.36' };

t.test('the build and the binary for a runtime', async (t) => {
  t.equal(UWS_BUILD.name, '@btc-vision/uwebsockets.js');
  t.equal(binaryName(node22), 'uws_linux_x64_127.node');
  t.equal(binaryName({ ...node22, platform: 'darwin', arch: 'arm64', abi: '137' }), 'uws_darwin_arm64_137.node');
});

t.test('a failed load is reduced to its cause', async (t) => {
  const path = '/srv/tracelake/node_modules/@btc-vision/uwebsockets.js/uws_linux_x64_127.node';
  t.equal(
    whyNotLoaded(`/lib/x86_64-linux-gnu/libc.so.6: version \`GLIBC_2.38' not found (required by ${path})`),
    "version `GLIBC_2.38' not found",
  );
  t.equal(
    whyNotLoaded('Cannot load native addon because loading addons is disabled.'),
    'Cannot load native addon because loading addons is disabled.',
  );
  t.equal(
    whyNotLoaded(`/usr/lib/libstdc++.so.6.0.30: cannot open shared object file\nsecond line`),
    'cannot open shared object file',
    'the library path goes, and lines after the first',
  );
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

t.test('why it does not load: the system, what the load said, and where it would', async (t) => {
  const reason = "@btc-vision/uwebsockets.js@20.57.0: version `GLIBC_2.38' not found";
  t.equal(
    noNativeBuild(node22, reason),
    "uWebSockets.js does not load on Node 22.23.3 (linux-x64, glibc 2.36): @btc-vision/uwebsockets.js@20.57.0: version `GLIBC_2.38' not found; " +
      'its Linux build needs glibc 2.38 or newer (Debian 13, Ubuntu 24.04, RHEL 10 or later).',
  );
  t.notMatch(noNativeBuild(node22, reason), /\n/, 'one line');
  t.match(
    noNativeBuild({ ...node22, glibc: null }, reason),
    /\(linux-x64\): .*; it has no build for musl \(Alpine\)\.$/,
    'musl: no glibc to name',
  );
  const node26 = noNativeBuild(
    { nodeVersion: 'v26.1.0', platform: 'linux', arch: 'x64', abi: '147', glibc: '2.41' },
    'no binary for this Node (ABI 147)',
  );
  t.match(
    node26,
    /on Node 26\.1\.0 \(linux-x64, glibc 2\.41\): no binary .*; its build has binaries for Node 20, 22, 24 and 25\.$/,
    'a new enough glibc: the Node version is why',
  );
  t.match(
    noNativeBuild({ ...node22, platform: 'darwin', arch: 'arm64', glibc: null }, 'x'),
    /\(darwin-arm64\): x; its build has binaries/,
    'no glibc outside Linux',
  );
});
