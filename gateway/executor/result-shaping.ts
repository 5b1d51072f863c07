import type { Field, FragmentElement, Operation, SelectionSet } from '@apollo/federation-internals';
import { Variable } from '@apollo/federation-internals';
import {
  type GraphQLCompositeType,
  GraphQLError,
  type GraphQLNamedType,
  type GraphQLOutputType,
  type GraphQLSchema,
  type OperationTypeNode,
  isCompositeType,
  isEnumType,
  isListType,
  isNonNullType,
  isObjectType,
  isAbstractType,
  isScalarType,
  isSpecifiedScalarType,
  GraphQLString,
} from 'graphql';
import { RawJson } from '../../kernel/raw-json.js';

/**
 * The client's answer from the data the plan's fetches gathered, as @apollo/gateway's
 * `computeResponse` (resultShaping.js) makes it: the operation's selections in order, `@skip` and
 * `@include`, aliases, fragments by `__typename`, fields the plan added (keys, `__typename`) left
 * out, nulls bubbling up to the nearest nullable parent, leaves checked against their type. Errors
 * found here are the same INVALID_GRAPHQL errors, with the same messages and paths.
 *
 * The gateway walks federation-internals' model of the operation on every request, through its
 * re-export getters (about a third of an in-process request's CPU for a large answer,
 * bench/PROFILE.md). Here that same model (selections merged by response name and by fragment
 * type condition, as the gateway sees them) is compiled once into plain objects over graphql-js
 * types, and shaping is one walk of the data.
 */
export interface ResultShape {
  /** Whether every variable `@skip`/`@include` read is a boolean (the gateway fails the request otherwise). */
  acceptsVariables(provided: Record<string, unknown>): boolean;
  shape(input: Record<string, unknown>, variables: Record<string, unknown>): { data: Record<string, unknown> | null; errors: GraphQLError[] };
  /**
   * The fields of the objects the response names `path` leads to (a flatten path's fields, in the
   * gathered data's names) that may stay as the subgraph's text (passthrough.ts), by their name in
   * the gathered data; null when none may. A field qualifies when the operation selects it once
   * there (whatever fragments it is in), plainly (`PLAIN`: no alias renamed, no `__typename`, no
   * `@skip`/`@include`, down to its leaves), with fields under it; and each field of `path` is
   * selected once, unconditionally.
   */
  rawFieldsAt(path: readonly string[]): ReadonlyMap<string, RawField> | null;
}

/** A field whose value may stay as the subgraph's text: what passthrough.ts checks that text against. */
export interface RawField {
  shape: ValueShape;
  selections: Selection[];
}

type Condition = (variables: Record<string, unknown>) => boolean;

export interface FieldSelection {
  kind: 'field';
  /** Its name in the client's answer. */
  responseName: string;
  /** `"responseName":`, as JSON.stringify writes the member's start. */
  jsonKey: string;
  /** Its name in the gathered data: the response name of the planned document (client-aliases.ts). */
  inputName: string;
  isTypename: boolean;
  value: ValueShape;
  selections: Selection[] | null;
  included: Condition | null;
}

/** A field's type, unwrapped once at compile time; a leaf carries its value test, and what kind of leaf it is. */
export type ValueShape =
  | { kind: 'nonNull'; type: GraphQLOutputType; of: ValueShape }
  | { kind: 'list'; type: GraphQLOutputType; of: ValueShape }
  | { kind: 'composite'; type: GraphQLCompositeType }
  | { kind: 'leaf'; type: GraphQLOutputType; valid: ((value: unknown) => boolean) | null; leaf: LeafKind };

/** A leaf's type as `leafTest` tells them apart: an enum, a built-in scalar by name, or a custom scalar (anything goes). */
export type LeafKind = 'enum' | 'Boolean' | 'Int' | 'ID' | 'Float' | 'String' | 'custom';

interface FragmentSelection {
  kind: 'fragment';
  typeCondition: GraphQLCompositeType | null;
  selections: Selection[];
  included: Condition | null;
}

export type Selection = FieldSelection | FragmentSelection;

/**
 * `operation` is federation-internals' model of the operation planned, as @apollo/gateway's
 * `executeQueryPlan` builds it (`operationFromDocument` over the API schema); `clientName`, the
 * client's response name of each of its response names (which differ where the client's aliases
 * were renamed for the planner: client-aliases.ts). Null when it selects something this shaping
 * leaves to the gateway (introspection).
 */
