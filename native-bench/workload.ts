/**
 * Realistic OTLP spans for the benchmarks: LLM agent traces of ~8 spans (an agent root, chat calls
 * with GenAI attributes, prompts and completions, tool calls, a retrieval), about 800 bytes each as
 * protobuf. Deterministic for a given seed.
 */
import { encodeExportRequest } from '../test/helpers/otlpProto.js';

const MODELS = ['gpt-4o-mini', 'gpt-4o', 'claude-3-5-sonnet-20241022', 'gemini-1.5-flash'];
const QUESTIONS = [
  'How do I reset my password if I no longer have access to my email account?',
  'Summarise the last three invoices for the customer and flag anything overdue.',
  'What is the refund policy for annual plans cancelled within the first month?',
  'Draft a polite reply declining the meeting but proposing two alternative times.',
];

/** xorshift32: deterministic for a seed, so a dataset is the same on every run. */
export function xorshiftRandom(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
}

function bytes(random: () => number, n: number): Buffer {
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = Math.floor(random() * 256);
  b[0] = b[0]! | 1; // never all zeros
  return b;
}

const kv = (key: string, v: string | number) => ({
  key,
  value: typeof v === 'string' ? { stringValue: v } : { intValue: v },
});

/**
 * One export request of `count` spans (whole traces of 8 spans), in protobufjs object shape. The
 * first trace starts at `startMs` (integer Unix milliseconds; default now), the next ones 8 ms apart.
 */
export function exportBatch(count: number, seed: number, startMs: number = Date.now()) {
  const random = xorshiftRandom(seed);
  const spans = [];
  const start = BigInt(startMs) * 1_000_000n;
  for (let i = 0; i < count; i += 8) {
    const traceId = bytes(random, 16);
    const rootId = bytes(random, 8);
    const session = `session-${Math.floor(random() * 5000)}`;
    const question = QUESTIONS[i % QUESTIONS.length]!;
    for (let j = 0; j < Math.min(8, count - i); j++) {
      const isRoot = j === 0;
      const kind = isRoot ? 'agent' : j % 3 === 1 ? 'llm' : j % 3 === 2 ? 'tool' : 'retrieval';
      const model = MODELS[Math.floor(random() * MODELS.length)]!;
      const t0 = start + BigInt(i * 1000 + j * 100) * 1000n;
      const attributes = [
        kv('session.id', session),
        kv('user.id', `user-${Math.floor(random() * 1000)}`),
        kv('tracelake.metadata.customer', `customer-${j % 7}`),
      ];
      if (kind === 'llm') {
        attributes.push(
          kv('gen_ai.operation.name', 'chat'),
          kv('gen_ai.system', 'openai'),
          kv('gen_ai.request.model', model),
          kv('gen_ai.usage.input_tokens', 200 + Math.floor(random() * 2000)),
          kv('gen_ai.usage.output_tokens', 20 + Math.floor(random() * 400)),
          kv('gen_ai.prompt.0.role', 'user'),
          kv('gen_ai.prompt.0.content', question),
          kv('gen_ai.completion.0.role', 'assistant'),
          kv('gen_ai.prompt.1.role', 'system'),
          kv(
            'gen_ai.prompt.1.content',
            'You are a support assistant for Acme. Answer briefly, cite the help-centre article you used, and never reveal internal notes.',
          ),
          kv(
            'gen_ai.completion.0.content',
            `Here is what I found about "${question.slice(0, 60)}": open Settings, choose Security, then follow the steps in article KB-${1000 + j}.`,
          ),
        );
      } else if (kind === 'tool') {
        attributes.push(
          kv('openinference.span.kind', 'TOOL'),
          kv('tool.name', 'lookup_account'),
          kv('input.value', '{"account_id":"acct_1234567890","fields":["status","plan"]}'),
          kv('output.value', '{"status":"active","plan":"annual"}'),
        );
      } else if (kind === 'retrieval') {
        attributes.push(kv('openinference.span.kind', 'RETRIEVER'), kv('input.value', question));
      } else {
        attributes.push(
          kv('openinference.span.kind', 'AGENT'),
          kv('input.value', question),
          kv('tracelake.run.id', `run-${seed}`),
        );
      }
      spans.push({
        traceId,
        spanId: isRoot ? rootId : bytes(random, 8),
        ...(isRoot ? {} : { parentSpanId: rootId }),
        name: isRoot
          ? 'support-agent'
          : kind === 'llm'
            ? `chat ${model}`
            : kind === 'tool'
              ? 'lookup_account'
              : 'vector-search',
        kind: isRoot ? 2 : 3,
        startTimeUnixNano: String(t0),
        endTimeUnixNano: String(t0 + 50_000_000n),
        attributes,
        status: { code: 1 },
      });
    }
  }
  return {
    resourceSpans: [
      {
        resource: { attributes: [kv('service.name', 'support-bot'), kv('deployment.environment', 'production')] },
        scopeSpans: [{ scope: { name: 'bench', version: '1.0.0' }, spans }],
      },
    ],
  };
}

export function encodedBatch(count: number, seed: number, startMs?: number): Uint8Array {
  return encodeExportRequest(exportBatch(count, seed, startMs));
}
