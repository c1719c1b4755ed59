/** The reference's sections, in the order it lists them (by subject); a route's note names one. */
export const TAGS = [
  'Health and system',
  'Reference',
  'Web UI',
  'Authentication',
  'Local development',
  'Ingestion',
  'Traces',
  'Spans',
  'Sessions',
  'Blobs',
  'Scores',
  'Score configs',
  'Comments',
  'API keys',
  'Apps',
  'Environments',
  'Coding-agent sessions',
  'Evaluations',
  'Experiments',
  'Git',
  'Prompts and templates',
  'Metrics',
  'Workers',
  'Operator',
] as const;

export type Tag = (typeof TAGS)[number];
