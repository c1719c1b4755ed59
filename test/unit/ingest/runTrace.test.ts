/**
 * src/ingest/runTrace.ts: a worker run's trace made from the store's text of it, as a compute
 * worker makes it (test/workers holds the whole path: a completed turn's trace readable over HTTP).
 */
import t from 'tap';
import { decodeAgentBatch } from '../../../src/ingest/agentsBatch.js';
import { prepareRunTrace } from '../../../src/ingest/runTrace.js';
import type { RunTraceText } from '../../../src/store/workers/trace.js';

/** The run's rows are not this test's concern: the compute worker maps the batch (ingest/scan.ts). */
const noRows = () => ({});

const RUN: RunTraceText['run'] = {
  id: 'run-1',
  agent: 'claude-code',
  title: 'Fix the cart',
  createdAt: '2026-11-24T10:00:00.000Z',
  endedAt: null,
  repository: 'acme/shop',
  workBranch: 'tracelake/run-1',
  headCommit: null,
  createdBy: null,
};
const TURN: RunTraceText['turns'][number] = {
  index: 0,
  prompt: 'Fix the cart',
  createdAt: '2026-11-24T10:00:00.000Z',
  status: 'succeeded',
  attempt: 1,
  finishedAt: '2026-11-24T10:00:30.000Z',
  reason: 'exit',
  error: null,
  commitSha: null,
  figured: false,
};
const event = (seq: number, over: Partial<RunTraceText['events'][number]>): RunTraceText['events'][number] => ({
  turnIndex: 0,
  attempt: 1,
  seq,
  at: `2026-11-24T10:00:0${seq}.000Z`,
  kind: 'agent',
  text: null,
  level: null,
  event: null,
  ...over,
});
const FULL = { tier: 'full', blobCapBytes: null } as const;

t.test("the run's session as an agents batch, and its turn's figures priced", async (t) => {
  const text = JSON.stringify({
    run: RUN,
    turns: [TURN],
    events: [
      event(0, { kind: 'step', text: 'Workspace ready', level: 'info' }),
      event(1, {
        event: JSON.stringify({
          type: 'assistant_message',
          model: 'gpt-4o',
          content: [{ type: 'text', text: 'Done.' }],
          usage: { inputTokens: 400, outputTokens: 10 },
        }),
      }),
      event(2, { event: null }),
    ],
  } satisfies RunTraceText);
  const { prepared, figures } = await prepareRunTrace(text, FULL, noRows, (model, usage) =>
    model === 'gpt-4o' ? (usage.inputTokens ?? 0) / 100 : undefined,
  );
  t.same(figures, [{ turnIndex: 0, costUsd: 4, inputTokens: 400, outputTokens: 10, toolCalls: 0 }]);
  t.same(prepared!.sessions, [{ agent: 'claude-code', id: 'run-1' }]);
  t.same(prepared!.rejected, []);
  const [session] = decodeAgentBatch(prepared!.body).sessions;
  t.same(
    session!.events.map((e) => [e.id, e.type]),
    [
      ['t0.prompt', 'user_message'],
      ['t0.a1.0', 'system'],
      ['t0.a1.1', 'assistant_message'],
      ['t0.end', 'system'],
    ],
    "the stored event's text parsed back into the session; an agent event without one left out",
  );
  t.match(session!.events[2], { model: 'gpt-4o', content: [{ type: 'text', text: 'Done.' }] });
});

t.test('a run without an ended turn: no batch, no figures', async (t) => {
  const text = JSON.stringify({
    run: RUN,
    turns: [{ ...TURN, status: 'running', finishedAt: null }],
    events: [],
  } satisfies RunTraceText);
  t.same(await prepareRunTrace(text, FULL, noRows), { prepared: null, figures: [] });
});

t.test("a session the contract refuses is rejected, not stored (as a sync batch's would be)", async (t) => {
  const text = JSON.stringify({ run: { ...RUN, id: '' }, turns: [TURN], events: [] } satisfies RunTraceText);
  const { prepared } = await prepareRunTrace(text, FULL, noRows);
  t.same(prepared!.sessions, []);
  t.equal(prepared!.rejected.length, 1);
});
