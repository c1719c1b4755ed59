/** The filter language driven from the data file: parse, print, validate and compile every case. */
import t, { type Test } from 'tap';
import { ApiError } from '../../../src/core/errors.js';
import {
  compileFilter,
  parseFilter,
  printFilter,
  validateJsonFilters,
  type Filter,
} from '../../../src/core/filter/index.js';
import { PROMPT_VERSION_SQL } from '../../../src/core/filter/schema.js';
import { cases } from './casesData.js';

function refusal(t: Test, run: () => unknown): ApiError | undefined {
  try {
    run();
  } catch (e) {
    t.ok(e instanceof ApiError, 'an ApiError');
    t.equal((e as ApiError).code, 'invalid_filter');
    t.equal((e as ApiError).status, 400);
    return e as ApiError;
  }
  t.fail('expected a refusal');
  return undefined;
}

/** Placeholders `$n` of compiled SQL, in order of first appearance. */
function placeholders(sql: string): number[] {
  return [...new Set([...sql.matchAll(/\$(\d+)/g)].map((m) => Number(m[1])))];
}

function compiles(t: Test, ast: Filter, resource: Parameters<typeof compileFilter>[1]): void {
  const first = 4;
  const { sql, params } = compileFilter(ast, resource, first);
  t.same(
    placeholders(sql).sort((a, b) => a - b),
    params.map((_, i) => first + i),
    'placeholders are $4.. one per parameter',
  );
  // The schema's own SQL may hold literals (the JSON paths of prompt_version); values never.
  t.notMatch(sql.replaceAll(PROMPT_VERSION_SQL, ''), /['"]/, 'no literal in the SQL');
}

t.test('at least 40 cases', async (t) => {
  const n = Object.values(cases).reduce((sum, list) => sum + list.length, 0);
  t.ok(n >= 40, `${n} cases`);
});

t.test('valid expressions parse, print back and compile', async (t) => {
  for (const c of cases.valid) {
    t.test(`${c.resource}: ${c.expression.slice(0, 80)}`, async (t) => {
      const ast = parseFilter(c.expression, c.resource);
      t.same(ast, c.ast, 'the expected AST');
      const printed = printFilter(ast);
      t.equal(printed, c.printed ?? c.expression, 'printed');
      t.same(parseFilter(printed, c.resource), ast, 'parse(print(ast)) = ast');
      compiles(t, ast, c.resource);
    });
  }
});

t.test('valid JSON filters give the expected AST and compile', async (t) => {
  for (const c of cases.valid_json) {
    t.test(`${c.resource}: ${JSON.stringify(c.filters).slice(0, 80)}`, async (t) => {
      const ast = validateJsonFilters(c.filters, c.resource);
      t.same(ast, c.ast);
      t.same(
        validateJsonFilters(
          ast.map((cl) => ('or' in cl ? { or: cl.or.map(toJson) } : toJson(cl))),
          c.resource,
        ),
        ast,
        'idempotent',
      );
      compiles(t, ast, c.resource);
    });
  }
});

function toJson(p: { field: string; op: string; value?: unknown }) {
  return { field: p.field, operator: p.op, ...(p.value === undefined ? {} : { value: p.value }) };
}

t.test('malformed expressions are refused with a position', async (t) => {
  for (const c of cases.parse_fails) {
    t.test(`${c.resource}: ${c.expression.slice(0, 80)}`, async (t) => {
      const e = refusal(t, () => parseFilter(c.expression, c.resource));
      t.ok(e?.message.startsWith(`at position ${c.position}: `), `${e?.message} is at position ${c.position}`);
      t.ok(e?.message.includes(c.message), `${e?.message} says ${c.message}`);
    });
  }
});

t.test('invalid JSON filters are refused with a path', async (t) => {
  for (const c of cases.validate_fails) {
    t.test(`${c.resource}: ${JSON.stringify(c.filters).slice(0, 80)}`, async (t) => {
      const e = refusal(t, () => validateJsonFilters(c.filters, c.resource));
      t.ok(e?.message.startsWith(`${c.path}: `), `${e?.message} names ${c.path}`);
      t.ok(e?.message.includes(c.message), `${e?.message} says ${c.message}`);
    });
  }
});

t.test('invalid ASTs are refused by the compiler', async (t) => {
  for (const c of cases.compile_fails) {
    t.test(`${c.resource}: ${JSON.stringify(c.ast).slice(0, 80)}`, async (t) => {
      const e = refusal(t, () => compileFilter(c.ast as Filter, c.resource, 1));
      t.ok(e?.message.includes(c.message), `${e?.message} says ${c.message}`);
    });
  }
});