export function compileResultShape(schema: GraphQLSchema, operation: Operation, clientName: (name: string) => string = (name) => name): ResultShape | null {
  const rootType = schema.getRootType(operation.rootKind as OperationTypeNode);
  if (!rootType) return null;
  const conditionVariables = new Set<string>();
  const defaults = operation.collectDefaultedVariableValues();
  let selections: Selection[];
  try {
    selections = compileSelectionSet(schema, operation.selectionSet, conditionVariables, clientName);
  } catch (error) {
    if (error === UNSUPPORTED) return null;
    throw error;
  }
  const withDefaults = (provided: Record<string, unknown>) => (conditionVariables.size === 0 ? provided : { ...defaults, ...provided });
  return {
    rawFieldsAt: (path) => rawFieldsAt(selections, path),
    acceptsVariables: (provided) => {
      const variables = withDefaults(provided);
      return [...conditionVariables].every((name) => typeof variables[name] === 'boolean');
    },
    shape(input, provided) {
      const run: ShapingRun = { schema, variables: withDefaults(provided), errors: [], path: [], flags: 0 };
      const data: Record<string, unknown> = {};
      const bubbled = applySelections(run, input, selections, data, rootType);
      return { data: bubbled ? null : data, errors: run.errors };
    },
  };
}

const UNSUPPORTED = Symbol('unsupported selection');

function compileSelectionSet(schema: GraphQLSchema, selectionSet: SelectionSet, conditionVariables: Set<string>, clientName: (name: string) => string): Selection[] {
  const parentType = schema.getType(selectionSet.parentType.name);
  if (!parentType || !isCompositeType(parentType)) throw UNSUPPORTED;
  const selections = selectionSet.selections().map((selection): Selection => {
    const included = compileCondition(selection.element, conditionVariables);
    if (selection.kind === 'FieldSelection') return compileField(schema, selection.element, selection.selectionSet, parentType, conditionVariables, included, clientName);
    const typeName = selection.element.typeCondition?.name;
    const typeCondition = typeName === undefined ? null : schema.getType(typeName);
    if (typeCondition !== null && !isCompositeType(typeCondition)) throw UNSUPPORTED;
    return { kind: 'fragment', typeCondition, selections: compileSelectionSet(schema, selection.selectionSet, conditionVariables, clientName), included };
  });
  if (selections.every(isPlainField)) PLAIN.add(selections);
  return selections;
}

/**
 * Selection sets of fields only (no fragment, `__typename`, condition or renamed alias), whose own
 * fields' selection sets are plain too: data that has exactly their fields, in order, with valid
 * values, is already its own answer (`adoptable`).
 */
const PLAIN = new WeakSet<Selection[]>();

/** Whether `selections` is a plain selection set (`PLAIN`). */
export function isPlain(selections: Selection[]): boolean {
  return PLAIN.has(selections);
}

function rawFieldsAt(root: Selection[], path: readonly string[]): ReadonlyMap<string, RawField> | null {
  let selections: Selection[] | null = root;
  for (const name of path) {
    const named: FieldSelection[] = fieldsOf(selections).filter((field) => field.inputName === name);
    if (named.length !== 1 || named[0]!.included || named[0]!.isTypename) return null;
    selections = named[0]!.selections;
    if (!selections) return null;
  }
  const byName = new Map<string, FieldSelection[]>();
  for (const field of fieldsOf(selections)) byName.set(field.inputName, [...(byName.get(field.inputName) ?? []), field]);
  const raw = new Map<string, RawField>();
  for (const [name, [field, ...others]] of byName) {
    if (others.length === 0 && field!.selections && isPlainField(field!)) raw.set(name, { shape: field!.value, selections: field!.selections });
  }
  return raw.size > 0 ? raw : null;
}

/** The field selections of a selection set, those in its fragments (whatever their conditions) included. */
function fieldsOf(selections: Selection[]): FieldSelection[] {
  return selections.flatMap((selection) => (selection.kind === 'field' ? [selection] : fieldsOf(selection.selections)));
}

function isPlainField(selection: Selection): boolean {
  return selection.kind === 'field' && !selection.isTypename && !selection.included && selection.inputName === selection.responseName && (!selection.selections || PLAIN.has(selection.selections));
}

