/**
 * The `local` provider on its own, against repositories made with git itself: reads at refs, and
 * what a cloud worker (issue 15) needs — a working copy of a branch, its work committed and pushed
 * to a branch of its own (fast-forward only), checked afterwards with git (log, show, fsck).
 */
import { existsSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { ApiError } from '../../src/core/errors.js';
import { LocalGitProvider } from '../../src/git/local.js';
import { bareRepo, commit, git, workingRepo } from '../helpers/git.js';
import { tempDir } from '../helpers/server.js';

const author = { name: 'Worker', email: 'worker@example.com' };

async function refused(t: Test, promise: Promise<unknown>, code: string): Promise<void> {
  try {
    await promise;
    t.fail(`expected ${code}`);
  } catch (e) {
    t.ok(e instanceof ApiError, String(e));
    t.equal((e as ApiError).code, code);
  }
}

t.test('local provider', async (t) => {
  const root = tempDir('tracelake-git-');
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const source = join(root, '..', `src-${Date.now()}`);
  t.teardown(() => rmSync(source, { recursive: true, force: true }));
  const first = workingRepo(source, {
    'prompts/a.md': 'A {{x}}\n',
    'prompts/deep/b.md': 'B\n',
    'src/app.ts': 'export {};\n',
  });
  const bare = bareRepo(root, 'acme', 'app', source);
  symlinkSync('/etc', join(root, 'acme', 'etc'));
  const local = new LocalGitProvider(root);

  await t.test('reads', async (t) => {
    t.same(await local.listRepositories(), [{ name: 'app', full_name: 'acme/app', default_branch: 'main' }]);
    t.equal(await local.resolveRef('acme/app', 'main'), first);
    t.equal(await local.resolveRef('acme/app', first), first);
    t.equal(await local.resolveRef('acme/app', 'nope'), null);
    t.equal(await local.resolveRef('acme/app', 'f'.repeat(40)), null);
    const file = await local.readFile('acme/app', first, 'prompts/a.md');
    t.equal(Buffer.from(file!.content).toString(), 'A {{x}}\n');
    t.equal(file!.blobSha, git(source, 'rev-parse', 'main:prompts/a.md'));
    t.equal(await local.readFile('acme/app', first, 'prompts/none.md'), null);
    t.equal(await local.readFile('acme/app', first, 'prompts'), null, 'a directory');
    t.same(
      (await local.listFiles('acme/app', first, 'prompts')).map((f) => f.path),
      ['prompts/a.md', 'prompts/deep/b.md'],
    );
    t.same(await local.listFiles('acme/app', first, 'nothing'), []);
    await refused(t, local.listBranches('acme/etc'), 'not_found');
    await refused(t, local.listBranches('acme/../..'), 'not_found');
    await refused(t, new LocalGitProvider(join(root, 'missing')).listRepositories(), 'unavailable');
  });

  await t.test('checkout, commit and push to a work branch', async (t) => {
    const dir = join(tempDir('tracelake-work-'), 'copy');
    const { commit: base } = await local.checkout('acme/app', 'main', dir);
    t.equal(base, first);
    t.equal(readFileSync(join(dir, 'prompts/a.md'), 'utf8'), 'A {{x}}\n');
    t.same(
      await local.commitAndPush(dir, { branch: 'work/one', message: 'nothing', author }),
      { commit: null },
      'nothing changed',
    );

    writeFileSync(join(dir, 'prompts/a.md'), 'A changed {{x}}\n');
    writeFileSync(join(dir, 'NEW.md'), 'new\n');
    rmSync(join(dir, 'src/app.ts'));
    const pushed = await local.commitAndPush(dir, { branch: 'work/one', message: 'worker change', author });
    t.match(pushed.commit, /^[0-9a-f]{40}$/);
    t.equal(git(bare, 'rev-parse', 'work/one'), pushed.commit);
    t.equal(git(bare, 'rev-parse', 'work/one^'), first, 'on top of the branch checked out');
    t.equal(git(bare, 'show', 'work/one:prompts/a.md'), 'A changed {{x}}');
    t.equal(git(bare, 'show', 'work/one:NEW.md'), 'new');
    t.throws(() => git(bare, 'show', 'work/one:src/app.ts'), 'the deletion is committed');
    t.equal(git(bare, 'log', '-1', '--format=%an <%ae> %s', 'work/one'), 'Worker <worker@example.com> worker change');
    git(bare, 'fsck', '--strict');
    t.equal(git(bare, 'rev-parse', 'main'), first, 'main is untouched');

    writeFileSync(join(dir, 'NEW.md'), 'newer\n');
    const second = await local.commitAndPush(dir, { branch: 'work/one', message: 'more', author });
    t.equal(git(bare, 'rev-parse', 'work/one^'), pushed.commit, 'a fast-forward');

    // Someone else moves the branch: the next push is not a fast-forward.
    const other = join(tempDir('tracelake-other-'), 'o');
    git(root, 'clone', '-q', '-b', 'work/one', bare, other);
    commit(other, { 'OTHER.md': 'other\n' });
    git(other, 'push', '-q', 'origin', 'work/one');
    writeFileSync(join(dir, 'NEW.md'), 'newest\n');
    await refused(t, local.commitAndPush(dir, { branch: 'work/one', message: 'late', author }), 'conflict');
    t.not(git(bare, 'rev-parse', 'work/one'), second.commit, 'the branch keeps the other push');
    git(bare, 'fsck', '--strict');

    await refused(t, local.checkout('acme/app', 'nope', join(tempDir('tracelake-work-'), 'x')), 'not_found');
    await refused(t, local.checkout('acme/app', 'main', dir), 'conflict');
    t.ok(existsSync(join(dir, '.git')));
  });
});
