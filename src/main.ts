/**
 * The server's entry point without the CLI in front: `node dist/src/main.js [settings]` is
 * `tracelake serve [settings]` (kept for scripts and tests that start it this way).
 */
import { serve } from './serve.js';

await serve(process.argv.slice(2));
