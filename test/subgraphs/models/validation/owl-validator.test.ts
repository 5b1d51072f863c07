import { compileOwlValidator } from '../../../../subgraphs/models/domain/validation/owl/owl-validator.js';
import type { ValidatorResult } from '../../../../subgraphs/models/domain/validation/validation-report.js';

const PREFIXES = `
@prefix ex: <https://example.org/shop/> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
`;

const ONTOLOGY = `${PREFIXES}
<https://example.org/shop> a owl:Ontology .

ex:Item a owl:Class ;
  rdfs:subClassOf ex:Product ,
    [ a owl:Restriction ; owl:onProperty ex:sku ; owl:cardinality 1 ] ,
    [ a owl:Restriction ; owl:onProperty ex:labels ; owl:maxCardinality 2 ] ,
    [ a owl:Restriction ; owl:maxCardinality 0 ] .

ex:Order a owl:Class ;
  rdfs:subClassOf ex:Record ,
    [ a owl:Restriction ; owl:onProperty ex:lines ; owl:minCardinality 1 ] ,
    [ a owl:Restriction ; owl:onProperty ex:lines ; owl:allValuesFrom ex:Item ] ,
    [ a owl:Restriction ; owl:onProperty ex:lines ; owl:maxQualifiedCardinality 2 ; owl:onClass ex:Product ] ,
    [ a owl:Restriction ; owl:onProperty ex:lines ; owl:maxQualifiedCardinality 0 ; owl:onClass ex:Gift ] ,
    [ a owl:Restriction ; owl:onProperty ex:codes ; owl:minQualifiedCardinality 1 ; owl:onDataRange xsd:integer ] ,
    [ a owl:Restriction ; owl:onProperty ex:placed ; owl:allValuesFrom xsd:dateTime ] ,
    [ a owl:Restriction ; owl:onProperty ex:status ; owl:allValuesFrom [ a rdfs:Datatype ; owl:oneOf ( "open" "paid" ) ] ] .

ex:Record a owl:Class ;
  rdfs:subClassOf [ a owl:Restriction ; owl:onProperty ex:id ; owl:minCardinality 1 ] .

ex:Gift a owl:Class ; rdfs:subClassOf ex:Item .

ex:Colour a owl:Class ; owl:oneOf ( ex:red ex:green ) .

ex:id a owl:DatatypeProperty , owl:FunctionalProperty ; rdfs:range xsd:string .
ex:quantity a owl:DatatypeProperty ; rdfs:domain ex:Item ; rdfs:range xsd:positiveInteger .
ex:colour a owl:ObjectProperty ; rdfs:domain ex:Item ; rdfs:range ex:Colour .
ex:gift a owl:DatatypeProperty ; rdfs:domain ex:Item ; rdfs:range xsd:boolean .
ex:codes rdfs:domain ex:Order .
`;

const order = compileOwlValidator({ ontology: ONTOLOGY, rootClass: 'Order' });
const validOrder = {
  id: 'o-1',
  placed: '2025-03-01T12:00:00Z',
  status: 'open',
  codes: [7, 'x'],
  lines: [{ sku: 'A', quantity: 2, colour: 'red', labels: ['new'] }],
};

