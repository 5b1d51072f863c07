import { readFileSync } from 'node:fs';
import { Supergraph } from '@apollo/federation-internals';
import { type GraphQLNamedType, isEnumType, isInputObjectType, isInterfaceType, isObjectType, isSpecifiedScalarType } from 'graphql';
import { projectPath } from '../../kernel/project.js';

/**
 * The graph as a frontend developer reads it in an IDE (docs/GRAPH.md): every type, field, argument,
 * input field and enum value of the committed supergraph's API schema says what it is, and no
 * description sends the reader to this project's internal documents.
 */
const api = Supergraph.build(readFileSync(projectPath('gateway', 'supergraph.graphql'), 'utf8'))
  .apiSchema()
  .toGraphQLJSSchema();
const types = Object.values(api.getTypeMap()).filter((type) => !type.name.startsWith('__') && !isSpecifiedScalarType(type));

/** Every element of a type that carries a description, by its coordinate. */
function elements(type: GraphQLNamedType): Array<[string, string | null | undefined]> {
  const own: Array<[string, string | null | undefined]> = [[type.name, type.description]];
  if (isObjectType(type) || isInterfaceType(type) || isInputObjectType(type)) {
    for (const field of Object.values(type.getFields())) {
      own.push([`${type.name}.${field.name}`, field.description]);
      for (const arg of 'args' in field ? field.args : []) own.push([`${type.name}.${field.name}(${arg.name}:)`, arg.description]);
    }
  }
  if (isEnumType(type)) for (const value of type.getValues()) own.push([`${type.name}.${value.name}`, value.description]);
  return own;
}

const described = types.flatMap(elements);

test('every type, field, argument, input field and enum value has a description', () => {
  expect(described.length).toBeGreaterThan(300);
  expect(described.filter(([, description]) => !description?.trim()).map(([coordinate]) => coordinate)).toEqual([]);
});

test('no description points at internal documents', () => {
  expect(described.filter(([, description]) => /\bdoc 0\d|DECISIONS|\bsection \d+ of DECISIONS/.test(description ?? '')).map(([c]) => c)).toEqual([]);
});

test('enum values are SCREAMING_SNAKE_CASE', () => {
  const values = types.filter(isEnumType).flatMap((type) => type.getValues().map((value) => `${type.name}.${value.name}`));
  expect(values.filter((coordinate) => !/^[A-Za-z]+\.[A-Z][A-Z0-9_]*$/.test(coordinate))).toEqual([]);
});

test('lookups are nullable and lists of records are connections', () => {
  const query = api.getQueryType()!.getFields();
  expect(String(query.modelVersion!.type)).toBe('ModelVersion');
  expect(String(query.record!.type)).toBe('Record');
  expect(String(query.records!.type)).toBe('RecordConnection!');
  expect(query.records!.args.map((arg) => arg.name)).toEqual(['filter', 'orderBy', 'first', 'after', 'last', 'before', 'jsonFilter']);
  expect(String(query.modelVersion!.args.map((arg) => arg.name))).toBe('model,version');
});

test('every type with a stable identity is a Relay Node, fetched again by node(id:) and nodes(ids:)', () => {
  const query = api.getQueryType()!.getFields();
  expect(String(query.node!.type)).toBe('Node');
  expect(String(query.node!.args[0]!.type)).toBe('ID!');
  expect(String(query.nodes!.type)).toBe('[Node]!');
  expect(String(query.nodes!.args[0]!.type)).toBe('[ID!]!');
  const node = api.getType('Node')!;
  expect(
    isInterfaceType(node) &&
      api
        .getPossibleTypes(node)
        .map((type) => type.name)
        .sort(),
  ).toEqual(['Indicator', 'IndicatorAnswer', 'IndicatorParameter', 'IndicatorQuestion', 'ModelVersion', 'Record']);
  // What the node subgraph keys another subgraph's objects by is not the clients' to see.
  expect(types.filter((type) => isObjectType(type) && 'nodeRef' in type.getFields()).map((type) => type.name)).toEqual([]);
});
