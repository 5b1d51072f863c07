import type { NamedNode } from '@rdfjs/types';
import { validateTerm } from 'rdf-validate-datatype';
import { type PayloadValidator, type ValidatorResult, type Violation, resultOf } from '../validation-report.js';
import { datatypeNode, literalFor } from '../shacl/json-literals.js';
import type { LiftingVocabulary } from '../shacl/lifting-vocabulary.js';
import { type LiftedNode, type LiftedValue, liftPayload, propertyPath } from '../shacl/payload-lifter.js';
import { type TurtleSource, quadsOf, terms } from '../shacl/rdf-environment.js';
import { RDFS, localName, shortName } from '../shacl/rdf-vocabulary.js';
import { compileShapes } from '../shacl/shacl-validator.js';
import { type CountRestriction, type DataRange, OntologyIndex } from './ontology-index.js';

export interface OwlValidatorOptions {
  ontology: TurtleSource;
  /** The model's SHACL shapes: when given, payloads are lifted exactly as the SHACL validator lifts them. */
  shapes?: TurtleSource;
  schema?: unknown;
  rootClass?: string;
}

/**
 * DECISIONS section 3, "OWL". Throws (a plain Error) when the ontology does not parse, declares no
 * owl:Ontology, or cannot resolve the root class. When the shapes are given but cannot be compiled,
 * the ontology's own vocabulary lifts payloads: the SHACL validator reports the broken shapes.
 */
export function compileOwlValidator(options: OwlValidatorOptions): PayloadValidator {
  const ontology = new OntologyIndex(quadsOf(options.ontology, 'OWL ontology'));
  const lifting = shapesLifting(options) ?? ontologyLifting(ontology, options.rootClass);
  return new OntologyValidator(ontology, lifting.vocabulary, lifting.rootClass);
}

interface Lifting {
  vocabulary: LiftingVocabulary;
  rootClass?: NamedNode;
}

function shapesLifting(options: OwlValidatorOptions): Lifting | undefined {
  if (options.shapes === undefined) return undefined;
  try {
    return compileShapes(options.shapes, options.schema, options.rootClass);
  } catch {
    return undefined;
  }
}

function ontologyLifting(ontology: OntologyIndex, rootClass: string | undefined): Lifting {
  const vocabulary = ontology.liftingVocabulary();
  if (rootClass === undefined) return { vocabulary };
  const root = vocabulary.resolveClass(rootClass);
  if ('error' in root) throw new Error(`root class ${rootClass} cannot be used with this ontology: ${root.error}`);
  if (!ontology.classes.has(root.iri)) throw new Error(`root class ${rootClass} cannot be used with this ontology: it declares no such class`);
  return { vocabulary, rootClass: terms.namedNode(root.iri) };
}

/**
 * Reads the lifted payload closed-world: a property the payload does not give has no value, and
 * each element of an array is one value. Checks datatype ranges (rdfs:range and owl:allValuesFrom
 * to an XSD datatype), owl:oneOf, owl:FunctionalProperty and cardinality restrictions.
 */
class OntologyValidator implements PayloadValidator {
  readonly kind = 'Owl' as const;

  constructor(
    private readonly ontology: OntologyIndex,
    private readonly vocabulary: LiftingVocabulary,
    private readonly rootClass?: NamedNode,
  ) {}

