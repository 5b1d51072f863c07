import { createHash } from 'node:crypto';
import { usageReportingSignature } from '@apollo/utils.usagereporting';
import {
  type ArgumentNode,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLInputType,
  type GraphQLSchema,
  Kind,
  type OperationDefinitionNode,
  type ValueNode,
  TypeInfo,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isScalarType,
  isListType,
  isNonNullType,
  visit,
  visitWithTypeInfo,
} from 'graphql';
import { MAX_SIGNATURE_CHARS } from './usage-store.js';

/**
 * The schema coordinates an operation touches, the way GraphQL Hive collects them: every type,
 * field (`Type.field`), argument (`Type.field.arg`), input field (`Input.field`) and enum value
 * (`Enum.VALUE`) the document names, and, for arguments and input fields, whether a value was
 * given: `Type.field.arg!` / `Input.field!` (input-based detection: removing an argument breaks only
 * callers that give it, making it required only those that do not). What the variables decide is
 * known per request only: the document keeps, for each variable, where its value goes.
 *
 * What is kept of the document is its usage reporting signature, as Apollo's usage reporting makes
 * it (@apollo/utils.usagereporting): every string and number literal emptied, list and object
 * literals emptied, aliases dropped, sorted, whitespace reduced. A client's data in a literal (an
 * e-mail, an id) is never kept, and documents that differ only by literals are one operation. The
 * coordinates the signature still shows are the operation's; those only the literals' contents show
 * (an input object's fields, a list's enum values) are the document's `literalInputs`, counted with
 * each request's inputs, so that what a request touched is what it was before.
 */
export interface DocumentUsage {
  /** sha256 of the signature. */
  hash: string;
  /** The operation's name, cut at MAX_NAME_CHARS. */
  name: string | null;
  type: OperationDefinitionNode['operation'];
  /** The signature: what a check validates against a new schema; empty past MAX_SIGNATURE_CHARS. */
  body: string;
  /** What the signature touches whatever the literals and variables. */
  coordinates: string[];
  /** What this document's literals touch beyond the signature: part of every request's inputs. */
  literalInputs: GivenInputs;
  /** Where each variable's value goes, read per request by `inputCoordinates`. */
  probes: VariableProbe[];
  /**
   * When every variable is of a scalar type (or a list of one), which variables were given decides
   * a request's inputs: they are kept here by that choice (a bit per probe), so that a request
   * reads its variables and nothing more. Null when some variable's value must be walked.
   */
  givenSets: Map<number, GivenInputs> | null;
}

/** The input coordinates one request gave a value to, and the key the collector counts them under. */
export interface GivenInputs {
  /** Sorted, without repeats. */
  coordinates: readonly string[];
  /** `coordinates` joined by spaces. */
  key: string;
}

const NO_INPUTS: GivenInputs = { coordinates: [], key: '' };
/** Probes a choice of given variables is kept for (one bit each). */
const MAX_KEPT_PROBES = 16;
/** Choices of given variables kept per document: a document with many optional variables keeps no more. */
const MAX_GIVEN_SETS = 64;

interface VariableProbe {
  variable: string;
  /** The coordinate that is given a value when the variable's value is not null. */
  given: string;
  type: GraphQLInputType;
  /** The variable has a default: given even when the request leaves it out. */
  hasDefault: boolean;
}

/** A stored operation name is cut here: it names, the signature is what counts. */
const MAX_NAME_CHARS = 256;

/** Computed once per distinct document (the plugin caches it with the parsed operation). */
export function documentUsage(schema: GraphQLSchema, operation: OperationDefinitionNode, fragments: ReadonlyMap<string, FragmentDefinitionNode>): DocumentUsage {
  const document: DocumentNode = { kind: Kind.DOCUMENT, definitions: [operation, ...usedFragments(operation, fragments)] };
  const signature = usageReportingSignature(document, operation.name?.value ?? '');
  const coordinates = new Set<string>();
  const literal = new Set<string>();
  const probes: VariableProbe[] = [];
  const defaults = new Set(operation.variableDefinitions?.filter((v) => v.defaultValue !== undefined).map((v) => v.variable.name.value));
  const typeInfo = new TypeInfo(schema);
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Field() {
        const parent = typeInfo.getParentType();
        const field = typeInfo.getFieldDef();
        if (!parent || !field) return;
        coordinates.add(parent.name);
        coordinates.add(`${parent.name}.${field.name}`);
        coordinates.add(getNamedType(field.type).name);
      },
      Argument(node: ArgumentNode) {
        const parent = typeInfo.getParentType();
        const field = typeInfo.getFieldDef();
        const argument = typeInfo.getArgument();
        if (parent && field && argument) {
          const coordinate = `${parent.name}.${field.name}.${argument.name}`;
          coordinates.add(coordinate);
          walkLiteral(node.value, argument.type, `${coordinate}!`, { coordinates, literal, probes, defaults }, false);
        }
        return false; // the value is walked above, with its input types
      },
      VariableDefinition() {
        const type = typeInfo.getInputType();
        if (type) coordinates.add(getNamedType(type).name);
        return false;
      },
      InlineFragment(node) {
        if (node.typeCondition) coordinates.add(node.typeCondition.name.value);
      },
      FragmentDefinition(node) {
        coordinates.add(node.typeCondition.name.value);
      },
    }),
  );
  const name = operation.name?.value ?? null;
  return {
    hash: createHash('sha256').update(signature).digest('hex'),
    name: name && name.length > MAX_NAME_CHARS ? `${name.slice(0, MAX_NAME_CHARS)}…` : name,
    type: operation.operation,
    body: signature.length > MAX_SIGNATURE_CHARS ? '' : signature,
    coordinates: [...coordinates].sort(),
    literalInputs: givenInputs(new Set([...literal].filter((c) => !coordinates.has(c)))),
    probes,
    givenSets: probes.length <= MAX_KEPT_PROBES && probes.every((probe) => isScalarType(getNamedType(probe.type))) ? new Map() : null,
  };
}

