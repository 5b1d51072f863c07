/**
 * Demand control's directives, as Apollo Router and Hive Gateway read them: the IBM cost directive
 * specification's `@cost(weight:)` and `@listSize(…)`, imported through federation's own link (2.9 and
 * later), which composition keeps in the supergraph (`@link(url: "https://specs.apollo.dev/cost/v0.1")`).
 * The subgraphs declare them where the data is (type-graphql's `@Directive`); the operation limits
 * read them back (pipeline/limits/cost.ts).
 */
export const DEMAND_CONTROL_IMPORTS = ['@cost', '@listSize'] as const;

/** What a value costs instead of its type's default (0 for a scalar, 1 for an object). */
export function cost(weight: number): string {
  return `@cost(weight: ${weight})`;
}

export interface ListSize {
  /** Its size when no slicing argument gives one. */
  assumedSize?: number;
  /** The arguments that give its size (`first`, `last`): the first one given wins. */
  slicingArguments?: readonly string[];
  /** For a connection: its fields that are as long as the page (`edges`, `nodes`). */
  sizedFields?: readonly string[];
  /** false: a slicing argument may be left out (then assumedSize). */
  requireOneSlicingArgument?: boolean;
}

export function listSize(size: ListSize): string {
  const strings = (values: readonly string[]) => `[${values.map((v) => JSON.stringify(v)).join(', ')}]`;
  const parts = [
    size.assumedSize !== undefined && `assumedSize: ${size.assumedSize}`,
    size.slicingArguments && `slicingArguments: ${strings(size.slicingArguments)}`,
    size.sizedFields && `sizedFields: ${strings(size.sizedFields)}`,
    size.requireOneSlicingArgument !== undefined && `requireOneSlicingArgument: ${size.requireOneSlicingArgument}`,
  ].filter(Boolean);
  return `@listSize(${parts.join(', ')})`;
}

/**
 * What a free-form JSON value costs (a record's payload, a report, an impact object): it is a whole
 * document of the caller's or a model's making, not a bounded scalar. Declared as the 30 JSON objects an
 * assessment of the published 0.0.4 model holds (28, 2 KB): a page of 1,000 payloads (31,001) runs
 * under the default GRAPHQL_MAX_COST, two of them in one request do not.
 */
export const FREE_FORM_JSON_WEIGHT = 30;
