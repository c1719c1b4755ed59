/** src/ingest/generationTimes.ts: a generation's stages and its requests' time to readable, told to the metrics. */
import t from 'tap';
import { GenerationTimes, type GenerationStage } from '../../../src/ingest/generationTimes.js';

const g = { workerId: 'w', seq: 4 };

t.test('the stages of a generation, in seconds', async (t) => {
  const times = new GenerationTimes();
  const seen: [GenerationStage, number][] = [];
  times.stageObserver = (stage, seconds) => seen.push([stage, seconds]);
  t.notOk(times.wantsAnswers, 'answer times are kept only when someone is told of them');
  times.cut(g, { firstAt: 1000, cutAt: 1500, answeredAt: [] });
  times.reported(g, 2500);
  times.committed(g, 4000, 4250);
  t.same(seen, [
    ['open', 0.5],
    ['write', 1],
    ['queue', 1.5],
    ['commit', 0.25],
  ]);
  times.committed(g, 5000, 5001);
  t.equal(seen.length, 4, 'told once');
});

t.test("each request's time from its answer to readable", async (t) => {
  const times = new GenerationTimes();
  const seen: number[] = [];
  times.visibleObserver = (seconds) => seen.push(seconds);
  t.ok(times.wantsAnswers);
  times.cut(g, { firstAt: 0, cutAt: 10, answeredAt: [100, 600] });
  times.committed(g, 1000, 1100);
  t.same(seen, [1, 0.5]);
});

t.test('nothing is kept when no one is told', async (t) => {
  const times = new GenerationTimes();
  times.cut(g, { firstAt: 0, cutAt: 1, answeredAt: [] });
  times.reported(g, 2);
  times.committed(g, 3, 4);
  const seen: number[] = [];
  times.visibleObserver = (s) => seen.push(s);
  times.committed(g, 3, 4);
  t.same(seen, [], 'a generation cut before anyone listened is not reported');
});

t.test("a worker that ended: its generations' times are dropped, another worker's kept", async (t) => {
  const times = new GenerationTimes();
  const seen: string[] = [];
  times.stageObserver = (stage) => seen.push(stage);
  const other = { workerId: 'v', seq: 4 };
  times.cut(g, { firstAt: 0, cutAt: 1, answeredAt: [] });
  times.cut(other, { firstAt: 0, cutAt: 1, answeredAt: [] });
  times.forgetWorker('w');
  times.committed(g, 3, 4);
  t.same(seen, [], 'nothing kept for the ended worker');
  times.committed(other, 3, 4);
  t.same(seen, ['open', 'write', 'queue', 'commit'], "the other worker's generation is still told");
});
