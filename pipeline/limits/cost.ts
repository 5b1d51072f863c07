import {
  type FieldNode,
  type GraphQLCompositeType,
  type GraphQLOutputType,
  Kind,
  type SelectionSetNode,
  type ValueNode,
  getNamedType,
  isCompositeType,
  isListType,
  isWrappingType,
  valueFromASTUntyped,
} from 'graphql';
import type { MeasuredOperation } from './measure.js';
import { type DeclaredListSize, demandDirectivesOf } from './demand-directives.js';

/** How many items a list field is assumed to hold when no `@listSize` says (Apollo demand control's default estimate). */
export const ESTIMATED_LIST_SIZE = 10;

/**
 * What one representation of federation's `_entities` costs besides its selection, priced by the
 * work it causes: a Record is read from the store with its payload (batched, a thousand ids a
 * statement: subgraphs/models/graphql/record-references.ts), then completed like any object. At 20,
 * the largest batch the default GRAPHQL_MAX_COST (50,000) accepts is 2,500 representations, which the
 * models subgraph answers in 0.3 to 0.6 s on a 2-core machine at load 10 (bench `graphql.entities`);
 * at 10, 5,000 took 0.55 to 1.2 s there once batched, and 3 to 15 s before.
 */
export const ENTITY_LOOKUP_WEIGHT = 20;

/**
 * Root lists as long as the list of keys an argument gives: federation's `_entities` (its
 * representations) and Relay's `nodes(ids:)` (its ids). The IBM directives cannot say so
 * (`@listSize` slices by integers only), and both are exactly as long as the keys sent.
 */
const KEYED_LISTS = new Map([
  ['_entities', 'representations'],
  ['nodes', 'ids'],
]);

/** An operation's cost, and the path (response keys) where most of it lies. */
export interface OperationCost {
  cost: number;
  /** From the root, each step the costliest selection of the one before, down to the last that costs anything. */
  path: string[];
}

/** A connection's page: its size and the fields it sizes (`@listSize(sizedFields:)`). */
interface Page {
  size: number;
  fields: ReadonlySet<string>;
}

const NOTHING: OperationCost = { cost: 0, path: [] };

/**
 * Static cost of an operation, as Apollo Router's and Hive Gateway's demand control compute it from
 * the IBM cost directives (`@cost`, `@listSize`) the subgraphs declare (kernel/graphql/demand-control.ts):
 * a field of an object, interface or union type costs 1 plus its selection, a scalar or enum 0, unless
 * `@cost(weight:)` on the field (or on its type) says otherwise; a list field costs its item's cost times
 * its size. The size is the largest `slicingArguments` value the request gives (a literal, a variable, or
 * the variable's default), else the declared `assumedSize`, else ESTIMATED_LIST_SIZE; deeper list levels
 * count ESTIMATED_LIST_SIZE each. A field with `sizedFields` (a connection) is one object whose size
 * applies to those fields of its selection (`edges`, `nodes`, directly or through fragments); its other
 * fields (`pageInfo`, `totalCount`) are not multiplied. Federation's `_entities` (a subgraph port) is as
 * long as its `representations`, each ENTITY_LOOKUP_WEIGHT plus its selection; `nodes(ids:)` as long as
 * its `ids`, each what `node(id:)` costs. Meta-fields (`__typename`,
 * introspection) cost nothing: the gateway answers them without a subgraph.
 */
export function operationCost(operation: MeasuredOperation): OperationCost {
  const { cost, path } = measuredCost(operation);
  return { cost, path };
}

/**
 * `operationCost`, and whether a size it took came from a variable: when none did, the cost is the
 * operation's alone, the same for every request of it (pipeline/operation-limits.ts measures it once).
 */
