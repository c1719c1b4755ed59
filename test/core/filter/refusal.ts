/** Asserts that `run` throws an `invalid_filter` ApiError whose message matches `pattern`. */
import type { Test } from 'tap';
import { ApiError } from '../../../src/core/errors.js';

export function refuses(t: Test, run: () => unknown, pattern: RegExp): void {
  try {
    run();
  } catch (e) {
    t.ok(e instanceof ApiError, 'an ApiError');
    t.equal((e as ApiError).code, 'invalid_filter');
    t.match((e as ApiError).message, pattern);
    return;
  }
  t.fail(`expected a refusal matching ${pattern}`);
}
