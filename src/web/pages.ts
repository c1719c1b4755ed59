/**
 * The UI's pages, as data: a path (hash route, `:name` segments become params), the component,
 * and — for the navigation — a title and the `/v1/capabilities` feature that must be on for the
 * page to be offered. Adding an area's page is a component in pages/ and one row here.
 */
import type { FunctionComponent } from 'preact';
import type { Location } from './router.js';
import { AgentsPage } from './pages/agents.js';
import { ComparisonPage } from './pages/comparison.js';
import { ExperimentPage } from './pages/experiment.js';
import { ExperimentsPage } from './pages/experiments.js';
import { MetricsPage } from './pages/metrics.js';
import { PromptPage } from './pages/prompt.js';
import { PromptsPage } from './pages/prompts.js';
import { ScoresPage } from './pages/scores.js';
import { SessionPage } from './pages/session.js';
import { SessionsPage } from './pages/sessions.js';
import { SpansPage } from './pages/spans.js';
import { TraceDetailPage } from './pages/traceDetail.js';
import { TracesPage } from './pages/traces.js';

export interface PageProps {
  loc: Location;
  params: Record<string, string>;
  /** `/v1/capabilities` features of this server. */
  features: Record<string, boolean>;
}

export interface PageDef {
  path: string;
  component: FunctionComponent<PageProps>;
  /** In the navigation, under this title. */
  nav?: string;
  /** Offered only when this capability is on (cloud-only areas, areas not built yet). */
  feature?: string;
}

export const PAGES: PageDef[] = [
  { path: '/traces', component: TracesPage, nav: 'Traces', feature: 'trace_list' },
  { path: '/traces/:traceId', component: TraceDetailPage, feature: 'trace_read' },
  { path: '/spans', component: SpansPage, nav: 'Spans', feature: 'span_list' },
  { path: '/sessions', component: SessionsPage, nav: 'Sessions', feature: 'sessions' },
  { path: '/sessions/:sessionId', component: SessionPage, feature: 'sessions' },
  { path: '/scores', component: ScoresPage, nav: 'Scores', feature: 'scores' },
  { path: '/agents', component: AgentsPage, nav: 'Agents', feature: 'agents_sync' },
  { path: '/prompts', component: PromptsPage, nav: 'Prompts', feature: 'prompts' },
  { path: '/prompts/:name', component: PromptPage, feature: 'prompts' },
  { path: '/experiments', component: ExperimentsPage, nav: 'Experiments', feature: 'experiments' },
  { path: '/experiments/:experimentId', component: ExperimentPage, feature: 'experiments' },
  { path: '/experiments/:experimentId/runs/:runId', component: ComparisonPage, feature: 'experiments' },
  { path: '/metrics', component: MetricsPage, nav: 'Dashboard', feature: 'metrics' },
];
