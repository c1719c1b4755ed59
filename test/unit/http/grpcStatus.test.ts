/**
 * src/http/grpcStatus.ts: the pipeline's HTTP answers as gRPC statuses, and the RetryInfo of a
 * retryable one, read back byte by byte.
 */
import t from 'tap';
import { GRPC, grpcCode, grpcFailure, retryStatus } from '../../../src/http/grpcStatus.js';

t.test('HTTP statuses as gRPC codes', async (t) => {
  const expected: [number, number][] = [
    [200, GRPC.OK],
    [400, GRPC.INVALID_ARGUMENT],
    [401, GRPC.UNAUTHENTICATED],
    [402, GRPC.PERMISSION_DENIED],
    [403, GRPC.PERMISSION_DENIED],
    [413, GRPC.RESOURCE_EXHAUSTED],
    [422, GRPC.INVALID_ARGUMENT],
    [429, GRPC.RESOURCE_EXHAUSTED],
    [431, GRPC.INVALID_ARGUMENT],
    [500, GRPC.INTERNAL],
    [501, GRPC.UNIMPLEMENTED],
    [503, GRPC.UNAVAILABLE],
    [505, GRPC.INTERNAL],
    [302, GRPC.INTERNAL],
  ];
  for (const [status, code] of expected) t.equal(grpcCode(status), code, `${status}`);
});

t.test('a refusal: its code and message as details, a RetryInfo when Retry-After is given', async (t) => {
  const body = JSON.stringify({ error: { code: 'overloaded', message: 'retry later' } });
  const unavailable = grpcFailure(503, body, '2');
  t.equal(unavailable.code, GRPC.UNAVAILABLE);
  t.equal(unavailable.details, 'overloaded: retry later');
  t.same(unavailable.statusDetails, retryStatus(GRPC.UNAVAILABLE, 'overloaded: retry later', 2));
  t.equal(grpcFailure(401, body, undefined).statusDetails, null, 'no Retry-After, no RetryInfo');
  t.equal(grpcFailure(503, body, 'soon').statusDetails, null, 'a Retry-After that is not seconds is not passed on');
  t.equal(grpcFailure(500, 'not json', undefined).details, 'HTTP 500');
  t.equal(grpcFailure(500, '{"error":{"code":1}}', undefined).details, 'HTTP 500', 'not the spec shape');
  t.equal(grpcFailure(500, '{}', undefined).details, 'HTTP 500');
});

t.test('google.rpc.Status with a RetryInfo, byte by byte', async (t) => {
  const type = [...Buffer.from('type.googleapis.com/google.rpc.RetryInfo')];
  // RetryInfo { retry_delay (1) = Duration { seconds (1) = 2 } }
  const retryInfo = [0x0a, 0x02, 0x08, 0x02];
  const any = [0x0a, type.length, ...type, 0x12, retryInfo.length, ...retryInfo];
  t.same(
    [...retryStatus(14, 'no', 2)],
    [0x08, 14, 0x12, 0x02, 0x6e, 0x6f, 0x1a, any.length, ...any],
    'code 14, message "no", one detail',
  );
  const zero = [...retryStatus(8, '', 0)];
  t.same(zero.slice(-2), [0x0a, 0x00], 'a zero delay is an empty Duration');
});
