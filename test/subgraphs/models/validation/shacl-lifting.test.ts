import { compileShaclValidator } from '../../../../subgraphs/models/domain/validation/shacl/shacl-validator.js';
import type { ValidatorResult } from '../../../../subgraphs/models/domain/validation/validation-report.js';

const PREFIXES = `
@prefix ex: <https://example.org/people/> .
@prefix dcterms: <http://purl.org/dc/terms/> .
@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .
@prefix sh: <http://www.w3.org/ns/shacl#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
`;

/** A Person with keys matched by each rule: local name (age, tags), sh:name (name), schema description (metadata_created). */
const SHAPES = `${PREFIXES}
ex:Person a sh:NodeShape ;
  sh:targetClass ex:Person ;
  sh:closed true ;
  sh:ignoredProperties ( rdf:type ) ;
  sh:property [ sh:path ex:fullName ; sh:name "name" ; sh:datatype xsd:string ; sh:minCount 1 ; sh:maxCount 1 ] ,
    [ sh:path ex:age ; sh:datatype xsd:integer ; sh:maxCount 1 ] ,
    [ sh:path ex:tags ; sh:datatype xsd:string ; sh:maxCount 2 ] ,
    [ sh:path dcterms:created ; sh:description "When the record was made" ; sh:datatype xsd:dateTime ] ,
    [ sh:path ex:address ; sh:class ex:Address ] ,
    [ sh:path ex:nickname ; sh:datatype xsd:string ; sh:severity sh:Warning ; sh:maxLength 10 ] .

ex:Address a sh:NodeShape ;
  sh:targetClass ex:Address ;
  sh:closed true ;
  sh:ignoredProperties ( rdf:type ) ;
  sh:property [ sh:path ex:city ; sh:datatype xsd:string ; sh:minCount 1 ] ,
    [ sh:path dcterms:spatial ; sh:description "Where the address is on a map" ; sh:datatype xsd:string ] .

ex:EmailShape a sh:NodeShape ;
  sh:targetSubjectsOf ex:email ;
  sh:property [ sh:path ex:email ; sh:datatype xsd:string ; sh:pattern "@" ] .
`;

const SCHEMA = {
  $schema: 'https://json-schema.org/draft/2019-09/schema',
  $defs: {
    Person: {
      type: 'object',
      properties: {
        name: { type: 'string' },
        metadata_created: { type: 'string', description: 'When the record was made' },
        home: { $ref: '#/$defs/Address', description: 'The address' },
        address: { $ref: '#/$defs/Address' },
      },
    },
    Address: { type: 'object', properties: { city: { type: 'string' }, map_position: { type: 'string', description: 'Where the address is on a map' } } },
  },
};

const person = compileShaclValidator({ shapes: SHAPES, schema: SCHEMA, rootClass: 'Person' });

describe('lifting a JSON payload with the artifacts (DECISIONS section 3, SHACL)', () => {
  test('keys match by sh:path local name, sh:name and JSON Schema description, nested objects through the $ref walk', async () => {
    const result = await person.validate({
      name: 'Ada',
      age: 36,
      metadata_created: '2025-01-01T00:00:00Z',
      address: { city: 'London', map_position: '51.5,-0.1' },
    });
    expect(result).toEqual({ kind: 'Shacl', passed: true, violations: [] });
  });

  test('a key that matches nothing is minted in the class namespace and rejected by the closed shape', async () => {
    const result = await person.validate({ name: 'Ada', shoe_size: 38, 'odd key': true });
    expect(located(result)).toEqual([
      ['$.shoe_size', 'sh:ClosedConstraintComponent'],
      ["$['odd key']", 'sh:ClosedConstraintComponent'],
    ]);
  });

  test('null adds no triple: a required null is missing, an optional null is fine', async () => {
    expect(located(await person.validate({ name: null, age: null }))).toEqual([['$.name', 'sh:MinCountConstraintComponent']]);
  });

  test('arrays give one triple per element, and element paths carry the index', async () => {
    const result = await person.validate({ name: 'Ada', tags: ['a', 7, 'c'] });
    expect(located(result)).toEqual([
      ['$.tags', 'sh:MaxCountConstraintComponent'],
      ['$.tags[1]', 'sh:DatatypeConstraintComponent'],
    ]);
  });

  test('scalars take the declared datatype only when their JSON type can carry it', async () => {
    expect((await person.validate({ name: 'Ada', age: '36' })).passed).toBe(true);
    expect(located(await person.validate({ name: 42, age: 36.5 }))).toEqual([
      ['$.age', 'sh:DatatypeConstraintComponent'],
      ['$.name', 'sh:DatatypeConstraintComponent'],
    ]);
  });

  test('nested objects are typed by sh:class, and their violations point inside them', async () => {
    const result = await person.validate({ name: 'Ada', address: [{ city: 'Paris' }, { street: 'Main St' }] });
    expect(located(result)).toEqual([
      ['$.address[1].city', 'sh:MinCountConstraintComponent'],
      ['$.address[1].street', 'sh:ClosedConstraintComponent'],
    ]);
  });

  test('a scalar where an object is expected fails sh:class at its own path', async () => {
    expect(located(await person.validate({ name: 'Ada', address: 'Paris' }))).toEqual([['$.address', 'sh:ClassConstraintComponent']]);
  });

  test('sh:severity maps to the report severity; a Warning does not fail the result', async () => {
    const result = await person.validate({ name: 'Ada', nickname: 'a rather long nickname' });
    expect(result.passed).toBe(true);
    expect(result.violations).toEqual([expect.objectContaining({ path: '$.nickname', severity: 'Warning', constraint: 'sh:MaxLengthConstraintComponent' })]);
  });

  test('a payload that is not an object is one error at $', async () => {
    expect(located(await person.validate([1, 2]))).toEqual([['$', undefined]]);
  });

  test('concurrent validations share the engine without mixing reports', async () => {
    const payloads = Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? { name: `P${i}` } : { name: `P${i}`, [`extra${i}`]: i }));
    const results = await Promise.all(payloads.map((p) => person.validate(p)));
    results.forEach((result, i) => expect(located(result)).toEqual(i % 2 === 0 ? [] : [[`$.extra${i}`, 'sh:ClosedConstraintComponent']]));
  });
});