  async validate(payload: unknown): Promise<ValidatorResult> {
    if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
      return resultOf('Owl', [{ path: '$', message: 'the payload must be a JSON object', severity: 'Error' }]);
    }
    const lifted = liftPayload(payload as Record<string, unknown>, this.vocabulary, this.rootClass);
    const violations = new Map<string, Violation>();
    for (const violation of [...lifted.problems, ...[...lifted.nodes.values()].flatMap((node) => this.checkNode(node))]) {
      violations.set(`${violation.path}\n${violation.message}`, violation);
    }
    return resultOf('Owl', [...violations.values()]);
  }

  private checkNode(node: LiftedNode): Violation[] {
    const violations: Violation[] = [];
    for (const type of node.classes) {
      const { counts, ranges } = this.ontology.restrictions(type.value);
      for (const restriction of counts) violations.push(...this.checkCount(node, type.value, restriction));
      for (const { property, range } of ranges) {
        violations.push(...this.checkRange(values(node, property), property, range, 'owl:allValuesFrom', ` on ${localName(type.value)}`));
      }
    }
    for (const [property, propertyValues] of node.properties) {
      if (this.ontology.functionalProperties.has(property) && propertyValues.length > 1) {
        violations.push({
          path: propertyPath(node, property, this.vocabulary),
          message: `${shortName(property)} is an owl:FunctionalProperty but has ${propertyValues.length} values`,
          severity: 'Error',
          constraint: 'owl:FunctionalProperty',
        });
      }
      const range = this.ontology.globalRanges.get(property);
      if (range) violations.push(...this.checkRange(propertyValues, property, range, 'rdfs:range', ''));
    }
    return violations;
  }

  private checkCount(node: LiftedNode, classIri: string, restriction: CountRestriction): Violation[] {
    const counted = values(node, restriction.property).filter((v) => this.qualifies(v, restriction));
    const { bound, count } = restriction;
    const fails = bound === 'min' ? counted.length < count : bound === 'max' ? counted.length > count : counted.length !== count;
    if (!fails) return [];
    const expected = bound === 'min' ? `at least ${count}` : bound === 'max' ? `at most ${count}` : `exactly ${count}`;
    const qualifier = restriction.onClass ? ` of class ${shortName(restriction.onClass)}` : restriction.onDataRange ? ` that are ${describeRange(restriction.onDataRange)}` : '';
    return [
      {
        path: propertyPath(node, restriction.property, this.vocabulary),
        message: `${shortName(restriction.property)} has ${counted.length} value(s)${qualifier}; ` + `${localName(classIri)} requires ${expected} (${restriction.source})`,
        severity: 'Error',
        constraint: restriction.source,
      },
    ];
  }

  private qualifies(value: LiftedValue, restriction: CountRestriction): boolean {
    if (restriction.onDataRange) return inRange(value, restriction.onDataRange);
    if (restriction.onClass === undefined) return true;
    return value.kind === 'node' && value.classes.some((c) => this.ontology.superclasses(c.value).has(restriction.onClass!));
  }

  private checkRange(propertyValues: readonly LiftedValue[], property: string, range: DataRange, source: 'owl:allValuesFrom' | 'rdfs:range', where: string): Violation[] {
    return propertyValues
      .filter((value) => !inRange(value, range))
      .map((value) => ({
        path: value.path,
        message: `value of ${shortName(property)} is not ${describeRange(range)} (${source}${where})`,
        severity: 'Error' as const,
        constraint: range.kind === 'oneOf' ? 'owl:oneOf' : source,
        ...(value.kind === 'literal' ? { value: value.json } : {}),
      }));
  }
}

function values(node: LiftedNode, property: string): readonly LiftedValue[] {
  return node.properties.get(property) ?? [];
}

/**
 * A JSON object is never in a data range. A scalar is in a datatype when its JSON type can be
 * written in it and its text is a valid lexical form (the datatype library the SHACL engine uses);
 * in an owl:oneOf when it equals a literal member, or names an IRI member (in full or by local name).
 */
function inRange(value: LiftedValue, range: DataRange): boolean {
  if (value.kind === 'node') return false;
  if (range.kind === 'datatype') {
    if (range.iri === `${RDFS}Literal`) return true;
    const literal = literalFor(value.json, datatypeNode(range.iri));
    return literal.datatype.value === range.iri && validateTerm(literal);
  }
  return range.members.some((member) =>
    member.termType === 'Literal'
      ? member.value === String(value.json) || (typeof value.json === 'number' && Number(member.value) === value.json)
      : member.termType === 'NamedNode' && (member.value === value.json || localName(member.value) === value.json),
  );
}

function describeRange(range: DataRange): string {
  if (range.kind === 'datatype') return `a valid ${shortName(range.iri)}`;
  return `one of ${range.members.map((m) => (m.termType === 'Literal' ? JSON.stringify(m.value) : shortName(m.value))).join(', ')}`;
}
