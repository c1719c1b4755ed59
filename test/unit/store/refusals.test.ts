/**
 * The refusal test reads DuckDB's own errors: each is made here by a real in-memory database, so a
 * DuckDB that words them otherwise fails this test, not a commit in production.
 */
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import t from 'tap';
import { isStoreRefusal, isUniqueViolation, isWriteConflict } from '../../../src/store/refusals.js';

async function errorOf(c: DuckDBConnection, work: (c: DuckDBConnection) => Promise<unknown>): Promise<unknown> {
  try {
    await work(c);
  } catch (e) {
    return e;
  }
  throw new Error('expected an error');
}

async function append(
  c: DuckDBConnection,
  row: (a: Awaited<ReturnType<DuckDBConnection['createAppender']>>) => void,
): Promise<void> {
  const a = await c.createAppender('t');
  try {
    row(a);
    a.endRow();
    a.flushSync();
  } finally {
    a.closeSync();
  }
}

t.test('values DuckDB refuses are refusals; failures of the machine and of the SQL are not', async (t) => {
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  t.teardown(() => c.closeSync());
  await c.run('CREATE TABLE t (d DECIMAL(38, 12), i INTEGER PRIMARY KEY, b BIGINT)');
  const refusals: Record<string, (c: DuckDBConnection) => Promise<unknown>> = {
    'a cast in SQL': (c) => c.run('INSERT INTO t VALUES (1e300::DOUBLE, 1, 1)'),
    'a 128-bit integer into 64 bits': (c) => c.run('INSERT INTO t VALUES (1, 2, 99999999999999999999999::HUGEINT)'),
    'a primary key twice': (c) => c.run('INSERT INTO t VALUES (1, 3, 1), (1, 3, 1)'),
    'a date that is none': (c) => c.run(`SELECT 'x'::DATE`),
    'an out-of-range number': (c) => c.run('SELECT 9223372036854775807::BIGINT + 1'),
    'an invalid input': (c) => c.run(`SELECT json_extract('{', '$.a')`),
    'the appender casting a double into a decimal': (c) =>
      append(c, (a) => {
        a.appendDouble(1e300);
        a.appendInteger(4);
        a.appendBigInt(1n);
      }),
    'the appender casting a double into an integer': (c) =>
      append(c, (a) => {
        a.appendDouble(1);
        a.appendDouble(1e20);
        a.appendBigInt(1n);
      }),
    'the binding of a bigint past 64 bits': (c) =>
      append(c, (a) => {
        a.appendDouble(1);
        a.appendInteger(5);
        a.appendBigInt(2n ** 70n);
      }),
  };
  for (const [what, work] of Object.entries(refusals)) {
    const e = await errorOf(c, work);
    t.ok(isStoreRefusal(e), `${what}: ${(e as Error).message.split('\n')[0]}`);
  }
  const failures: Record<string, (c: DuckDBConnection) => Promise<unknown>> = {
    'a file that is not there': (c) => c.run(`SELECT * FROM read_parquet('/nonexistent/tracelake.parquet')`),
    'a syntax error': (c) => c.run('SELEC 1'),
    'an unknown column': (c) => c.run('SELECT nosuch FROM t'),
  };
  for (const [what, work] of Object.entries(failures)) {
    const e = await errorOf(c, work);
    t.notOk(isStoreRefusal(e), `${what}: ${(e as Error).message.split('\n')[0]}`);
  }
  t.notOk(isStoreRefusal(new Error('ENOSPC: no space left on device, write')), 'a full disk');
  t.notOk(isStoreRefusal('Conversion Error: not an Error'), 'a value that is not an Error');
});

/** Two connections to one in-memory database, for two transactions at once. */
async function twoConnections(t: { teardown(fn: () => void): void }): Promise<[DuckDBConnection, DuckDBConnection]> {
  const db = await DuckDBInstance.create(':memory:');
  const pair: [DuckDBConnection, DuckDBConnection] = [await db.connect(), await db.connect()];
  t.teardown(() => {
    for (const c of pair) c.closeSync();
  });
  return pair;
}