/** The coordinates this request's variables give a value to; usually none, or one of a few sets the document keeps. */
export function inputCoordinates(usage: DocumentUsage, variables: Readonly<Record<string, unknown>>): GivenInputs {
  const { probes, givenSets, literalInputs } = usage;
  if (probes.length === 0) return literalInputs;
  if (!givenSets) return walkedInputs(probes, variables, literalInputs);
  let choice = 0;
  for (let i = 0; i < probes.length; i++) if (isGiven(probes[i]!, variables[probes[i]!.variable])) choice |= 1 << i;
  let inputs = givenSets.get(choice);
  if (!inputs) {
    inputs = givenInputs(new Set([...literalInputs.coordinates, ...probes.filter((_, i) => choice & (1 << i)).map((probe) => probe.given)]));
    if (givenSets.size < MAX_GIVEN_SETS) givenSets.set(choice, inputs);
  }
  return inputs;
}

function walkedInputs(probes: readonly VariableProbe[], variables: Readonly<Record<string, unknown>>, literalInputs: GivenInputs): GivenInputs {
  const found = new Set<string>(literalInputs.coordinates);
  for (const probe of probes) {
    const value = variables[probe.variable];
    if (!isGiven(probe, value)) continue;
    found.add(probe.given);
    if (value !== undefined) walkValue(value, probe.type, found);
  }
  return givenInputs(found);
}

/** A variable's value counts as given unless it is null, or left out without a default. */
function isGiven(probe: VariableProbe, value: unknown): boolean {
  return value !== null && (value !== undefined || probe.hasDefault);
}

function givenInputs(found: ReadonlySet<string>): GivenInputs {
  if (found.size === 0) return NO_INPUTS;
  const coordinates = [...found].sort();
  return { coordinates, key: coordinates.join(' ') };
}

interface LiteralFindings {
  /** What the signature shows too. */
  coordinates: Set<string>;
  /** What only the contents of list and object literals show: the signature empties them. */
  literal: Set<string>;
  probes: VariableProbe[];
  defaults: Set<string>;
}

/**
 * A literal argument or input field value: `given` when it is not null, and the input fields and
 * enum values it names; `inside` a list or object literal, into `literal`.
 */
function walkLiteral(value: ValueNode, type: GraphQLInputType, given: string, found: LiteralFindings, inside: boolean): void {
  if (value.kind === Kind.VARIABLE) {
    const variable = value.name.value;
    found.probes.push({ variable, given, type, hasDefault: found.defaults.has(variable) });
    return;
  }
  if (value.kind === Kind.NULL) return;
  const into = inside ? found.literal : found.coordinates;
  into.add(given);
  const inner = isNonNullType(type) ? type.ofType : type;
  if (isListType(inner)) {
    if (value.kind !== Kind.LIST) return walkLiteral(value, inner.ofType, given, found, inside);
    for (const item of value.values) walkLiteral(item, inner.ofType, given, found, true);
    return;
  }
  into.add(inner.name);
  if (isEnumType(inner) && value.kind === Kind.ENUM) into.add(`${inner.name}.${value.value}`);
  if (isInputObjectType(inner) && value.kind === Kind.OBJECT) {
    const fields = inner.getFields();
    for (const field of value.fields) {
      const definition = fields[field.name.value];
      if (!definition) continue;
      const coordinate = `${inner.name}.${definition.name}`;
      found.literal.add(coordinate);
      walkLiteral(field.value, definition.type, `${coordinate}!`, found, true);
    }
  }
}

/** A variable's JSON value: the input fields it holds (`Input.field`, and `Input.field!` when not null) and its enum values. */
function walkValue(value: unknown, type: GraphQLInputType, found: Set<string>): void {
  const inner = isNonNullType(type) ? type.ofType : type;
  if (isListType(inner)) {
    for (const item of Array.isArray(value) ? value : [value]) if (item !== null && item !== undefined) walkValue(item, inner.ofType, found);
    return;
  }
  if (isEnumType(inner) && typeof value === 'string' && inner.getValue(value)) found.add(`${inner.name}.${value}`);
  if (!isInputObjectType(inner) || typeof value !== 'object' || value === null) return;
  const fields = inner.getFields();
  for (const [name, fieldValue] of Object.entries(value)) {
    const definition = fields[name];
    if (!definition || fieldValue === undefined) continue;
    found.add(`${inner.name}.${name}`);
    if (fieldValue === null) continue;
    found.add(`${inner.name}.${name}!`);
    walkValue(fieldValue, definition.type, found);
  }
}

/** The fragments the operation reaches, in the document's order (a document may hold others). */
function usedFragments(operation: OperationDefinitionNode, fragments: ReadonlyMap<string, FragmentDefinitionNode>): FragmentDefinitionNode[] {
  const used = new Set<string>();
  const pending = [operation as OperationDefinitionNode | FragmentDefinitionNode];
  while (pending.length > 0) {
    visit(pending.pop()!, {
      FragmentSpread(node) {
        const name = node.name.value;
        const fragment = fragments.get(name);
        if (fragment && !used.has(name)) {
          used.add(name);
          pending.push(fragment);
        }
      },
    });
  }
  return [...fragments.values()].filter((f) => used.has(f.name.value));
}
