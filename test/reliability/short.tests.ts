// This folder's integration tests but its `.alone` ones, in one process: see test/helpers/testsHere.ts.
import { runTestsHere } from '../helpers/testsHere.js';

await runTestsHere(import.meta.url);
