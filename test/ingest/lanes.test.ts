/**
 * A lane's cut: a generation with durable records is flushed by its worker; one whose appends all failed
 * (every request in it was answered 5xx) is not sent, and its log file is handed over for deletion.
 */
import { MessageChannel } from 'node:worker_threads';
import t from 'tap';
import type { IngestLogFile } from '../../src/ingest/ingestLog.js';
import { Lane } from '../../src/ingest/lanes.js';

function lane() {
  const channel = new MessageChannel();
  const flushed: number[] = [];
  const discarded: string[] = [];
  const l = new Lane(
    'w1',
    channel.port1,
    { maxRows: 100, maxBodyBytes: 1 << 20, maxAgeMs: 1000 },
    (gen) => flushed.push(gen.seq),
    (name) => discarded.push(name),
  );
  const close = () => {
    channel.port1.close();
    channel.port2.close();
  };
  return { l, flushed, discarded, close };
}

const openLog = () => ({ close() {} }) as unknown as IngestLogFile;

// A record of an agents sync of blobs alone keeps no row, and is flushed all the same.
for (const rows of [3, 0]) {
  t.test(`a generation of records with ${rows} rows is flushed; its log file is kept for the commit`, async (t) => {
    const { l, flushed, discarded, close } = lane();
    t.teardown(close);
    const gen = l.open;
    gen.log = openLog();
    gen.rows = rows;
    gen.records = 1;
    await l.cut();
    t.same(flushed, [gen.seq], 'the worker is told to flush it');
    t.same(discarded, []);
    t.not(l.open, gen, 'a new generation takes the next records');
  });
}

t.test('a generation whose appends all failed is discarded, not flushed', async (t) => {
  const { l, flushed, discarded, close } = lane();
  t.teardown(close);
  const gen = l.open;
  gen.log = openLog();
  gen.begin(); // an append in flight when the cut comes: the cut waits for it
  const cut = l.cut();
  gen.end(); // …and it failed: no rows kept
  await cut;
  t.same(flushed, [], 'nothing sent to the worker');
  t.same(discarded, [gen.name], 'its log file is deleted');
});

t.test('a generation nothing was appended to is neither flushed nor discarded', async (t) => {
  const { l, flushed, discarded, close } = lane();
  t.teardown(close);
  const gen = l.open;
  await l.cut();
  t.same([flushed, discarded], [[], []]);
  t.equal(l.open, gen, 'it stays open');
});