function compileField(
  schema: GraphQLSchema,
  field: Field,
  selectionSet: SelectionSet | undefined,
  parentType: GraphQLCompositeType,
  conditionVariables: Set<string>,
  included: Condition | null,
  clientName: (name: string) => string,
): FieldSelection {
  const inputName = field.responseName();
  const responseName = clientName(inputName);
  // Answers are plain objects (JSON.stringify is faster on them than on prototype-less ones), so
  // a response name that an object inherits (`constructor`, `__proto__`) stays with the gateway.
  if (responseName in Object.prototype) throw UNSUPPORTED;
  const jsonKey = `${JSON.stringify(responseName)}:`;
  if (field.name === '__typename') return { kind: 'field', responseName, jsonKey, inputName, isTypename: true, value: valueShape(GraphQLString), selections: null, included };
  // `__schema` and `__type` are answered by the gateway's introspection handling.
  if (field.definition.isSchemaIntrospectionField() || !('getFields' in parentType)) throw UNSUPPORTED;
  const definition = parentType.getFields()[field.name];
  if (!definition) throw UNSUPPORTED;
  const selections = selectionSet ? compileSelectionSet(schema, selectionSet, conditionVariables, clientName) : null;
  return { kind: 'field', responseName, jsonKey, inputName, isTypename: false, value: valueShape(definition.type), selections, included };
}

function valueShape(type: GraphQLOutputType): ValueShape {
  if (isNonNullType(type)) return { kind: 'nonNull', type, of: valueShape(type.ofType) };
  if (isListType(type)) return { kind: 'list', type, of: valueShape(type.ofType) };
  if (isCompositeType(type)) return { kind: 'composite', type };
  return { kind: 'leaf', type, valid: leafTest(type), leaf: leafKind(type) };
}

/** The gateway's `shouldSkip`: the first `@skip` and the first `@include`, as one test; null when neither. */
function compileCondition(element: Field | FragmentElement, conditionVariables: Set<string>): Condition | null {
  const tests: Condition[] = [];
  for (const name of ['skip', 'include'] as const) {
    const directive = element.appliedDirectivesOf(name)[0];
    if (!directive) continue;
    const argument: unknown = directive.arguments().if;
    let value: Condition;
    if (argument instanceof Variable) {
      const variable = argument.name;
      conditionVariables.add(variable);
      value = (variables) => variables[variable] as boolean;
    } else if (typeof argument === 'boolean') {
      value = () => argument;
    } else {
      throw UNSUPPORTED;
    }
    tests.push(name === 'skip' ? (variables) => !value(variables) : value);
  }
  if (tests.length === 0) return null;
  return (variables) => tests.every((test) => test(variables));
}

interface ShapingRun {
  schema: GraphQLSchema;
  variables: Record<string, unknown>;
  errors: GraphQLError[];
  path: Array<string | number>;
  /** Set by `updateValue` for the value it returned (the gateway returns `{isInvalid, hasErrors}`). */
  flags: number;
}

const INVALID = 1;
const HAS_ERRORS = 2;

/** True when a null must bubble up past `output` (the gateway's NULL_BUBBLE_UP). */
function applySelections(run: ShapingRun, input: Record<string, unknown>, selections: Selection[], output: Record<string, unknown>, parentType: GraphQLNamedType): boolean {
  for (const selection of selections) {
    if (selection.included && !selection.included(run.variables)) continue;
    if (selection.kind === 'fragment') {
      const typename = input.__typename;
      if (typename && typeof typename !== 'string') throw new Error(`Got unexpected value for __typename: ${typename}`);
      if (!typeConditionApplies(run.schema, selection.typeCondition, typename as string | undefined, parentType)) continue;
      if (applySelections(run, input, selection.selections, output, selection.typeCondition ?? parentType)) return true;
      continue;
    }
    const { responseName, inputName } = selection;
    const outputValue = output[responseName];
    if (selection.isTypename) {
      if (outputValue !== undefined) continue;
      let inputValue = ownValue(input, inputName) ?? null;
      if (inputValue === null && inputName !== '__typename') inputValue = input.__typename ?? null;
      const type = typeof inputValue === 'string' ? (run.schema.getType(inputValue) ?? parentType) : parentType;
      if (!isObjectType(type)) return true;
      output[responseName] = type.name;
      continue;
    }
    run.path.push(responseName);
    output[responseName] = updateValue(run, outputValue, selection.value, ownValue(input, inputName) ?? null, selection.selections, parentType);
    run.path.pop();
    if (run.flags & INVALID) return true;
  }
  return false;
}

