// This directory's unit tests, in one process: see test/helpers/testsHere.ts.
import { runTestsHere } from '../../helpers/testsHere.js';

await runTestsHere(import.meta.url);
