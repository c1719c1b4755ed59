/**
 * A newer glibc for the uWebSockets.js front end's tests on a system whose own is too old for its
 * build (Debian 12 has 2.36; the build needs 2.38). Debian 13's libc6 package is fetched once from
 * Debian's archive into node_modules/.cache, and a server runs under its dynamic loader
 * (`ld-linux-x86-64.so.2 --library-path <its libs> node …`): the same Node, the same binaries, a
 * C library new enough. Nothing is installed on the system.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadNativeUws } from '../../src/http/uws.js';
import type { ServerOptions } from './server.js';

const CACHE = fileURLToPath(new URL('../../../node_modules/.cache/tracelake/debian13-libc6', import.meta.url));
const LIB_DIR = join(CACHE, 'usr/lib/x86_64-linux-gnu');
const LOADER = join(LIB_DIR, 'ld-linux-x86-64.so.2');

/** The prefix a command runs under to use Debian 13's C library; null where it cannot be had here. */
export function newerGlibcWrap(): { wrap: string[] } | { why: string } {
  if (process.platform !== 'linux' || process.arch !== 'x64')
    return { why: `Debian's libc6 for ${process.platform}-${process.arch} is not fetched by this helper` };
  if (!existsSync(LOADER)) {
    const missing = ['apt-get', 'dpkg-deb'].filter((tool) => !onPath(tool));
    if (missing.length > 0) return { why: `${missing.join(' and ')} not found: cannot fetch Debian 13's libc6` };
    fetchLibc6();
  }
  return { wrap: [LOADER, '--library-path', LIB_DIR] };
}

/**
 * Server options that serve through uWebSockets.js: as is where its build loads, else under Debian
 * 13's C library; `why` when neither can be had.
 */
export function uwsServerOptions(): { options: ServerOptions } | { why: string } {
  const env = { TRACELAKE_FRONT_END: 'uws' };
  if (loadNativeUws().kind === 'loaded') return { options: { env } };
  const glibc = newerGlibcWrap();
  return 'why' in glibc ? glibc : { options: { env, wrap: glibc.wrap } };
}

function fetchLibc6(): void {
  mkdirSync(dirname(CACHE), { recursive: true });
  const work = mkdtempSync(join(dirname(CACHE), 'libc6-'));
  try {
    const apt = [
      '-q',
      '-o',
      `Dir::Etc::SourceList=${join(work, 'sources.list')}`,
      '-o',
      'Dir::Etc::SourceParts=/dev/null',
      '-o',
      `Dir::State::Lists=${join(work, 'lists')}`,
      '-o',
      `Dir::Cache=${join(work, 'cache')}`,
      '-o',
      'APT::Sandbox::User=root',
    ];
    mkdirSync(join(work, 'lists/partial'), { recursive: true });
    mkdirSync(join(work, 'cache/archives/partial'), { recursive: true });
    writeFileSync(
      join(work, 'sources.list'),
      'deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main\n',
    );
    execFileSync('apt-get', [...apt, 'update'], { stdio: 'ignore', timeout: 120_000 });
    execFileSync('apt-get', [...apt, 'download', 'libc6'], { cwd: work, stdio: 'ignore', timeout: 120_000 });
    const deb = readdirSync(work).find((f) => /^libc6_.*\.deb$/.test(f));
    if (!deb) throw new Error('apt-get download libc6 left no package');
    execFileSync('dpkg-deb', ['-x', join(work, deb), join(work, 'root')]);
    try {
      renameSync(join(work, 'root'), CACHE);
    } catch (e) {
      // Another test file fetched it meanwhile: theirs is as good.
      if (!existsSync(LOADER)) throw e;
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function onPath(tool: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