export function measuredCost({ operation, fragments, schema, variables }: MeasuredOperation): OperationCost & { readsVariables: boolean } {
  const declared = demandDirectivesOf(schema);
  const defaults = new Map((operation.variableDefinitions ?? []).flatMap((d) => (d.defaultValue ? [[d.variable.name.value, valueFromASTUntyped(d.defaultValue)] as const] : [])));
  let readsVariables = false;
  const valueOf = (node: ValueNode): unknown => {
    if (node.kind !== Kind.VARIABLE) return valueFromASTUntyped(node);
    readsVariables = true;
    return Object.hasOwn(variables, node.name.value) ? variables[node.name.value] : defaults.get(node.name.value);
  };
  const typeNamed = (name: string) => schema.getType(name) as GraphQLCompositeType;

  // A fragment is walked once per page it is spread under, so that fragments spreading each other
  // twice over cannot make measuring exponential.
  const fragmentMeasures = new Map<string, OperationCost>();
  function fragmentMeasure(name: string, page: Page | undefined): OperationCost {
    const key = page ? `${name}\u0000${page.size}\u0000${[...page.fields].join(',')}` : name;
    let measure = fragmentMeasures.get(key);
    if (!measure) {
      const fragment = fragments.get(name)!;
      fragmentMeasures.set(key, (measure = selectionMeasure(fragment.selectionSet, typeNamed(fragment.typeCondition.name.value), page)));
    }
    return measure;
  }
  /** `page`: the page of the connection this is the selection of (undefined anywhere else). */
  function selectionMeasure(set: SelectionSetNode, parent: GraphQLCompositeType, page: Page | undefined): OperationCost {
    let cost = 0;
    let costliest: OperationCost = NOTHING;
    for (const selection of set.selections) {
      const measure =
        selection.kind === Kind.FIELD
          ? fieldMeasure(selection, parent, page)
          : selection.kind === Kind.INLINE_FRAGMENT
            ? selectionMeasure(selection.selectionSet, selection.typeCondition ? typeNamed(selection.typeCondition.name.value) : parent, page)
            : fragmentMeasure(selection.name.value, page);
      cost += measure.cost;
      if (measure.cost > costliest.cost) costliest = measure;
    }
    return { cost, path: costliest.path };
  }
  function fieldMeasure(field: FieldNode, parent: GraphQLCompositeType, page: Page | undefined): OperationCost {
    const definition = 'getFields' in parent ? parent.getFields()[field.name.value] : undefined;
    if (!definition) return NOTHING;
    const type = getNamedType(definition.type);
    const own = declared.field(parent.name, field.name.value);
    const root = parent === schema.getQueryType();
    const keys = root ? KEYED_LISTS.get(field.name.value) : undefined;
    const entities = root && field.name.value === '_entities';
    const size = page?.fields.has(field.name.value) ? page.size : keys ? keyCount(field, keys) : sizeOf(field, own?.listSize);
    const weight = entities ? ENTITY_LOOKUP_WEIGHT : (own?.weight ?? declared.typeWeight(type.name) ?? (isCompositeType(type) ? 1 : 0));
    const inner = isCompositeType(type) && field.selectionSet ? selectionMeasure(field.selectionSet, type, pageOf(own?.listSize, size)) : NOTHING;
    const cost = (weight + inner.cost) * listFactor(definition.type, size);
    return { cost, path: cost > 0 ? [field.alias?.value ?? field.name.value, ...inner.path] : [] };
  }
  /** The largest slicing argument given, else the declared assumed size, else ESTIMATED_LIST_SIZE. */
  function sizeOf(field: FieldNode, listSize: DeclaredListSize | undefined): number {
    const given = (field.arguments ?? []).filter((a) => listSize?.slicingArguments.includes(a.name.value)).map((a) => valueOf(a.value));
    const sizes = given.filter((v): v is number => typeof v === 'number' && Number.isFinite(v)).map((v) => Math.max(0, Math.ceil(v)));
    return sizes.length > 0 ? Math.max(...sizes) : (listSize?.assumedSize ?? ESTIMATED_LIST_SIZE);
  }
  /** How many keys the argument gives; one that is not a list is one key (a list input takes a single value as a list of one). */
  function keyCount(field: FieldNode, name: string): number {
    const argument = field.arguments?.find((a) => a.name.value === name);
    const value = argument && valueOf(argument.value);
    return Array.isArray(value) ? value.length : 1;
  }
  return { ...selectionMeasure(operation.selectionSet, schema.getRootType(operation.operation)!, undefined), readsVariables };
}

/** The page a connection's `sizedFields` hold, when it declares any. */
function pageOf(listSize: DeclaredListSize | undefined, size: number): Page | undefined {
  return listSize && listSize.sizedFields.size > 0 ? { size, fields: listSize.sizedFields } : undefined;
}

/** The first list level counts `size` items, every deeper one ESTIMATED_LIST_SIZE. */
function listFactor(type: GraphQLOutputType, size: number): number {
  let factor = 1;
  let levels = 0;
  for (let t: GraphQLOutputType = type; isWrappingType(t); t = t.ofType) if (isListType(t)) factor *= levels++ === 0 ? size : ESTIMATED_LIST_SIZE;
  return factor;
}
