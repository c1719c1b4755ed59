import t from 'tap';
import {
  ApiError,
  ERRORS,
  fromErrorData,
  isErrorData,
  isStorageFailure,
  overloaded,
  rateLimited,
  RETRY_AFTER_SECONDS,
  storageUnavailable,
  toErrorData,
  validationError,
  type ErrorCode,
} from '../../src/core/errors.js';

t.test('the error table', async (t) => {
  const codes = Object.keys(ERRORS) as ErrorCode[];
  t.equal(new Set(codes).size, codes.length, 'codes are unique');
  for (const code of codes) {
    const { status, message } = ERRORS[code];
    t.ok(status >= 400 && status <= 599, `${code} has an error status`);
    t.ok(message.length > 0, `${code} has a message`);
    t.match(code, /^[a-z_]+$/, `${code} is snake_case`);
  }
  // The architecture §7 codes and the spec's named codes, with their statuses.
  const expected: Record<string, number> = {
    invalid_query_parameters: 400,
    invalid_path_parameters: 400,
    invalid_request_body: 400,
    invalid_filter: 400,
    invalid_time_window: 400,
    unauthorized: 401,
    entitlement_required: 402,
    forbidden: 403,
    not_found: 404,
    duplicate_app_name: 409,
    git_connection_missing: 409,
    environment_busy: 409,
    payload_too_large: 413,
    rate_limited: 429,
    span_limit_exceeded: 429,
    storage_cap_exceeded: 429,
    internal_error: 500,
    not_available_locally: 501,
    not_available_on_cloud: 501,
    overloaded: 503,
  };
  for (const [code, status] of Object.entries(expected)) t.equal(ERRORS[code as ErrorCode].status, status, code);
});

t.test('ApiError bodies follow the spec: {error: {code, message, ...flat fields}}', async (t) => {
  const e = new ApiError(
    'span_limit_exceeded',
    undefined,
    { currentCount: 10, limit: 5, upgradeUrl: 'https://example.invalid' },
    { 'Retry-After': '30' },
  );
  t.equal(e.status, 429);
  t.equal(e.message, ERRORS.span_limit_exceeded.message, 'default message');
  t.same(e.toBody(), {
    error: {
      code: 'span_limit_exceeded',
      message: 'Monthly span quota exceeded',
      currentCount: 10,
      limit: 5,
      upgradeUrl: 'https://example.invalid',
    },
  });
  t.same(e.headers, { 'Retry-After': '30' });
  t.equal(new ApiError('not_found', 'No such trace').message, 'No such trace');
  t.ok(new ApiError('forbidden') instanceof Error);
});

t.test('validation errors name the part and carry details', async (t) => {
  for (const [part, code, message] of [
    ['body', 'invalid_request_body', 'Invalid request body'],
    ['query', 'invalid_query_parameters', 'Invalid query parameters'],
    ['path', 'invalid_path_parameters', 'Invalid path parameters'],
    ['headers', 'invalid_request_headers', 'Invalid request headers'],
  ] as const) {
    const e = validationError(part, { limit: 'expected integer' });
    t.equal(e.code, code);
    t.equal(e.status, 400);
    t.same(e.toBody(), { error: { code, message, details: { limit: 'expected integer' } } });
  }
});

t.test('errors survive the trip across the worker boundary', async (t) => {
  const e = new ApiError('overloaded', 'busy', { retry_after_seconds: 1 }, { 'Retry-After': '1' });
  const data = structuredClone(toErrorData(e));
  t.ok(isErrorData(data));
  const back = fromErrorData(data);
  t.ok(back instanceof ApiError);
  t.same(back.toBody(), e.toBody());
  t.same(back.headers, e.headers);
  t.equal(back.status, 503);
  t.notOk(isErrorData({ code: 'no_such_code', message: 'x' }));
  t.notOk(isErrorData(null));
  t.notOk(isErrorData('internal_error'));
});

t.test('storage refusals are told from other failures by their message, and answer 503 with Retry-After', async (t) => {
  for (const message of [
    'ENOSPC: no space left on device, write',
    'IO Error: Could not write file "x": No space left on device',
    'EFBIG: file too large',
    'EROFS: read-only file system, open',
    'Disk quota exceeded',
    'EIO: i/o error',
  ]) {
    t.ok(isStorageFailure(new Error(message)), message);
  }
  t.notOk(isStorageFailure(new Error('Catalog Error: Table with name spans does not exist')), 'another error');
  t.notOk(isStorageFailure('ENOSPC'), 'only errors');
  const e = storageUnavailable();
  t.equal(e.status, 503);
  t.equal(e.code, 'storage_unavailable');
  t.same(e.headers, { 'Retry-After': String(e.fields.retry_after_seconds) });
  t.ok(Number(e.fields.retry_after_seconds) > 0);
});

t.test('overloaded: 503 with Retry-After, its own message or the standard one', async (t) => {
  const e = overloaded('Too many request bytes in flight; retry later');
  t.equal(e.status, 503);
  t.equal(e.code, 'overloaded');
  t.equal(e.message, 'Too many request bytes in flight; retry later');
  t.same(e.fields, { retry_after_seconds: RETRY_AFTER_SECONDS });
  t.same(e.headers, { 'Retry-After': String(RETRY_AFTER_SECONDS) });
  t.equal(overloaded().message, ERRORS.overloaded.message);
});

t.test('rateLimited: 429 with Retry-After, saying when', async (t) => {
  const e = rateLimited(3);
  t.equal(e.status, 429);
  t.equal(e.code, 'rate_limited');
  t.match(e.message, /retry in 3 s/);
  t.same(e.fields, { retry_after_seconds: 3 });
  t.same(e.headers, { 'Retry-After': '3' });
});
