/**
 * The filter AST crosses the thread boundary as data: the HTTP thread parses and checks it, the store
 * thread compiles it. What arrives through a worker_threads port (the structured clone every pool
 * task goes through) is the same AST, and compiles to what the AST itself compiles to.
 */
import { deepStrictEqual } from 'node:assert/strict';
import { MessageChannel, receiveMessageOnPort } from 'node:worker_threads';
import fc from 'fast-check';
import t from 'tap';
import {
  checkFilter,
  compileFilter,
  parseFilter,
  validateJsonFilters,
  type Filter,
  type Resource,
} from '../../../src/core/filter/index.js';
import { cases } from './casesData.js';

/** `value` posted through a worker_threads port and received at its other end. */
function acrossThreads<T>(value: T): T {
  const { port1, port2 } = new MessageChannel();
  try {
    port1.postMessage(value);
    const received = receiveMessageOnPort(port2);
    if (received === undefined) throw new Error('nothing arrived on the port');
    return received.message as T;
  } finally {
    port1.close();
  }
}

/** The route sends the checked AST; the store compiles what arrives. */
function crosses(ast: Filter, resource: Resource): void {
  const sent = checkFilter(ast, resource);
  const received = acrossThreads(sent);
  deepStrictEqual(received, sent, 'the same AST arrives');
  deepStrictEqual(compileFilter(received, resource, 4), compileFilter(ast, resource, 4), 'it compiles as the AST');
}

t.test('every valid case crosses unchanged', async (t) => {
  for (const c of cases.valid) {
    const label = `${c.resource}: ${c.expression.slice(0, 80)}`;
    t.doesNotThrow(() => crosses(parseFilter(c.expression, c.resource), c.resource), label);
  }
  for (const c of cases.valid_json) {
    const label = `${c.resource}: ${JSON.stringify(c.filters).slice(0, 80)}`;
    t.doesNotThrow(() => crosses(validateJsonFilters(c.filters, c.resource), c.resource), label);
  }
});

t.test('an AST built by hand (the span list parameters) crosses unchanged', async (t) => {
  const filter: Filter = [
    { field: 'type', op: 'equals', value: 'generation' },
    { field: 'duration_ms', op: 'gte', value: 1.5 },
    { field: 'trace_id', op: 'equals', value: '0af7651916cd43dd8448eb211c80319c' },
    { field: 'start', op: 'between', value: ['2026-01-01T00:00:00.123456789Z', '2026-01-02T00:00:00Z'] },
  ];
  t.doesNotThrow(() => crosses(filter, 'spans'));
});

t.test('any text and any number cross unchanged', async (t) => {
  const lone = fc.constant('\ud800 lone surrogate');
  const text = fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: 'binary', maxLength: 40 }), lone);
  const key = fc.stringMatching(/^[a-zA-Z_][a-zA-Z0-9_]{0,63}$/);
  const number = fc.double({ noNaN: true, noDefaultInfinity: true });
  fc.assert(
    fc.property(fc.array(text, { minLength: 1, maxLength: 5 }), number, key, (names, n, k) => {
      const either: Filter[number] = {
        or: [
          { field: 'cost', op: 'gt', value: n },
          { field: `metadata.${k}`, op: 'equals', value: names[0]! },
          { field: 'tags', op: 'exists' },
        ],
      };
      crosses([{ field: 'name', op: 'in', value: names }, either], 'traces');
    }),
    { numRuns: 300 },
  );
  t.pass('unchanged');
});
