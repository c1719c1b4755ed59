// This directory's short integration tests, in one process: see test/helpers/shortTests.ts.
import { runTestsHere } from '../helpers/testsHere.js';

await runTestsHere(import.meta.url);
