/**
 * The README and the guides as a newcomer reads them. Every `sh` block runs in bash against a real
 * server, one shell a page and in order (a block may use what an earlier one of its page set), and
 * must exit 0: the snippets use `curl -f`, so a refused request fails its block. A block fenced
 * `sh no-test` is skipped and counted (a second server, Docker, a worker, files of the reader's); one
 * fenced `sh env` is not run either, and may only set the variables this test provides. Every
 * relative link of the Markdown files must reach a file, and its `#anchor` a heading there; the
 * README stays under 12 KB.
 */
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { workingRepo } from '../helpers/git.js';
import { anchors, fences, links, shellBlocks, type ShellBlock } from '../helpers/markdown.js';
import { rootCredentials, serverFor, tempDir } from '../helpers/server.js';
import { unhooked } from '../helpers/unhooked.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const GUIDES = join(ROOT, 'docs/guide');
const README_LIMIT = 12_000;
/** The variables every snippet may take as given: the server the reader started, and its settings. */
const PROVIDED = [
  'URL',
  'KEY',
  'APP',
  'TRACELAKE_HOST',
  'TRACELAKE_PORT',
  'TRACELAKE_DATA_DIR',
  'TRACELAKE_OPERATOR_TOKEN',
];
const TAGS = new Set(['no-test', 'env']);
const FILE_TIMEOUT_MS = 180_000;

const read = (file: string): string => readFileSync(join(ROOT, file), 'utf8');

/** The pages whose shell blocks run: the README, then every guide. */
function pages(): string[] {
  const guides = readdirSync(GUIDES)
    .filter((f) => f.endsWith('.md'))
    .sort();
  return ['README.md', ...guides.map((f) => `docs/guide/${f}`)];
}

/** Every Markdown file whose links are checked. */
function markdownFiles(): string[] {
  const under = (dir: string): string[] =>
    readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.md'))
      .map((f) => `${dir}/${f.replace(/\\/g, '/')}`);
  return ['README.md', ...under('docs'), ...under('native-bench')].sort();
}

/** The names a `sh env` block assigns. */
function assigned(block: ShellBlock): string[] {
  return block.body
    .split('\n')
    .map((line) => line.replace(/#.*$/, ''))
    .flatMap((line) => [...line.matchAll(/(?:^|\s)([A-Za-z_][A-Za-z0-9_]*)=/g)].map((m) => m[1]!));
}

interface PageRun {
  code: number | null;
  /** Blocks that ran to their end. */
  finished: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `blocks` in one bash, in order, under `set -eo pipefail`: the first failing command ends the
 * run. Each block reports its end on fd 3, so a failure names its block.
 */
function runPage(blocks: ShellBlock[], env: NodeJS.ProcessEnv, cwd: string): Promise<PageRun> {
  const script = ['set -eo pipefail', ...blocks.map((b, i) => `${b.body}\necho ${i} >&3`)].join('\n');
  const [command, args] = unhooked('/bin/bash', ['-c', script], env);
  const child = spawn(command, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let finished = 0;
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdio[3]!.on('data', (d: Buffer) => (finished += d.toString().split('\n').filter(Boolean).length));
  const timer = setTimeout(() => child.kill('SIGKILL'), FILE_TIMEOUT_MS);
  return new Promise((done) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, finished, stdout, stderr });
    }),
  );
}

t.test('the README stays short', async (t) => {
  const size = statSync(join(ROOT, 'README.md')).size;
  t.ok(size <= README_LIMIT, `README.md is ${size} bytes, at most ${README_LIMIT}`);
});

