import {
  type ConstDirectiveNode,
  type DocumentNode,
  type FieldDefinitionNode,
  type GraphQLSchema,
  type TypeDefinitionNode,
  type TypeExtensionNode,
  isTypeDefinitionNode,
  isTypeExtensionNode,
  valueFromASTUntyped,
} from 'graphql';

/** A list field's `@listSize` (kernel/graphql/demand-control.ts): how long the list, or a connection's page, is. */
export interface DeclaredListSize {
  assumedSize?: number;
  slicingArguments: readonly string[];
  sizedFields: ReadonlySet<string>;
}

/** What a field's declarations say of its cost. */
export interface DeclaredFieldCost {
  /** `@cost(weight:)` on the field: its own weight instead of its type's. */
  weight?: number;
  listSize?: DeclaredListSize;
}

/**
 * The demand control directives (`@cost`, `@listSize`) a graph declares, by type and field name.
 * A subgraph's schema carries them on its fields' AST nodes (the subgraph declares them); the
 * gateway's API schema does not (Apollo's API schema drops every directive of a linked feature), so
 * the gateway reads them from the supergraph, where composition keeps them (`declareDemand`).
 */
export class DemandDirectives {
  private constructor(
    private readonly fields: ReadonlyMap<string, DeclaredFieldCost>,
    private readonly types: ReadonlyMap<string, number>,
  ) {}

  private static fromDefinitions(definitions: ReadonlyArray<TypeDefinitionNode | TypeExtensionNode>): DemandDirectives {
    const fields = new Map<string, DeclaredFieldCost>();
    const types = new Map<string, number>();
    for (const definition of definitions) {
      const weight = weightOf(definition.directives);
      if (weight !== undefined) types.set(definition.name.value, weight);
      if (!('fields' in definition) || !definition.fields) continue;
      for (const field of definition.fields as ReadonlyArray<FieldDefinitionNode>) {
        const declared = declaredCost(field);
        if (declared) fields.set(`${definition.name.value}.${field.name.value}`, declared);
      }
    }
    return new DemandDirectives(fields, types);
  }

  /** From SDL (the supergraph). */
  static fromDocument(document: DocumentNode): DemandDirectives {
    return DemandDirectives.fromDefinitions(document.definitions.filter((d) => isTypeDefinitionNode(d) || isTypeExtensionNode(d)));
  }

  /** From a schema's own AST nodes (a subgraph's, or one built from SDL). */
  static fromSchema(schema: GraphQLSchema): DemandDirectives {
    const nodes: Array<TypeDefinitionNode | TypeExtensionNode> = [];
    for (const type of Object.values(schema.getTypeMap())) {
      if (type.name.startsWith('__')) continue;
      if (type.astNode) nodes.push(type.astNode);
      nodes.push(...type.extensionASTNodes);
    }
    return DemandDirectives.fromDefinitions(nodes);
  }

  field(typeName: string, fieldName: string): DeclaredFieldCost | undefined {
    return this.fields.get(`${typeName}.${fieldName}`);
  }

  /** `@cost(weight:)` on a type: what each of its values costs where a field declares no weight. */
  typeWeight(typeName: string): number | undefined {
    return this.types.get(typeName);
  }
}

const declared = new WeakMap<GraphQLSchema, DemandDirectives>();

/** The directives that hold for a schema: those declared for it (`declareDemand`), else its own. */
export function demandDirectivesOf(schema: GraphQLSchema): DemandDirectives {
  let directives = declared.get(schema);
  if (!directives) declared.set(schema, (directives = DemandDirectives.fromSchema(schema)));
  return directives;
}

/** Says which directives hold for a schema that lost them (the gateway's API schema: the supergraph's). */
export function declareDemand(schema: GraphQLSchema, directives: DemandDirectives): void {
  declared.set(schema, directives);
}

function declaredCost(field: FieldDefinitionNode): DeclaredFieldCost | undefined {
  const weight = weightOf(field.directives);
  const listSize = field.directives?.find((d) => d.name.value === 'listSize');
  if (weight === undefined && !listSize) return undefined;
  return { weight, listSize: listSize && listSizeOf(listSize) };
}

function weightOf(directives: readonly ConstDirectiveNode[] | undefined): number | undefined {
  const cost = directives?.find((d) => d.name.value === 'cost');
  const weight = cost && argumentsOf(cost).weight;
  return typeof weight === 'number' ? weight : undefined;
}

function listSizeOf(directive: ConstDirectiveNode): DeclaredListSize {
  const args = argumentsOf(directive);
  const strings = (value: unknown) => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);
  return {
    assumedSize: typeof args.assumedSize === 'number' ? args.assumedSize : undefined,
    slicingArguments: strings(args.slicingArguments),
    sizedFields: new Set(strings(args.sizedFields)),
  };
}

function argumentsOf(directive: ConstDirectiveNode): Record<string, unknown> {
  return Object.fromEntries((directive.arguments ?? []).map((a) => [a.name.value, valueFromASTUntyped(a.value)]));
}
