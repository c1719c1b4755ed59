import t from 'tap';
import { emptyMap, type JsonMap } from '../../../src/core/otlp/attributes.js';
import { COST_DETAILS_KEY, USAGE_DETAILS_KEY, withDetails } from '../../../src/core/otlp/details.js';

const map = (o: Record<string, unknown>): JsonMap => Object.assign(emptyMap(), o) as JsonMap;
const plain = (v: unknown): unknown => JSON.parse(JSON.stringify(v));

t.test('spans without details are handed back as they are', async (t) => {
  const attrs = map({ 'gen_ai.request.model': 'gpt-4o' });
  t.equal(withDetails(attrs, { dropped: 0 }), attrs);
});

t.test("the numbers of Langfuse's usage and cost details become keys; the rest is left", async (t) => {
  const attrs = map({
    [USAGE_DETAILS_KEY]: JSON.stringify({ input: 12, output: 3, total: 15, note: 'text', bad: null }),
    [COST_DETAILS_KEY]: { input: 0.25, output: 0.5 },
  });
  const view = withDetails(attrs, { dropped: 0 });
  t.not(view, attrs, 'a new map: the attributes stored are not changed');
  t.same(plain(view), {
    ...(plain(attrs) as object),
    [`${USAGE_DETAILS_KEY}.input`]: 12,
    [`${USAGE_DETAILS_KEY}.output`]: 3,
    [`${USAGE_DETAILS_KEY}.total`]: 15,
    [`${COST_DETAILS_KEY}.input`]: 0.25,
    [`${COST_DETAILS_KEY}.output`]: 0.5,
    [`${COST_DETAILS_KEY}.total`]: 0.75,
  });
  t.equal(Object.keys(attrs).length, 2);
});

t.test('a cost with its own total keeps it', async (t) => {
  const view = withDetails(map({ [COST_DETAILS_KEY]: '{"input":1,"output":2,"total":4}' }), { dropped: 0 });
  t.equal(view[`${COST_DETAILS_KEY}.total`], 4);
});

t.test('details that are no JSON object are no details', async (t) => {
  for (const value of ['not json', '[1,2]', '7', 7]) {
    const attrs = map({ [USAGE_DETAILS_KEY]: value });
    t.equal(withDetails(attrs, { dropped: 0 }), attrs, JSON.stringify(value));
  }
});