function updateValue(run: ShapingRun, outputValue: unknown, shape: ValueShape, inputValue: unknown, selections: Selection[] | null, parentType: GraphQLNamedType): unknown {
  if (outputValue === null || (outputValue !== undefined && !selections)) {
    run.flags = 0;
    return outputValue;
  }
  if (outputValue === undefined && selections && PLAIN.has(selections) && adoptable(shape, inputValue, selections)) {
    run.flags = 0;
    return inputValue;
  }
  // A subtree kept as text (passthrough.ts) that is not this selection's as it stands, or that a second selection writes into: its value.
  if (inputValue instanceof RawJson) inputValue = inputValue.parsed();
  if (outputValue instanceof RawJson) outputValue = outputValue.parsed();
  if (shape.kind === 'nonNull') {
    const updated = updateValue(run, outputValue, shape.of, inputValue, selections, parentType);
    if (updated !== null) {
      run.flags = 0;
      return updated;
    }
    if (!(run.flags & HAS_ERRORS)) run.errors.push(invalid(`Cannot return null for non-nullable ${describeLast(run.path, shape.of.type, parentType)}.`, run.path));
    run.flags = INVALID | HAS_ERRORS;
    return null;
  }
  if (inputValue === null) {
    run.flags = 0;
    return null;
  }
  if (shape.kind === 'list') return updateList(run, outputValue, shape, inputValue, selections, parentType);
  if (shape.kind === 'composite') return updateObject(run, outputValue, shape.type, inputValue, selections, parentType);
  if (outputValue !== undefined) throw new Error(`Excepted output to be undefined but got ${shape.type} for type ${shape.type}`);
  if (!shape.valid || shape.valid(inputValue)) {
    run.flags = 0;
    return inputValue;
  }
  run.errors.push(invalid(`Invalid value found for ${describeLast(run.path, shape.type, parentType)}.`, run.path));
  run.flags = HAS_ERRORS;
  return null;
}

function updateList(run: ShapingRun, outputValue: unknown, shape: Extract<ValueShape, { kind: 'list' }>, inputValue: unknown, selections: Selection[] | null, parentType: GraphQLNamedType): unknown {
  if (!Array.isArray(inputValue)) throw new Error(`Invalid non-list value ${inputValue} returned by subgraph for list type ${shape.type}`);
  if (outputValue !== undefined && !Array.isArray(outputValue)) throw new Error(`Invalid non-list value ${outputValue} returned by subgraph for list type ${shape.type}`);
  const outputs = outputValue as unknown[] | undefined;
  if (outputs && inputValue.length !== outputs.length) throw new Error(`[${inputValue}].length (${inputValue.length}) !== [${outputs}].length (${outputs.length})`);
  let nullify = false;
  let hasErrors = false;
  const updated = new Array<unknown>(inputValue.length);
  for (let index = 0; index < inputValue.length; index++) {
    run.path.push(index);
    updated[index] = updateValue(run, outputs?.[index], shape.of, inputValue[index], selections, parentType);
    run.path.pop();
    nullify ||= (run.flags & INVALID) !== 0;
    hasErrors ||= (run.flags & HAS_ERRORS) !== 0;
  }
  run.flags = hasErrors ? HAS_ERRORS : 0;
  return nullify ? null : updated;
}

function updateObject(run: ShapingRun, outputValue: unknown, type: GraphQLCompositeType, inputValue: unknown, selections: Selection[] | null, parentType: GraphQLNamedType): unknown {
  if (!selections) throw new Error(`Invalid empty selection set for composite type ${type}`);
  if (typeof inputValue !== 'object') throw new Error(`Invalid non-object value ${inputValue} returned by subgraph for composite type ${type}`);
  if (outputValue !== undefined && typeof outputValue !== 'object') throw new Error(`Invalid non-object value ${inputValue} returned by subgraph for composite type ${type}`);
  const input = inputValue as Record<string, unknown>;
  const typename = input.__typename;
  if (typename !== undefined && typeof typename !== 'string') throw new Error(`Invalid non-string value ${typename} for __typename at ${run.path}`);
  let objectType: GraphQLNamedType = type;
  if (typename) {
    const named = run.schema.getType(typename);
    if (!named || !isCompositeType(named)) {
      run.errors.push(invalid(`Invalid __typename found for object at ${describeLast(run.path, type, parentType)}.`, run.path));
      run.flags = HAS_ERRORS;
      return null;
    }
    objectType = named;
  }
  // An object adopted from a shared answer (answer-cache.ts) is copied before a second selection writes to it.
  const adopted = outputValue as Record<string, unknown> | undefined;
  const output = adopted === undefined ? {} : Object.isFrozen(adopted) ? { ...adopted } : adopted;
  const bubbled = applySelections(run, input, selections, output, objectType);
  run.flags = bubbled ? HAS_ERRORS : 0;
  return bubbled ? null : output;
}

