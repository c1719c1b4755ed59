/** src/openapi/examples.ts: the shared example values and the error examples are valid values of their types. */
import t from 'tap';
import { validateCatalogValues } from '../../../src/contract/catalog.js';
import {
  APP_EXAMPLE,
  ENVIRONMENT_EXAMPLE,
  ERROR_EXAMPLES,
  SCORE_EXAMPLE,
  SPAN_EXAMPLE,
  SUMMARY_EXAMPLE,
} from '../../../src/openapi/examples.js';

t.test('error examples are error bodies', async (t) => {
  const examples = Object.entries(ERROR_EXAMPLES).flatMap(([status, named]) =>
    Object.entries(named).map(([name, value]) => ({ where: `${status} ${name}`, value })),
  );
  t.ok(examples.length >= 6, `${examples.length} error examples`);
  for (const { where, value } of examples) {
    const result = validateCatalogValues({ ErrorBody: [value] });
    t.ok(result.success, where, result.success ? {} : { errors: result.errors });
  }
});

t.test('the shared values are values of their types', async (t) => {
  const result = validateCatalogValues({
    TraceSearchPage: [{ data: [SUMMARY_EXAMPLE], pagination: { total: 1, limit: 50, offset: 0 } }],
    TraceSpansAnswer: [{ data: [SPAN_EXAMPLE] }],
    ScoreAnswer: [{ data: SCORE_EXAMPLE }],
    AppAnswer: [{ data: APP_EXAMPLE }],
    EnvironmentAnswer: [{ data: ENVIRONMENT_EXAMPLE }],
  });
  t.ok(result.success, 'valid', result.success ? {} : { errors: result.errors });
});