t.test('every relative link reaches a file, and its anchor a heading', async (t) => {
  const files = markdownFiles();
  t.ok(files.length > 15, `${files.length} Markdown files`);
  const broken: string[] = [];
  let checked = 0;
  for (const file of files) {
    for (const { line, target } of links(read(file))) {
      if (/^[a-z][a-z0-9+.-]*:|^\/\//i.test(target)) continue;
      checked++;
      const [path = '', anchor] = target.split('#');
      const to = path === '' ? join(ROOT, file) : resolve(ROOT, dirname(file), decodeURIComponent(path));
      const where = `${file}:${line} → ${target}`;
      if (!existsSync(to)) broken.push(`${where}: no such file`);
      else if (
        anchor !== undefined &&
        to.endsWith('.md') &&
        !anchors(readFileSync(to, 'utf8')).has(decodeURIComponent(anchor))
      )
        broken.push(`${where}: no heading #${anchor} in ${relative(ROOT, to)}`);
    }
  }
  t.ok(checked > 100, `${checked} relative links checked`);
  t.same(broken, [], 'no broken link');
});

t.test('the shell blocks of the README and the guides', async (t) => {
  const gitRoot = tempDir();
  // The repositories the prompt and worker guides connect; the prompt file is the guide's own example.
  const example = fences(read('docs/guide/prompts-and-git.md')).find((f) => f.info === 'markdown');
  if (!example) throw new Error('docs/guide/prompts-and-git.md shows no prompt file');
  workingRepo(join(gitRoot, 'acme', 'prompts'), { 'prompts/support/agent.md': example.body });
  workingRepo(join(gitRoot, 'acme', 'shop'), { 'README.md': '# Shop\n' });

  const token = 'docs-test-operator-token-0123456789abcdef';
  const server = await serverFor(t, { args: ['--git-root', gitRoot], env: { TRACELAKE_OPERATOR_TOKEN: token } });
  const root = rootCredentials(server);

  // `tracelake` on the PATH, as `npm link` puts it there.
  const bin = tempDir();
  writeFileSync(
    join(bin, 'tracelake'),
    `#!/bin/sh\nexec '${process.execPath}' '${join(ROOT, 'dist/src/cli.js')}' "$@"\n`,
  );
  chmodSync(join(bin, 'tracelake'), 0o755);
  const provided: Record<string, string> = {
    URL: server.url,
    KEY: root.key,
    APP: root.appId,
    TRACELAKE_HOST: '127.0.0.1',
    TRACELAKE_PORT: String(server.port),
    TRACELAKE_DATA_DIR: server.dataDir,
    TRACELAKE_OPERATOR_TOKEN: token,
  };
  t.same(Object.keys(provided).sort(), [...PROVIDED].sort());
  const env: NodeJS.ProcessEnv = { ...process.env, ...provided, PATH: `${bin}:${process.env.PATH}` };

  for (const page of pages()) {
    await t.test(page, async (t) => {
      const blocks = shellBlocks(read(page));
      const place = (b: ShellBlock): string => `${page}:${b.line}`;
      t.same(blocks.filter((b) => b.language !== 'sh').map(place), [], 'shell blocks are fenced as sh');
      t.same(
        blocks.filter((b) => b.tags.some((tag) => !TAGS.has(tag))).map(place),
        [],
        `tags are ${[...TAGS].join(', ')}`,
      );
      const envBlocks = blocks.filter((b) => b.tags.includes('env'));
      for (const b of envBlocks) {
        const names = assigned(b);
        t.ok(
          names.length > 0 && names.every((n) => PROVIDED.includes(n)),
          `${place(b)} sets only variables the test provides: ${names.join(', ')}`,
        );
      }
      const skipped = blocks.filter((b) => b.tags.includes('no-test'));
      const runnable = blocks.filter((b) => b.tags.length === 0);
      if (blocks.some((b) => /\bcurl\b/.test(b.body))) t.ok(runnable.length > 0, 'a page with curl examples runs some');
      t.comment(`${page}: ${runnable.length} blocks run, ${skipped.length} skipped (no-test), ${envBlocks.length} env`);
      if (runnable.length === 0) return;

      const cwd = tempDir();
      const run = await runPage(runnable, env, cwd);
      const failed = runnable[run.finished];
      t.equal(run.code, 0, failed ? `the block at ${place(failed)} failed` : 'every block ran', {
        stderr: run.stderr.slice(-3000),
        stdout: run.stdout.slice(-2000),
      });
      t.equal(run.finished, runnable.length, `${run.finished} of ${runnable.length} blocks ran to their end`);
    });
  }
});
