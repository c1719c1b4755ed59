/**
 * The plan names a tenant may be given: those of the plans file the server reads (the installation's
 * data/plans.json unless TRACELAKE_PLANS_FILE / --plans-file name another). The server falls back to
 * the default plan for an unknown name, so the CLI refuses one rather than let it pass silently.
 */
import { readFileSync } from 'node:fs';
import { UsageError } from '../core/cliArgs.js';
import { parsePlans } from '../core/plans.js';
import { CliFailure } from './store.js';

const INSTALLED = new URL('../../../data/plans.json', import.meta.url);

export function assertPlan(plan: string, file: string | null): void {
  let names: string[];
  try {
    names = Object.keys(parsePlans(JSON.parse(readFileSync(file ?? INSTALLED, 'utf8'))).plans);
  } catch (e) {
    throw new CliFailure(`Cannot read the plans file ${file ?? INSTALLED.pathname}: ${(e as Error).message}`);
  }
  if (!names.includes(plan))
    throw new UsageError(`--plan: unknown plan "${plan}"; the plans file has ${names.join(', ')}`);
}