describe('OWL validator: closed-world checks of the lifted payload', () => {
  test('a payload the ontology allows passes', async () => {
    expect(await order.validate(validOrder)).toEqual({ kind: 'Owl', passed: true, violations: [] });
  });

  test('datatype ranges: rdfs:range and owl:allValuesFrom to an XSD datatype', async () => {
    const result = await order.validate({
      ...validOrder,
      placed: 'soon',
      lines: [
        { sku: 'A', quantity: 0, gift: 'yes' },
        { sku: 'C', quantity: { n: 1 } },
      ],
    });
    expect(located(result)).toEqual([
      ['$.lines[0].gift', 'rdfs:range'],
      ['$.lines[0].quantity', 'rdfs:range'],
      ['$.lines[1].quantity', 'rdfs:range'],
      ['$.placed', 'owl:allValuesFrom'],
    ]);
    expect(result.violations.find((v) => v.path === '$.placed')?.message).toBe('value of placed is not a valid xsd:dateTime (owl:allValuesFrom on Order)');
    // a string can carry any lexical form: "3" is a positive integer
    expect((await order.validate({ ...validOrder, lines: [{ sku: 'B', quantity: '3' }] })).passed).toBe(true);
  });

  test('owl:FunctionalProperty: an array of scalars is several values', async () => {
    expect(located(await order.validate({ ...validOrder, id: ['o-1', 'o-2'] }))).toEqual([['$.id', 'owl:FunctionalProperty']]);
    expect((await order.validate({ ...validOrder, id: ['o-1'] })).passed).toBe(true);
  });

  test('cardinality: exact, minimum (inherited from a superclass), maximum, and absent means zero', async () => {
    const result = await order.validate({
      placed: '2025-03-01T12:00:00Z',
      codes: 1,
      lines: [{ labels: ['a', 'b', 'c'] }, { sku: ['X', 'Y'] }],
    });
    expect(located(result)).toEqual([
      ['$.id', 'owl:minCardinality'],
      ['$.lines[0].labels', 'owl:maxCardinality'],
      ['$.lines[0].sku', 'owl:cardinality'],
      ['$.lines[1].sku', 'owl:cardinality'],
    ]);
    expect(result.violations.find((v) => v.path === '$.id')?.message).toBe('id has 0 value(s); Order requires at least 1 (owl:minCardinality)');
    expect(located(await order.validate({ ...validOrder, lines: [] }))).toEqual([['$.lines', 'owl:minCardinality']]);
  });

  test('qualified cardinality counts only the values in the class or data range', async () => {
    const result = await order.validate({ ...validOrder, codes: ['x', 'y'] });
    expect(located(result)).toEqual([['$.codes', 'owl:minQualifiedCardinality']]);
    expect(result.violations[0].message).toBe('codes has 0 value(s) that are a valid xsd:integer; Order requires at least 1 (owl:minQualifiedCardinality)');
    // lines are Items, so Products (a superclass) but not Gifts: only the Product bound is reached
    const lines = await order.validate({ ...validOrder, lines: [{ sku: 'A' }, { sku: 'B' }, { sku: 'C' }] });
    expect(lines.violations).toEqual([
      expect.objectContaining({
        path: '$.lines',
        constraint: 'owl:maxQualifiedCardinality',
        message: 'lines has 3 value(s) of class Product; Order requires at most 2 (owl:maxQualifiedCardinality)',
      }),
    ]);
  });

  test('owl:oneOf: literal members by value, IRI members by IRI or local name', async () => {
    const result = await order.validate({
      ...validOrder,
      status: 'lost',
      lines: [
        { sku: 'A', colour: 'blue' },
        { sku: 'B', colour: 'https://example.org/shop/green' },
      ],
    });
    expect(located(result)).toEqual([
      ['$.lines[0].colour', 'owl:oneOf'],
      ['$.status', 'owl:oneOf'],
    ]);
    expect(result.violations.find((v) => v.path === '$.status')?.message).toBe('value of status is not one of "open", "paid" (owl:allValuesFrom on Order)');
  });

  test('a restriction without owl:onProperty constrains nothing', async () => {
    expect((await order.validate(validOrder)).violations).toEqual([]);
  });
});

describe('OWL validator compilation', () => {
  test('an ontology without owl:Ontology does not compile', () => {
    const withoutHeader = ONTOLOGY.replace('<https://example.org/shop> a owl:Ontology .', '');
    expect(() => compileOwlValidator({ ontology: withoutHeader })).toThrow('the OWL artifact declares no owl:Ontology');
  });

  test('Turtle that does not parse, or a root class the ontology does not have, does not compile', () => {
    expect(() => compileOwlValidator({ ontology: `${PREFIXES} ex:a ex:b` })).toThrow(/^OWL ontology cannot be parsed as Turtle: /);
    expect(() => compileOwlValidator({ ontology: ONTOLOGY, rootClass: 'Invoice' })).toThrow('root class Invoice cannot be used with this ontology: no class is named Invoice');
    expect(() => compileOwlValidator({ ontology: ONTOLOGY, rootClass: 'https://example.org/shop/Invoice' })).toThrow(/declares no such class/);
  });

  test('shapes that do not compile leave the ontology to lift payloads', async () => {
    const validator = compileOwlValidator({ ontology: ONTOLOGY, shapes: 'not turtle {', rootClass: 'Order' });
    expect(located(await validator.validate({ ...validOrder, id: ['a', 'b'] }))).toEqual([['$.id', 'owl:FunctionalProperty']]);
  });
});

function located(result: ValidatorResult): Array<[string, string | undefined]> {
  return result.violations.map((v): [string, string | undefined] => [v.path, v.constraint]).sort((a, b) => (`${a[0]} ${a[1]}` < `${b[0]} ${b[1]}` ? -1 : 1));
}
