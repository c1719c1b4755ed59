/** src/http/status.ts: the reason phrases of the status lines. */
import t from 'tap';
import { ERRORS } from '../../../src/core/errors.js';
import { STATUS_TEXT } from '../../../src/http/status.js';

t.test('reason phrases', async (t) => {
  t.equal(STATUS_TEXT[200], 'OK');
  t.equal(STATUS_TEXT[404], 'Not Found');
  t.equal(STATUS_TEXT[503], 'Service Unavailable');
  for (const [code, { status }] of Object.entries(ERRORS)) {
    t.type(STATUS_TEXT[status], 'string', `${status} (${code}) has a reason phrase`);
  }
  for (const status of [201, 202, 204, 207]) t.type(STATUS_TEXT[status], 'string', `${status} has a reason phrase`);
});
