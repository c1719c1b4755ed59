/** What `scale/load` and `scale/reads` share: the key, the server's settings and the dataset's record. */
import type { DatasetOptions } from '../peers/dataset.js';
import { SERVER_ARGS } from '../peers/tracelake.js';

export { writeScores } from '../peers/scoresSql.js';

export const SCALE_KEY = 'sk_service_' + 'Scale'.repeat(8);

/** As the peers bench runs its server, so that figures at 10M and 100M compare. */
export const SCALE_SERVER_ARGS = SERVER_ARGS;

/** The dataset a kept store holds (`<dir>/dataset.json`). */
export type ScaleDataset = Required<
  Pick<DatasetOptions, 'spans' | 'days' | 'seed' | 'endMs' | 'tracesPerSession' | 'scoresPerTrace'>
>;
