/**
 * Fault injection for the test suite (`TRACELAKE_FAULT_INJECTION=on` only): a handler that throws, one
 * that rejects later, and one that stalls, so tests can prove the 500 shape, that the process keeps
 * serving, and that shutdown drains in-flight requests; a checkpoint on demand, so the fault
 * tests can run one on a full disk; and a store task that holds its slot for a while, with the
 * store pool's queue and running tasks read on the main thread, so tests can fill the store's queue and see it drain.
 */
import typia, { type tags } from 'typia';
import { json } from '../reply.js';
import { route } from '../route.js';

interface SlowQuery {
  ms: number & tags.Type<'uint32'> & tags.Maximum<10000>;
}

export const faultRoutes = [
  route({
    method: 'GET',
    path: '/v1/_faults/throw',
    permission: 'none',
    handler: () => {
      throw new Error('injected failure');
    },
  }),
  route({
    method: 'GET',
    path: '/v1/_faults/reject',
    permission: 'none',
    handler: async () => {
      await new Promise((r) => setTimeout(r, 5));
      throw new TypeError('injected asynchronous failure');
    },
  }),
  route({
    method: 'GET',
    path: '/v1/_faults/slow',
    permission: 'none',
    validate: { query: typia.http.createValidateQuery<SlowQuery>() },
    handler: async ({ query }) => {
      await new Promise((r) => setTimeout(r, query.ms));
      return json({ slept_ms: query.ms });
    },
  }),
  route({
    method: 'GET',
    path: '/v1/_faults/store-sleep',
    permission: 'none',
    validate: { query: typia.http.createValidateQuery<SlowQuery>() },
    handler: async ({ query }, ctx) => json(await ctx.services.store.run('faultSleep', { ms: query.ms })),
  }),
  route({
    method: 'GET',
    path: '/v1/_faults/store-queue',
    permission: 'none',
    handler: (_input, ctx) => json({ queued: ctx.services.store.queueSize, active: ctx.services.store.active }),
  }),
  route({
    method: 'POST',
    path: '/v1/_faults/checkpoint',
    permission: 'none',
    handler: async (_input, ctx) => {
      await ctx.services.store.run('checkpoint', {});
      return json({ checkpointed: true });
    },
  }),
];
