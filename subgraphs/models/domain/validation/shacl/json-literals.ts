import type { Literal, NamedNode } from '@rdfjs/types';
import { terms } from './rdf-environment.js';
import { XSD } from './rdf-vocabulary.js';

export type JsonScalar = string | number | boolean;

const NUMERIC_DATATYPES = new Set(
  [
    'decimal',
    'integer',
    'int',
    'long',
    'short',
    'byte',
    'float',
    'double',
    'nonNegativeInteger',
    'positiveInteger',
    'nonPositiveInteger',
    'negativeInteger',
    'unsignedLong',
    'unsignedInt',
    'unsignedShort',
    'unsignedByte',
  ].map((name) => XSD + name),
);

const datatypeNodes = new Map<string, NamedNode>();

export function datatypeNode(iri: string): NamedNode {
  let node = datatypeNodes.get(iri);
  if (!node) datatypeNodes.set(iri, (node = terms.namedNode(iri)));
  return node;
}

/**
 * The literal a JSON scalar lifts to. It takes the declared datatype when its JSON type can carry
 * it: a string can be written in any datatype (dates, IRIs and numbers travel as strings), a number
 * only in a numeric one, a boolean only in xsd:boolean. Otherwise it keeps its JSON-LD native
 * datatype (xsd:string, xsd:integer, xsd:double, xsd:boolean), so that `"question_id": 5` against
 * xsd:string is reported instead of being silently read as the string "5".
 */
export function literalFor(value: JsonScalar, datatype?: NamedNode): Literal {
  if (typeof value === 'string') return terms.literal(value, datatype ?? datatypeNode(`${XSD}string`));
  if (typeof value === 'boolean') return terms.literal(String(value), datatypeNode(`${XSD}boolean`));
  const fits = datatype !== undefined && NUMERIC_DATATYPES.has(datatype.value);
  const native = Number.isInteger(value) ? `${XSD}integer` : `${XSD}double`;
  return terms.literal(String(value), fits ? datatype : datatypeNode(native));
}
