import { readFileSync } from 'node:fs';
import { projectPath } from '../../kernel/project.js';

interface Target {
  expr: string;
  legendFormat?: string;
}

interface Variable {
  name: string;
  type: string;
  query?: { query: string };
  multi?: boolean;
  includeAll?: boolean;
}

/** The shipped Grafana dashboard (docs/grafana/dashboard.json), as Grafana reads it. */
export const DASHBOARD = JSON.parse(readFileSync(projectPath('docs', 'grafana', 'dashboard.json'), 'utf8')) as {
  templating: { list: Variable[] };
  panels: Array<{ title: string; targets: Target[] }>;
};

/** Every metric a PromQL expression reads, each with its selector (`{…}`, or '' when it has none). */
export function metricSelectors(expr: string): Array<{ metric: string; selector: string }> {
  // Identifiers with an underscore that are not a function called.
  return [...expr.matchAll(/\b([a-z][a-z0-9]*_[a-z0-9_]+)\b(?!\s*\()(\{[^}]*\})?/g)].map((match) => ({ metric: match[1]!, selector: match[2] ?? '' }));
}

/** The metric names the dashboard's panels read, sorted. */
export function dashboardMetricNames(): string[] {
  return [...new Set(DASHBOARD.panels.flatMap((panel) => panel.targets.flatMap((target) => metricSelectors(target.expr).map(({ metric }) => metric))))].sort();
}
