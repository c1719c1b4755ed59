/**
 * The web UI (src/web, built into dist/web at install): `GET /` is its page and `GET /ui/:file` its
 * assets, unauthenticated like any static file — the page signs in with an API key or session
 * token the user types, kept in the browser's session storage, and calls /v1 like any client. The
 * files are read once and served from memory; nothing is fetched from elsewhere (the page's
 * Content-Security-Policy allows this origin only).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { validateAssetQuery } from '../../contract/ui.js';
import { ApiError } from '../../core/errors.js';
import { bytes } from '../reply.js';
import { route } from '../route.js';

const WEB_DIR = new URL('../../../web/', import.meta.url);

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.txt': 'text/plain; charset=utf-8',
};

/** Scripts from this origin only; images also as data: URLs (media in span outputs). */
const PAGE_HEADERS = {
  'Content-Security-Policy':
    "default-src 'self'; img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  // The assets are versioned with the server (`?v=` in the page); revalidation is cheap and safe.
  'Cache-Control': 'no-cache',
};

let files: Map<string, Buffer> | null = null;

function webFiles(): Map<string, Buffer> {
  if (files) return files;
  try {
    files = new Map(
      readdirSync(WEB_DIR)
        .filter((f) => TYPES[extname(f)])
        .map((f) => [f, readFileSync(new URL(f, WEB_DIR))]),
    );
  } catch {
    files = new Map();
  }
  return files;
}

function serve(name: string) {
  const body = webFiles().get(name);
  if (!body) {
    if (name === 'index.html')
      throw new ApiError(
        'not_found',
        'The web UI is not built: run npm install (or npm run build) in the Tracelake directory',
      );
    throw new ApiError('not_found', `No UI file ${name}`);
  }
  return bytes(body, TYPES[extname(name)]!, 200, PAGE_HEADERS);
}

export const uiRoutes = [
  route({
    method: 'GET',
    path: '/',
    permission: 'none',
    note: {
      tag: 'Web UI',
      summary: 'The web UI',
      description:
        'The page of the web UI (traces, sessions, scores, metrics, evals, prompts), a static file for a browser. It signs in with an API key or session token the user types and calls this API like any client. Built at `npm install`; its Content-Security-Policy allows this origin only.',
      answers: [{ status: 200, description: 'The page.', media: { 'text/html': "The UI's HTML page." } }],
      errors: [{ status: 404, when: '`not_found`: the web UI is not built (run `npm install` or `npm run build`).' }],
    },
    handler: () => serve('index.html'),
  }),
  route({
    method: 'GET',
    path: '/ui/:file',
    permission: 'none',
    validate: { query: validateAssetQuery },
    note: {
      tag: 'Web UI',
      summary: 'A file of the web UI',
      description:
        "The script, stylesheet and images the page loads. `?v=` versions a file's URL (a cache key; its value is not checked).",
      query: 'AssetQuery',
      answers: [
        {
          status: 200,
          description: 'The file, by its extension.',
          media: {
            'text/javascript': '`.js`',
            'text/css': '`.css`',
            'image/svg+xml': '`.svg`',
            'text/html': '`.html`',
            'text/plain': '`.txt`',
          },
        },
      ],
      errors: [{ status: 404, when: '`not_found`: no such file.' }],
    },
    handler: ({ params }) => serve(params.file),
  }),
];