describe('typing the root', () => {
  const untyped = compileShaclValidator({ shapes: SHAPES });

  test('by @type (a local name or a full IRI) when the catalog names no root class', async () => {
    expect(located(await untyped.validate({ '@type': 'Person', name: 'Ada', age: 'old' }))).toEqual([['$.age', 'sh:DatatypeConstraintComponent']]);
    expect((await untyped.validate({ '@type': 'https://example.org/people/Person' })).passed).toBe(false);
  });

  test("an @type naming no target class is an error at $['@type']", async () => {
    const result = await untyped.validate({ '@type': 'Robot' });
    expect(result.violations).toEqual([expect.objectContaining({ path: "$['@type']", severity: 'Error', message: '@type Robot: no class is named Robot' })]);
  });

  test('with neither, only shapes that target untyped nodes apply', async () => {
    expect(located(await untyped.validate({ email: 'nobody', city: 3 }))).toEqual([['$.email', 'sh:PatternConstraintComponent']]);
  });

  test('a root class the shapes cannot resolve, or Turtle that does not parse, fails compilation', () => {
    expect(() => compileShaclValidator({ shapes: SHAPES, rootClass: 'Robot' })).toThrow('root class Robot cannot be used with these shapes: no class is named Robot');
    expect(() => compileShaclValidator({ shapes: SHAPES, rootClass: 'https://example.org/people/Robot' })).toThrow(/no shape targets it/);
    const twoPersons = `${SHAPES}\n<https://example.org/other/Person> a sh:NodeShape ; sh:targetClass <https://example.org/other/Person> .`;
    expect(() => compileShaclValidator({ shapes: twoPersons, rootClass: 'Person' })).toThrow(/2 classes are named Person/);
    expect(() => compileShaclValidator({ shapes: `${PREFIXES} ex:Person a sh:NodeShape ; sh:targetClass` })).toThrow(/^SHACL shapes cannot be parsed as Turtle: /);
  });
});

describe('SHACL-SPARQL constraints (the engine cannot run them)', () => {
  const shapes = `${SHAPES}
ex:PersonRules a sh:NodeShape ;
  sh:targetClass ex:Person ;
  sh:sparql [ sh:message "A person needs a unique name" ; sh:select "SELECT $this WHERE { $this ex:fullName ?n }" ] .

ex:LanguageComponent a sh:ConstraintComponent ;
  sh:parameter [ sh:path ex:lang ] ;
  sh:validator [ a sh:SPARQLAskValidator ; sh:ask "ASK { FILTER (lang($value) = $lang) }" ] .

ex:CityLanguage a sh:NodeShape ;
  sh:targetClass ex:Address ;
  sh:property [ sh:path ex:city ; ex:lang "en" ] .
`;
  const validator = compileShaclValidator({ shapes, rootClass: 'Person' });

  test('are counted for /admin/status', () => {
    expect(validator.unsupportedConstraints).toBe(2);
  });

  test('each applicable one is one Info violation naming it, on every validation; the rest still runs', async () => {
    const result = await validator.validate({ name: 'Ada', address: { city: 'Paris' }, extra: 1 });
    expect(result.passed).toBe(false);
    const infos = result.violations.filter((v) => v.severity === 'Info');
    expect(infos.map((v) => v.path)).toEqual(['$', '$']);
    expect(infos[0].message).toContain('<https://example.org/people/PersonRules>');
    expect(infos[0].message).toContain('A person needs a unique name');
    expect(infos[1].message).toContain('https://example.org/people/LanguageComponent');
    expect(located(result)).toEqual([['$.extra', 'sh:ClosedConstraintComponent']]);
  });

  test('a constraint on a class the payload has no instance of is not mentioned', async () => {
    const result = await validator.validate({ name: 'Ada' });
    expect(result.violations).toEqual([expect.objectContaining({ severity: 'Info', message: expect.stringContaining('PersonRules') })]);
  });
});

/** Error and Warning violations as [path, constraint], sorted. */
function located(result: ValidatorResult): Array<[string, string | undefined]> {
  return result.violations
    .filter((v) => v.severity !== 'Info' && v.severity !== 'Warning')
    .map((v): [string, string | undefined] => [v.path, v.constraint])
    .sort((a, b) => (`${a[0]} ${a[1]}` < `${b[0]} ${b[1]}` ? -1 : 1));
}
