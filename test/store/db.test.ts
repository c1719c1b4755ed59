/** The store against a real DuckDB: hardening, transactions, migrations, timeouts. */
import { existsSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { RETRY_AFTER_SECONDS } from '../../src/core/errors.js';
import { Database, RERUN_ON_CONFLICT } from '../../src/store/db.js';
import { bootstrap, findKeyByHash, localScope } from '../../src/store/admin/meta.js';
import { migrate } from '../../src/store/migrate.js';
import { MIGRATIONS } from '../../src/store/migrations.js';
import { DATABASE_FILE } from '../../src/store/layout.js';
import { DUCKDB_MEMORY_SQL } from '../../src/store/duckdb.js';
import { tempDir } from '../helpers/server.js';

async function open(
  t: { teardown(fn: () => unknown): void },
  queryTimeoutMs = 30_000,
): Promise<{ db: Database; dataDir: string }> {
  const dataDir = tempDir();
  const db = await Database.open({ dataDir, threads: 2, memoryLimit: '512MiB', queryTimeoutMs });
  t.teardown(() => {
    db.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  return { db, dataDir };
}

t.test('file access is limited to the store directories and the configuration is locked', async (t) => {
  const { db, dataDir } = await open(t);
  await db.exec('CREATE TABLE t AS SELECT 1 AS x');
  const inside = join(dataDir, 'segments', 'probe.parquet');
  await db.exec(`COPY t TO '${inside}' (FORMAT parquet)`);
  t.same(await db.query(`SELECT x FROM read_parquet('${inside}')`), [{ x: 1 }], 'segments dir is usable');
  await t.rejects(
    db.exec(`COPY t TO '${join(dataDir, '..', 'outside.parquet')}' (FORMAT parquet)`),
    /Permission Error/,
  );
  await t.rejects(db.query(`SELECT * FROM read_csv('/etc/passwd')`), /Permission Error/);
  await t.rejects(db.exec(`ATTACH '${join(dataDir, 'other.duckdb')}'`), /Permission Error/);
  await t.rejects(db.exec('SET enable_external_access = true'), /Cannot change configuration option/);
  await t.rejects(db.exec(`INSTALL httpfs`), /./, 'no extension can be installed');
});

t.test('transactions roll back on a throw', async (t) => {
  const { db } = await open(t);
  await db.exec('CREATE TABLE t (x INTEGER)');
  await t.rejects(
    db.transaction(async (tx) => {
      await tx.exec('INSERT INTO t VALUES (1)');
      t.same(await tx.query('SELECT count(*)::INTEGER AS n FROM t'), [{ n: 1 }], 'visible inside');
      throw new Error('boom');
    }),
    /boom/,
  );
  t.same(await db.query('SELECT count(*)::INTEGER AS n FROM t'), [{ n: 0 }], 'gone after rollback');
  t.equal(
    await db.transaction(async (tx) => {
      await tx.exec('INSERT INTO t VALUES (2)');
      return 'done';
    }),
    'done',
  );
  t.same(await db.query('SELECT x FROM t'), [{ x: 2 }]);
});

t.test('migrations are idempotent and recorded', async (t) => {
  const { db } = await open(t);
  t.same(
    await migrate(db),
    MIGRATIONS.map((m) => m.version),
    'first run applies all',
  );
  t.same(await migrate(db), [], 'second run applies none');
  const recorded = await db.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
  t.same(
    recorded.map((r) => r.version),
    MIGRATIONS.map((m) => m.version),
  );
  const broken = [
    ...MIGRATIONS,
    { version: 999, name: 'broken', sql: ['CREATE TABLE half (x INTEGER)', 'THIS IS NOT SQL'] },
  ];
  await t.rejects(migrate(db, broken));
  t.same(
    await db.query(`SELECT count(*)::INTEGER AS n FROM information_schema.tables WHERE table_name = 'half'`),
    [{ n: 0 }],
    'a failed migration leaves nothing behind',
  );
  t.same(await db.query('SELECT count(*)::INTEGER AS n FROM schema_migrations WHERE version = 999'), [{ n: 0 }]);
});

t.test('a new store takes its migrations in one transaction, an older one takes them one by one', async (t) => {
  const fresh = (await open(t)).db;
  const broken = { version: 999, name: 'broken', sql: ['CREATE TABLE half (x INTEGER)', 'THIS IS NOT SQL'] };
  await t.rejects(migrate(fresh, [...MIGRATIONS, broken]));
  t.same(
    await fresh.query('SELECT count(*)::INTEGER AS n FROM schema_migrations'),
    [{ n: 0 }],
    'a new store whose last migration fails keeps none of them',
  );
  t.same(
    await fresh.query(
      `SELECT count(*)::INTEGER AS n FROM information_schema.tables WHERE table_name IN ('apps', 'segments', 'half')`,
    ),
    [{ n: 0 }],
    'nor their tables',
  );
  t.same(
    await migrate(fresh),
    MIGRATIONS.map((m) => m.version),
    'and takes them all at the next start',
  );

  const older = (await open(t)).db;
  await migrate(older, MIGRATIONS.slice(0, 1));
  const good = { version: 998, name: 'good', sql: ['CREATE TABLE kept (x INTEGER)'] };
  await t.rejects(migrate(older, [...MIGRATIONS, good, broken]));
  const recorded = (
    await older.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version')
  ).map((r) => r.version);
  t.same(
    recorded,
    [...MIGRATIONS.map((m) => m.version), 998],
    'a store with migrations keeps each that committed before one failed',
  );
  t.same(await older.query(`SELECT count(*)::INTEGER AS n FROM information_schema.tables WHERE table_name = 'kept'`), [
    { n: 1 },
  ]);
});

t.test('bootstrap happens once', async (t) => {
  const { db } = await open(t);
  await migrate(db);
  const scope = await bootstrap(db, { keyHash: 'a'.repeat(64), keyPrefix: 'sk_service_x' });
  t.ok(scope);
  t.equal(await bootstrap(db, { keyHash: 'b'.repeat(64), keyPrefix: 'sk_service_y' }), null);
  t.same(
    await localScope(db),
    { ...scope, plan: 'self_hosted' },
    'the bootstrap app is the local app, on the default plan',
  );
  const key = await findKeyByHash(db, 'a'.repeat(64));
  t.equal(key?.role, 'full_access');
  t.equal(key?.appId, scope!.appId);
  t.equal(await findKeyByHash(db, 'b'.repeat(64)), null, 'the second bootstrap stored nothing');
});

t.test('a query over the timeout is interrupted', async (t) => {
  const { db } = await open(t, 100);
  const started = Date.now();
  await t.rejects(
    db.query('SELECT count(*) FROM range(100000000000) a'),
    {
      code: 'overloaded',
      status: 503,
      message: /ran past the query timeout \(100 ms\)/,
      headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
    },
    'a 503 that says so, not an internal error',
  );
  await t.rejects(
    db.exec('CREATE TABLE big AS SELECT count(*) AS n FROM range(100000000000) a'),
    { code: 'overloaded' },
    'a statement too',
  );
  await t.rejects(db.query('SELECT * FROM missing_table'), /Catalog Error/, 'other errors pass as they are');
  t.ok(Date.now() - started < 5_000, 'well before it would have finished');
  t.same(await db.query('SELECT 42 AS x'), [{ x: 42 }], 'the connection is usable afterwards');
});

t.test(
  'kept prepared statements answer from the current data, and every table function the store uses runs again',
  async (t) => {
    const { db, dataDir } = await open(t);
    await db.exec('CREATE TABLE t (x INTEGER, y VARCHAR)');
    const read = () =>
      db.query<{ n: number; top: string | null }>(
        'SELECT count(*)::INTEGER AS n, max(y) AS top FROM t WHERE x > $1',
        [0],
      );
    t.same(await read(), [{ n: 0, top: null }], 'planned over an empty table');
    await db.exec(`INSERT INTO t VALUES (1, 'a'), (2, 'b')`);
    t.same(await read(), [{ n: 2, top: 'b' }], 'the same statement sees the new rows');
    await db.transaction((tx) => tx.exec(`INSERT INTO t VALUES (3, 'c')`));
    t.same(await read(), [{ n: 3, top: 'c' }], 'and rows committed elsewhere');
    t.same(await db.query('SELECT $1::VARCHAR AS v', ['x']), [{ v: 'x' }]);
    t.same(await db.query('SELECT $1::VARCHAR AS v', [null]), [{ v: null }], 'a parameter of another type re-plans');

    // Each table function the store reads through, run three times by one statement text: a kept
    // statement whose function cannot run twice would invalidate the database (see db.ts).
    const file = join(dataDir, 'segments', 'probe.parquet');
    await db.exec(`COPY (SELECT range AS x FROM range(10)) TO '${file}' (FORMAT parquet)`);
    const reads: [string, unknown[]][] = [
      [`SELECT count(*)::INTEGER AS n FROM read_parquet(['${file}'], hive_partitioning = false) WHERE x >= $1`, [5]],
      [`SELECT count(*)::INTEGER AS n FROM parquet_metadata('${file}')`, []],
      [`SELECT count(*)::INTEGER AS n FROM read_blob('${file}')`, []],
      [`SELECT count(*)::INTEGER AS n FROM duckdb_tables() WHERE table_name = 't'`, []],
      [`SELECT count(*)::INTEGER AS n FROM duckdb_columns() WHERE table_name = 't'`, []],
      ['SELECT count(*)::INTEGER AS n FROM (SELECT unnest([1, 2, 3]))', []],
    ];
    for (const [sql, params] of reads) {
      const answers = [];
      for (let i = 0; i < 3; i++) answers.push(await db.query(sql, params as never[]));
      t.same(answers[2], answers[0], sql.slice(0, 60));
    }
    t.same(await read(), [{ n: 3, top: 'c' }], 'the database still answers');

    // A migration drops a table a kept statement read.
    await db.exec('CREATE TABLE doomed (x INTEGER)');
    t.same(await db.query('SELECT count(*)::INTEGER AS n FROM doomed'), [{ n: 0 }]);
    await migrate(db, [{ version: 9_001, name: 'drop doomed', sql: ['DROP TABLE doomed'] }]);
    await db.checkpoint();
    t.same(await read(), [{ n: 3, top: 'c' }], 'still answering after the drop and a checkpoint');
  },
);

t.test(
  'a statement without parameters answers from the current data, not from the statistics of its first run',
  async (t) => {
    const { db } = await open(t);
    await db.exec('CREATE TABLE tenants (x INTEGER, name VARCHAR, created_at INTEGER)');
    await db.exec(`INSERT INTO tenants VALUES (1, 'acme', 1), (3, 'greeting', 2)`);
    const over = () => db.query<{ n: number }>('SELECT count(*)::INTEGER AS n FROM tenants WHERE x > 5');
    // Sorted with its strings as payload: DuckDB compresses strings its statistics say are short.
    const names = () => db.query<{ name: string }>('SELECT name FROM tenants ORDER BY created_at');
    for (let run = 0; run < 3; run++) {
      t.same(await over(), [{ n: 0 }]);
      t.same(await names(), [{ name: 'acme' }, { name: 'greeting' }]);
    }
    const long = 'a name longer than any before it, 😀 and all';
    await db.exec(`INSERT INTO tenants VALUES (10, '${long}', 3)`);
    t.same(await over(), [{ n: 1 }], 'a row the first statistics ruled out is counted');
    t.same(
      await names(),
      [{ name: 'acme' }, { name: 'greeting' }, { name: long }],
      'a string wider than the first statistics comes back whole',
    );
  },
);

t.test(
  'a key another transaction inserted at once: an ON CONFLICT statement and a transaction that asks run again, and see it',
  async (t) => {
    const { db } = await open(t);
    await db.exec('CREATE TABLE k (id INTEGER PRIMARY KEY, v INTEGER)');
    // A transaction inserts key 1 and holds on while another statement inserts and commits it: at its
    // commit, the first meets a key it could not see.
    const holdingOn = async (options: { retryConflicts?: boolean }, key: number) => {
      let runs = 0;
      let gate: () => void = () => undefined;
      const opened = new Promise<void>((inserted) => {
        gate = inserted;
      });
      let release: () => void = () => undefined;
      const released = new Promise<void>((r) => (release = r));
      const done = db.transaction(async (tx) => {
        runs++;
        await tx.exec('INSERT INTO k VALUES ($1, 1) ON CONFLICT DO NOTHING', [key]);
        gate();
        await released;
        return runs;
      }, options);
      await opened;
      await db.exec('INSERT INTO k VALUES ($1, 2) ON CONFLICT DO NOTHING', [key]);
      release();
      return done;
    };
    t.equal(await holdingOn(RERUN_ON_CONFLICT, 1), 2, 'asked: run again once, and its clause met the row');
    t.same(await db.query('SELECT v FROM k WHERE id = 1'), [{ v: 2 }], "the winner's row stays");
    await t.rejects(holdingOn({}, 2), /PRIMARY KEY or UNIQUE constraint violation/, 'not asked: the loser fails');

    // Upserts of one key at once, each its own statement: DuckDB runs them on threads of its own.
    await db.exec('CREATE TABLE pins (id INTEGER PRIMARY KEY, run INTEGER)');
    for (let round = 0; round < 20; round++) {
      const answers = await Promise.allSettled(
        Array.from({ length: 8 }, (_, i) =>
          db.exec('INSERT INTO pins VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET run = excluded.run', [round, i]),
        ),
      );
      const failed = answers.filter((a) => a.status === 'rejected');
      t.same(failed, [], `round ${round}: every upsert of one key at once is stored`);
    }
    t.same(await db.query('SELECT count(*)::INTEGER AS n FROM pins'), [{ n: 20 }], 'one row a key');
  },
);

t.test('a number past the 64-bit range is bound as the double it is, on every path', async (t) => {
  const { db } = await open(t);
  await db.exec('CREATE TABLE n (v DOUBLE)');
  // DuckDB's client binds an integral number outside 32 bits as a BIGINT; 1e20 and 2^63 are integral.
  for (const big of [1e20, 2 ** 63, -1e300]) {
    t.same(
      await db.query('SELECT $1 AS v, typeof($1) AS type, $1 > 0 AS positive', [big]),
      [{ v: big, type: 'DOUBLE', positive: big > 0 }],
      `query ${big}`,
    );
  }
  t.same(
    await db.query('SELECT typeof($1) AS small, typeof($2) AS large', [-(2 ** 63), 2 ** 62]),
    [{ small: 'BIGINT', large: 'BIGINT' }],
    'the ends of the 64-bit range stay BIGINT',
  );
  await db.exec('INSERT INTO n VALUES ($1)', [1e20]);
  await db.transaction(async (tx) => {
    await tx.exec('INSERT INTO n VALUES ($1)', [1e21]);
    t.same(
      await tx.query('SELECT count(*)::INTEGER AS c FROM n WHERE v >= $1', [1e20]),
      [{ c: 2 }],
      'in a transaction',
    );
  });
  const seen: unknown[] = [];
  await db.streamColumns('SELECT v FROM n WHERE v < $1 ORDER BY v', [9.9e307], (columns) => {
    seen.push(...columns[0]!);
  });
  t.same(seen, [1e20, 1e21], 'streamed');
  // A reader that has what it needs stops the stream; the connection serves the next query.
  let chunks = 0;
  const rows = await db.streamColumns('SELECT range AS v FROM range(100000)', [], () => {
    chunks++;
    return 'stop';
  });
  t.equal(chunks, 1, 'stopped after the first chunk');
  t.ok(rows > 0 && rows < 100000, `counted what was read (${rows} rows)`);
  t.same(await db.query('SELECT 1 AS one'), [{ one: 1 }], 'the database answers after a stopped stream');
});

t.test('the store keeps no copy of the files it reads', async (t) => {
  const { db, dataDir } = await open(t);
  const file = join(dataDir, 'segments', 'rows.parquet');
  await db.exec(
    `COPY (SELECT range AS id, md5(range::VARCHAR) AS text FROM range(500000)) TO '${file}' (FORMAT parquet)`,
  );
  // Read twice: a cache would keep the file's bytes after the first read for the second.
  for (let i = 0; i < 2; i++)
    t.same(await db.query(`SELECT count(DISTINCT text)::INTEGER AS n FROM '${file}'`), [{ n: 500_000 }]);
  const tags = (await db.query<{ tag: string }>(DUCKDB_MEMORY_SQL)).map((r) => r.tag);
  t.notOk(tags.includes('external_file_cache'), `no copy of the file read (${tags.join(', ')})`);
});

t.test(
  'a checkpoint is put off while a write it does not see runs, holding no read back; at four times the threshold it waits',
  async (t) => {
    const { db, dataDir } = await open(t);
    const wal = () =>
      existsSync(`${join(dataDir, DATABASE_FILE)}.wal`) ? statSync(`${join(dataDir, DATABASE_FILE)}.wal`).size : 0;
    await db.exec('CREATE TABLE n AS SELECT 1 AS x');
    await db.checkpoint();
    // A snapshot's update is a write the store does not count (it is rolled back), and one beside
    // which DuckDB refuses a checkpoint (an insert it does not): it runs until the snapshot ends.
    await db.snapshot(async (read) => {
      await read.exec('UPDATE n SET x = 2 WHERE x = 1');
      await db.exec('INSERT INTO n VALUES (3)');
      const size = wal();
      t.ok(size > 0, `the WAL holds the commit beside it (${size} bytes)`);
      t.equal(
        await db.checkpointIfLarge(size),
        false,
        'the checkpoint is put off, not waited for (a FORCE would wait on this snapshot for good)',
      );
      t.same(
        await db.query('SELECT list(x ORDER BY x) AS xs FROM n'),
        [{ xs: [1, 3] }],
        'and a read answers meanwhile',
      );
    });
    t.equal(await db.checkpointIfLarge(wal()), true, 'once the write has ended it runs');
    t.equal(wal(), 0, 'and the WAL is empty');

    await db.exec('INSERT INTO n VALUES (4)');
    let forced: Promise<boolean> | null = null;
    await db.snapshot(async (read) => {
      await read.exec('UPDATE n SET x = 5 WHERE x = 1');
      // Four times the threshold: it waits for the snapshot to end rather than be put off.
      forced = db.checkpointIfLarge(Math.floor(wal() / 4));
    });
    t.equal(await forced, true, 'a WAL four times the threshold is checkpointed once the write ends');
    t.equal(wal(), 0);
    t.same(
      await db.query('SELECT list(x ORDER BY x) AS xs FROM n'),
      [{ xs: [1, 3, 4] }],
      'the rolled-back writes are not there',
    );
  },
);

t.test('a snapshot reads one state across its statements, a checkpoint runs beside it, nothing is left', async (t) => {
  const { db } = await open(t);
  await db.exec('CREATE TABLE n AS SELECT 1 AS x');
  const seen = await db.snapshot(async (read) => {
    await read.exec('CREATE TEMP TABLE counted AS SELECT count(*) AS c FROM n');
    // Another connection commits, and the store checkpoints, between the snapshot's statements.
    await db.exec('INSERT INTO n VALUES (2)');
    await db.checkpoint();
    return read.query<{ first: number; later: number }>(
      'SELECT (SELECT c FROM temp.counted)::INTEGER AS first, (SELECT count(*) FROM n)::INTEGER AS later',
    );
  });
  t.same(seen, [{ first: 1, later: 1 }], "the later statement reads the first one's state");
  t.same(await db.query('SELECT count(*)::INTEGER AS c FROM n'), [{ c: 2 }], 'the commit beside it stands');
  // Idle connections are reused last in, first out: this snapshot gets the one above, which has no
  // temporary table left to collide with.
  await db.snapshot((read) => read.exec('CREATE TEMP TABLE counted AS SELECT 1 AS c'));
  t.pass('the temporary table went with the snapshot');
  await t.rejects(
    db.snapshot(async (read) => {
      await read.exec('CREATE TEMP TABLE counted AS SELECT 1 AS c');
      await read.query('SELECT * FROM no_such_table');
    }),
    /no_such_table/,
  );
  await db.snapshot((read) => read.exec('CREATE TEMP TABLE counted AS SELECT 1 AS c'));
  t.pass('and with a snapshot that failed');
});