t.test('a unique key met at the insert or at the commit is a unique violation; other refusals are not', async (t) => {
  const [a, b] = await twoConnections(t);
  await a.run('CREATE TABLE u (id INTEGER PRIMARY KEY, name VARCHAR NOT NULL, UNIQUE (name))');
  await a.run(`INSERT INTO u VALUES (1, 'acme')`);
  const atInsert: Record<string, unknown> = {
    'a primary key': await errorOf(a, (c) => c.run(`INSERT INTO u VALUES (1, 'other')`)),
    'a unique column': await errorOf(a, (c) => c.run(`INSERT INTO u VALUES (2, 'acme')`)),
  };
  // DuckDB quotes the key in its message: a name with a line break once hid the violation (a 500).
  await a.run(`INSERT INTO u VALUES (6, 'two' || chr(10) || 'lines')`);
  atInsert['a key with a line break'] = await errorOf(a, (c) =>
    c.run(`INSERT INTO u VALUES (7, 'two' || chr(10) || 'lines')`),
  );
  for (const [what, e] of Object.entries(atInsert))
    t.ok(isUniqueViolation(e), `${what}, at the insert: ${(e as Error).message.split('\n')[0]}`);
  // Two transactions insert one name; neither sees the other's row until the second commits.
  await a.run('BEGIN');
  await b.run('BEGIN');
  await a.run(`INSERT INTO u VALUES (3, 'raced')`);
  await b.run(`INSERT INTO u VALUES (4, 'raced')`);
  await a.run('COMMIT');
  const atCommit = await errorOf(b, (c) => c.run('COMMIT'));
  t.ok(isUniqueViolation(atCommit), `at the second commit: ${(atCommit as Error).message.split('\n')[0]}`);
  const others = {
    'a NOT NULL column': await errorOf(a, (c) => c.run(`INSERT INTO u VALUES (5, NULL)`)),
    'a cast': await errorOf(a, (c) => c.run(`INSERT INTO u VALUES ('x', 'y')`)),
  };
  for (const [what, e] of Object.entries(others))
    t.notOk(isUniqueViolation(e), `${what}: ${(e as Error).message.split('\n')[0]}`);
  t.notOk(isUniqueViolation('Duplicate key "x" violates unique constraint'), 'a value that is not an Error');
});

t.test('two transactions changing or deleting one row: the later meets a write conflict', async (t) => {
  const [a, b] = await twoConnections(t);
  await a.run('CREATE TABLE w (id INTEGER PRIMARY KEY, v INTEGER)');
  await a.run('INSERT INTO w VALUES (1, 0), (2, 0)');
  const race = async (first: string, second: string) => {
    await a.run('BEGIN');
    await b.run('BEGIN');
    await a.run(first);
    const e = await errorOf(b, async (c) => {
      await c.run(second);
      await c.run('COMMIT');
    });
    await b.run('ROLLBACK').catch(() => undefined);
    await a.run('COMMIT');
    return e;
  };
  const conflicts = {
    'two deletes': await race('DELETE FROM w WHERE id = 1', 'DELETE FROM w WHERE id = 1'),
    'two updates': await race('UPDATE w SET v = 1 WHERE id = 2', 'UPDATE w SET v = 2 WHERE id = 2'),
  };
  for (const [what, e] of Object.entries(conflicts)) {
    t.ok(isWriteConflict(e), `${what}: ${(e as Error).message.split('\n')[0]}`);
    t.notOk(isStoreRefusal(e), `${what}: not a refusal of the data (it passes when run again)`);
  }
  t.notOk(
    isWriteConflict(await errorOf(a, (c) => c.run('INSERT INTO w VALUES (2, 0)'))),
    'a unique violation is not one',
  );
  t.notOk(isWriteConflict('Conflict on update!'), 'a value that is not an Error');
});
