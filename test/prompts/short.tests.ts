// This directory's short integration tests, in one process: see test/helpers/shortTests.ts.
import { runShortTests } from '../helpers/shortTests.js';

await runShortTests(import.meta.url);
