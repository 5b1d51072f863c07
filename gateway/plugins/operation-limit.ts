import type { ApolloServerPlugin } from '@apollo/server';
import { type DocumentNode, type FragmentDefinitionNode, GraphQLError, type GraphQLSchema, Kind, type OperationDefinitionNode } from 'graphql';
import type { ErrorCode } from '../../kernel/errors.js';

/** What a limit measures: one operation of a document that has passed validation. */
export interface Operation {
  operation: OperationDefinitionNode;
  fragments: ReadonlyMap<string, FragmentDefinitionNode>;
  schema: GraphQLSchema;
}

export interface OperationLimit {
  /** The measure in the error message: `depth`, `alias count`, `cost`. */
  what: string;
  code: ErrorCode;
  max: number;
  measure(operation: Operation): number;
}

/**
 * An Apollo Server plugin refusing operations whose measure exceeds the limit, with the limit's own
 * code (400). It runs after validation, so documents are well formed (no fragment cycles, known
 * fields). A plugin rather than a validation rule: Apollo Server rewrites every validation error's
 * code to GRAPHQL_VALIDATION_FAILED.
 */
export function operationLimitPlugin(limit: OperationLimit): ApolloServerPlugin {
  // Apollo Server keeps one parsed document per query text, so each operation is measured once.
  const measured = new WeakMap<OperationDefinitionNode, number>();
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ operation, document, schema }) {
          if (!operation) return;
          let value = measured.get(operation);
          if (value === undefined) {
            value = limit.measure({ operation, fragments: fragmentsOf(document), schema });
            measured.set(operation, value);
          }
          if (value > limit.max) {
            throw new GraphQLError(`operation ${limit.what} ${value} exceeds the limit of ${limit.max}`, {
              extensions: { code: limit.code, details: { limit: limit.max, actual: value }, http: { status: 400 } },
            });
          }
        },
      };
    },
  };
}

function fragmentsOf(document: DocumentNode): Map<string, FragmentDefinitionNode> {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  return fragments;
}

/**
 * A fragment's measure, computed once: a fragment spread several times (or fragments spreading each
 * other twice over) is not walked again, so measuring cannot be made exponential.
 */
export function perFragment(fragments: ReadonlyMap<string, FragmentDefinitionNode>, compute: (fragment: FragmentDefinitionNode) => number): (name: string) => number {
  const values = new Map<string, number>();
  return (name) => {
    let value = values.get(name);
    if (value === undefined) {
      value = compute(fragments.get(name)!);
      values.set(name, value);
    }
    return value;
  };
}
