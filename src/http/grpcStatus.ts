/**
 * The pipeline's HTTP answer to an OTLP/gRPC export, as a gRPC status (docs/decisions.md,
 * "OTLP/gRPC"): what an OTLP/HTTP exporter would retry, a gRPC one retries too. An answer that may
 * be retried carries a `google.rpc.RetryInfo` in `grpc-status-details-bin`, which the OTLP spec
 * makes the signal that RESOURCE_EXHAUSTED is worth retrying.
 */
import { key, LENGTH_DELIMITED, VARINT, varint } from '../ingest/exportResponse.js';

/** The gRPC status codes used here (grpc/doc/statuscodes.md). */
export const GRPC = {
  OK: 0,
  INVALID_ARGUMENT: 3,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
} as const;

export interface GrpcFailure {
  code: number;
  details: string;
  /** `grpc-status-details-bin`: a `google.rpc.Status` with a RetryInfo, when the answer may be retried. */
  statusDetails: Uint8Array | null;
}

/**
 * An HTTP status as a gRPC code. 413 is RESOURCE_EXHAUSTED, what grpc-js itself answers to a message
 * over `maxReceiveMessageLength`, so an oversize export gets one code whichever layer refuses it.
 */
export function grpcCode(status: number): number {
  if (status < 300) return GRPC.OK;
  if (status === 401) return GRPC.UNAUTHENTICATED;
  if (status === 402 || status === 403) return GRPC.PERMISSION_DENIED;
  if (status === 413 || status === 429) return GRPC.RESOURCE_EXHAUSTED;
  if (status >= 400 && status < 500) return GRPC.INVALID_ARGUMENT;
  if (status === 501) return GRPC.UNIMPLEMENTED;
  if (status === 503) return GRPC.UNAVAILABLE;
  return GRPC.INTERNAL;
}

/**
 * A refusal as a gRPC failure: the code, the error's code and message as the details, and a
 * RetryInfo when the answer says when to retry (`Retry-After`, sent with every 429 and 503).
 */
export function grpcFailure(status: number, body: string, retryAfter: string | undefined): GrpcFailure {
  const code = grpcCode(status);
  const details = errorText(body, status);
  const seconds = Number(retryAfter);
  const retryable = retryAfter !== undefined && Number.isSafeInteger(seconds) && seconds >= 0;
  return { code, details, statusDetails: retryable ? retryStatus(code, details, seconds) : null };
}

/** `code: message` of the spec's error body, or the bare status when the body is not one. */
function errorText(body: string, status: number): string {
  try {
    const { error } = JSON.parse(body) as { error?: { code?: unknown; message?: unknown } };
    if (typeof error?.code === 'string' && typeof error.message === 'string') return `${error.code}: ${error.message}`;
  } catch {
    // Not JSON: the status says what there is to say.
  }
  return `HTTP ${status}`;
}

const UTF8 = new TextEncoder();
const RETRY_INFO_TYPE = 'type.googleapis.com/google.rpc.RetryInfo';

/** A length-delimited field. */
function bytesField(field: number, value: Uint8Array): number[] {
  return [key(field, LENGTH_DELIMITED), ...varint(value.length), ...value];
}

/**
 * `google.rpc.Status { code = 1; message = 2; details = 3 (Any) }` whose one detail is
 * `google.rpc.RetryInfo { retry_delay = 1 (google.protobuf.Duration { seconds = 1 }) }`.
 */
export function retryStatus(code: number, message: string, seconds: number): Uint8Array {
  const duration = seconds === 0 ? [] : [key(1, VARINT), ...varint(seconds)];
  const retryInfo = bytesField(1, Uint8Array.from(duration));
  const any = [...bytesField(1, UTF8.encode(RETRY_INFO_TYPE)), ...bytesField(2, Uint8Array.from(retryInfo))];
  return Uint8Array.from([
    key(1, VARINT),
    ...varint(code),
    ...bytesField(2, UTF8.encode(message)),
    ...bytesField(3, Uint8Array.from(any)),
  ]);
}