/**
 * Whether a subgraph's value is, as it stands, what shaping would build from it: every object with
 * exactly the selected fields in order (nothing the plan added), no null where the type forbids it,
 * every leaf valid. Then it is the answer, and the request does not build a second copy of it (the
 * questionnaire's 2,267 objects): fewer allocations, shorter young-generation pauses. A walk that
 * allocates nothing; when it fails, shaping goes on as before and finds the same errors.
 */
function adoptable(shape: ValueShape, value: unknown, selections: Selection[] | null): boolean {
  if (value === null || value === undefined) return shape.kind !== 'nonNull' && value === null;
  // A subtree kept as text (passthrough.ts) was checked as this test would check it, against this field's selection only.
  if (value instanceof RawJson) return value.checkedFor === shape;
  switch (shape.kind) {
    case 'nonNull':
      return adoptable(shape.of, value, selections);
    case 'list':
      if (!Array.isArray(value)) return false;
      // A loop, not `every`: this walk must not allocate a closure per list.
      for (const element of value) if (!adoptable(shape.of, element, selections)) return false;
      return true;
    case 'composite':
      return typeof value === 'object' && !Array.isArray(value) && hasExactly(value as Record<string, unknown>, selections!);
    case 'leaf':
      return !shape.valid || shape.valid(value);
  }
}

/** `adoptable` for a field whose value may stay as text: what passthrough.ts's scan must agree with (its tests). */
export function adoptsAsItStands(field: RawField, value: unknown): boolean {
  return adoptable(field.shape, value, field.selections);
}

function hasExactly(object: Record<string, unknown>, selections: Selection[]): boolean {
  let index = 0;
  for (const key in object) {
    const selection = selections[index++] as FieldSelection | undefined;
    if (selection?.responseName !== key || !adoptable(selection.value, object[key], selection.selections)) return false;
  }
  return index === selections.length;
}

function typeConditionApplies(schema: GraphQLSchema, typeCondition: GraphQLCompositeType | null, typename: string | undefined, parentType: GraphQLNamedType): boolean {
  if (!typeCondition) return true;
  const type = typename ? schema.getType(typename) : parentType;
  if (!type) return false;
  if (type === typeCondition) return true;
  return isAbstractType(typeCondition) && (isObjectType(type) || 'getInterfaces' in type) && schema.isSubType(typeCondition, type as never);
}

/** An integer as JSON and JavaScript write one (passthrough.ts checks number tokens with it too). */
export const INTEGER = /^-?(?:0|[1-9][0-9]*)$/;

function leafKind(type: GraphQLOutputType): LeafKind {
  if (isEnumType(type)) return 'enum';
  if (!isScalarType(type) || !isSpecifiedScalarType(type)) return 'custom';
  return type.name as LeafKind;
}

/** As federation-internals' `isValidLeafValue`; null for custom scalars, which take anything. */
function leafTest(type: GraphQLOutputType): ((value: unknown) => boolean) | null {
  if (isEnumType(type)) return (value) => typeof value === 'string' && type.getValue(value) !== undefined;
  if (!isScalarType(type) || !isSpecifiedScalarType(type)) return null;
  const finite = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);
  switch (type.name) {
    case 'Boolean':
      return (value) => typeof value === 'boolean';
    case 'Int':
      return (value) => finite(value) && INTEGER.test(String(value));
    case 'ID':
      return (value) => typeof value === 'string' || (finite(value) && INTEGER.test(String(value)));
    case 'Float':
      return (value) => finite(value);
    default:
      return (value) => typeof value === 'string';
  }
}

function describeLast(path: Array<string | number>, type: GraphQLOutputType, parentType: GraphQLNamedType): string {
  const last = path[path.length - 1];
  return typeof last === 'string' ? `field ${parentType}.${last}` : `array element of type ${type} at index ${last}`;
}

function invalid(message: string, path: Array<string | number>): GraphQLError {
  return new GraphQLError(message, { path: [...path], extensions: { code: 'INVALID_GRAPHQL' } });
}

function ownValue(object: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}
