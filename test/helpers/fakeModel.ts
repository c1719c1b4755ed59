/**
 * A fake OpenAI-compatible model server on 127.0.0.1 (port 0), for driving real instrumented
 * clients without the network: `POST /v1/chat/completions`, `POST /v1/responses` and
 * `POST /v1/embeddings` answer with fixed text, vectors and token counts, in the shapes the `openai`
 * SDK and `@ai-sdk/openai` parse.
 * Every request is recorded. Only non-streaming calls are served.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the fake answers; tests assert against these, never against literals of their own. */
export const FAKE_ANSWERS = {
  /** The model id the fake reports back: a dated snapshot, as the real API does. */
  model: 'gpt-4o-mini-2024-07-18',
  chat: {
    content: 'The capital of France is Paris.',
    usage: { prompt_tokens: 57, completion_tokens: 23, total_tokens: 80 },
  },
  responses: {
    content: 'Bonjour! Paris is lovely in the spring.',
    usage: { input_tokens: 41, output_tokens: 17, total_tokens: 58 },
  },
  embeddings: {
    /** Embedding models are not dated: the id asked for is the id answered. */
    model: 'text-embedding-3-small',
    /** Every input gets this vector (exact in float32, so base64 round-trips). */
    vector: [0.25, -0.5, 0.125, 1],
    /** Tokens per input. */
    tokensPerInput: 9,
  },
} as const;

export interface RecordedRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  body: unknown;
}

export interface FakeModel {
  /** The base URL to hand an OpenAI client, ending in `/v1`. */
  baseURL: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/** Timestamps are fixed too, so nothing about an answer depends on the clock. */
const CREATED = 1_750_000_000;

function chatCompletion(model: string): unknown {
  const { content, usage } = FAKE_ANSWERS.chat;
  return {
    id: 'chatcmpl-fake-0001',
    object: 'chat.completion',
    created: CREATED,
    model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content, refusal: null, annotations: [] },
        logprobs: null,
        finish_reason: 'stop',
      },
    ],
    usage: {
      ...usage,
      prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
      completion_tokens_details: {
        reasoning_tokens: 0,
        audio_tokens: 0,
        accepted_prediction_tokens: 0,
        rejected_prediction_tokens: 0,
      },
    },
    service_tier: 'default',
    system_fingerprint: 'fp_fake',
  };
}

function response(model: string): unknown {
  const { content, usage } = FAKE_ANSWERS.responses;
  return {
    id: 'resp_fake_0001',
    object: 'response',
    created_at: CREATED,
    status: 'completed',
    error: null,
    incomplete_details: null,
    model,
    output: [
      {
        type: 'message',
        id: 'msg_fake_0001',
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text: content, annotations: [], logprobs: [] }],
      },
    ],
    parallel_tool_calls: true,
    service_tier: 'default',
    usage: {
      ...usage,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens_details: { reasoning_tokens: 0 },
    },
  };
}

function embeddings(body: { input?: unknown; encoding_format?: unknown }): unknown {
  const { model, vector, tokensPerInput } = FAKE_ANSWERS.embeddings;
  const inputs = Array.isArray(body.input) ? body.input : [body.input];
  // The openai SDK asks for base64 (little-endian float32) unless told otherwise and decodes it.
  const embedding =
    body.encoding_format === 'base64' ? Buffer.from(new Float32Array(vector).buffer).toString('base64') : [...vector];
  const tokens = inputs.length * tokensPerInput;
  return {
    object: 'list',
    data: inputs.map((_, index) => ({ object: 'embedding', index, embedding })),
    model,
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  };
}

interface Route {
  /** Whether the fake serves the model asked for. */
  serves(model: string): boolean;
  answer(body: Record<string, unknown>): unknown;
}

const servesChatModel = (model: string): boolean => FAKE_ANSWERS.model.startsWith(model);

const ROUTES: Record<string, Route> = {
  '/v1/chat/completions': { serves: servesChatModel, answer: () => chatCompletion(FAKE_ANSWERS.model) },
  '/v1/responses': { serves: servesChatModel, answer: () => response(FAKE_ANSWERS.model) },
  '/v1/embeddings': { serves: (model) => model === FAKE_ANSWERS.embeddings.model, answer: embeddings },
};

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

const failure = (message: string) => ({ error: { message, type: 'invalid_request_error', param: null, code: null } });

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Starts the fake; it is closed when the test ends. */
export async function fakeModelFor(t: { teardown(fn: () => unknown): void }): Promise<FakeModel> {
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    void (async () => {
      const path = (req.url ?? '').split('?')[0]!;
      const text = await readBody(req);
      let body: unknown;
      try {
        body = text === '' ? undefined : JSON.parse(text);
      } catch {
        body = text;
      }
      requests.push({ method: req.method ?? '', path, authorization: req.headers.authorization, body });
      const route = ROUTES[path];
      if (req.method !== 'POST' || !route) return send(res, 404, failure(`no route ${req.method} ${path}`));
      if (typeof body !== 'object' || body === null) return send(res, 400, failure('body must be a JSON object'));
      const { model, stream } = body as { model?: unknown; stream?: unknown };
      if (stream === true) return send(res, 400, failure('the fake does not stream'));
      if (typeof model !== 'string' || !route.serves(model))
        return send(res, 404, failure(`unknown model ${String(model)}`));
      send(res, 200, route.answer(body as Record<string, unknown>));
    })().catch((err: unknown) => send(res, 500, failure(String(err))));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  let closed: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closed ??= new Promise<void>((resolve) => {
      server.close(() => resolve());
      // Clients keep connections alive; close() alone would wait for them.
      server.closeAllConnections();
    });
    return closed;
  };
  t.teardown(close);
  return { baseURL: `http://127.0.0.1:${port}/v1`, requests, close };
}
