import type { OperationDefinitionNode } from 'graphql';
import { DomainError, type ErrorCode } from '../kernel/errors.js';
import { operationAliases } from './limits/aliases.js';
import { measuredCost } from './limits/cost.js';
import { operationDepth } from './limits/depth.js';
import type { MeasuredOperation } from './limits/measure.js';
import { operationSelections } from './limits/selections.js';
import type { RequestPlugin } from './pipeline.js';

/** GRAPHQL_MAX_DEPTH, GRAPHQL_MAX_ALIASES, GRAPHQL_MAX_COST, GRAPHQL_MAX_SELECTIONS. */
export interface OperationLimitValues {
  maxDepth: number;
  maxAliases: number;
  maxCost: number;
  maxSelections: number;
}

interface Limit {
  /** The measure in the error message: `depth`, `alias count`, `cost`, `selection count (fragments spread)`. */
  what: string;
  /** The setting that moves the limit, named in the refusal. */
  setting: string;
  code: ErrorCode;
  max: number;
  measure(operation: MeasuredOperation): Measured;
}

interface Measured {
  value: number;
  /** Where most of it lies (the cost's costliest path), named in the refusal. */
  path?: string[];
  /** It took a variable's value (a list's size): measured again for each request, not kept for the operation. */
  readsVariables?: boolean;
}

/**
 * Every operation a client writes (`/graphql`, a subgraph port's direct caller) is measured before
 * it is planned and before any subgraph is called: deeper, more aliased, costlier, or holding more
 * selections once its fragments are spread (what a planner expands) than the limits is refused with the
 * limit's own code (400), a message naming the setting that moves the limit and, for the cost, the
 * costliest path, and `details: {limit, actual}` (`path` too for the cost). Documents have passed
 * validation (no fragment cycles, known fields). Depth, aliases and selections are measured once per
 * operation (documents are cached, so the same node comes back); cost too, unless a list's size comes from
 * a variable: then per request. A REST route runs a fixed document whose sizes its contract bounds (a records
 * filter's `limit` is at most 1,000, refused by the domain with the contract's own 400 otherwise): it
 * is not measured, so that a REST client never meets a GraphQL limit's code.
 */
export function operationLimits(limits: OperationLimitValues): RequestPlugin {
  const checks: Limit[] = [
    { what: 'depth', setting: 'GRAPHQL_MAX_DEPTH', code: 'QUERY_TOO_DEEP', max: limits.maxDepth, measure: (o) => ({ value: operationDepth(o) }) },
    { what: 'alias count', setting: 'GRAPHQL_MAX_ALIASES', code: 'TOO_MANY_ALIASES', max: limits.maxAliases, measure: (o) => ({ value: operationAliases(o) }) },
    { what: 'cost', setting: 'GRAPHQL_MAX_COST', code: 'QUERY_TOO_COMPLEX', max: limits.maxCost, measure: costOf },
    {
      what: 'selection count (fragments spread)',
      setting: 'GRAPHQL_MAX_SELECTIONS',
      code: 'TOO_MANY_SELECTIONS',
      max: limits.maxSelections,
      measure: (o) => ({ value: operationSelections(o) }),
    },
  ];
  const measured = new WeakMap<OperationDefinitionNode, Measured[]>();
  return {
    onOperation(request) {
      if (request.exchange.protocol !== 'graphql') return;
      let known = measured.get(request.operation);
      if (!known) measured.set(request.operation, (known = []));
      checks.forEach((limit, index) => {
        let measure = known[index];
        if (!measure) {
          measure = limit.measure(request);
          if (!measure.readsVariables) known[index] = measure;
        }
        const { value, path } = measure;
        if (value > limit.max) throw refusal(limit, value, path);
      });
    },
  };
}

function costOf(operation: MeasuredOperation): Measured {
  const { cost, path, readsVariables } = measuredCost(operation);
  return { value: cost, path, readsVariables };
}

function refusal(limit: Limit, value: number, path: string[] | undefined): DomainError {
  const where = path ? `; its costliest path is ${path.join('.')}` : '';
  const message = `operation ${limit.what} ${value} exceeds the limit of ${limit.max} (${limit.setting})${where}`;
  return new DomainError(limit.code, message, { limit: limit.max, actual: value, ...(path && { path: path.join('.') }) });
}
