import { type DocumentNode, type FragmentDefinitionNode, type GraphQLSchema, Kind, type OperationDefinitionNode } from 'graphql';

/** What a limit measures: one operation of a document that has passed validation. */
export interface MeasuredOperation {
  operation: OperationDefinitionNode;
  fragments: ReadonlyMap<string, FragmentDefinitionNode>;
  schema: GraphQLSchema;
  /** The request's variables as sent (list sizes are read from them). */
  variables: Readonly<Record<string, unknown>>;
}

export function fragmentsOf(document: DocumentNode): Map<string, FragmentDefinitionNode> {
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
