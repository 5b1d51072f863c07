import type { Quad, Term } from '@rdfjs/types';
import { type ClassVocabulary, type LiftingVocabulary, classResolver, classVocabulary, mostCommonNamespace } from '../shacl/lifting-vocabulary.js';
import { RdfGraph } from '../shacl/rdf-graph.js';
import { terms } from '../shacl/rdf-environment.js';
import { OWL, RDFS, RDF_TYPE, XSD, localName } from '../shacl/rdf-vocabulary.js';

/** A set of literal values: an XSD datatype (or rdfs:Literal), or an owl:oneOf enumeration. */
export type DataRange = { kind: 'datatype'; iri: string } | { kind: 'oneOf'; members: readonly Term[] };

/** A cardinality restriction, qualified (owl:onClass / owl:onDataRange) or not. */
export interface CountRestriction {
  readonly property: string;
  readonly bound: 'exact' | 'min' | 'max';
  readonly count: number;
  readonly onClass?: string;
  readonly onDataRange?: DataRange;
  /** the OWL term, for messages: `owl:minCardinality` */
  readonly source: string;
}

/** owl:allValuesFrom a data range: every value of the property must be in it. */
export interface RangeRestriction {
  readonly property: string;
  readonly range: DataRange;
}

export interface ClassRestrictions {
  readonly counts: readonly CountRestriction[];
  readonly ranges: readonly RangeRestriction[];
}

const CARDINALITIES: ReadonlyArray<[string, CountRestriction['bound']]> = [
  ['cardinality', 'exact'],
  ['minCardinality', 'min'],
  ['maxCardinality', 'max'],
  ['qualifiedCardinality', 'exact'],
  ['minQualifiedCardinality', 'min'],
  ['maxQualifiedCardinality', 'max'],
];

/**
 * Compile-time index of an ontology for the closed-world checks of DECISIONS section 3, "OWL".
 * Restrictions are read from a class's rdfs:subClassOf and owl:equivalentClass restrictions, its
 * named superclasses' included. A restriction without owl:onProperty constrains nothing and is
 * skipped (LinkML 0.0.4 emits some), as is an owl:allValuesFrom that is not a data range (a class:
 * the payload's objects are typed by the lifter, and its scalars are never instances of a class).
 */
export class OntologyIndex {
  readonly functionalProperties: ReadonlySet<string>;
  /** rdfs:range of properties, where the range is a data range */
  readonly globalRanges: ReadonlyMap<string, DataRange>;
  readonly classes: ReadonlySet<string>;
  private readonly graph: RdfGraph;
  private readonly restrictionsByClass = new Map<string, ClassRestrictions>();
  private readonly superclassesByClass = new Map<string, ReadonlySet<string>>();

  constructor(quads: readonly Quad[]) {
    this.graph = new RdfGraph(quads);
    if (this.graph.subjects(RDF_TYPE, terms.namedNode(`${OWL}Ontology`)).length === 0) {
      throw new Error('the OWL artifact declares no owl:Ontology');
    }
    this.functionalProperties = new Set(this.graph.subjects(RDF_TYPE, terms.namedNode(`${OWL}FunctionalProperty`)).map((t) => t.value));
    this.globalRanges = this.indexRanges();
    this.classes = this.indexClasses();
  }

  restrictions(classIri: string): ClassRestrictions {
    let found = this.restrictionsByClass.get(classIri);
    if (!found) this.restrictionsByClass.set(classIri, (found = this.collectRestrictions(classIri)));
    return found;
  }

  /** The class and its named superclasses, transitively. */
  superclasses(classIri: string): ReadonlySet<string> {
    let found = this.superclassesByClass.get(classIri);
    if (!found) {
      const reached = new Set<string>();
      const pending = [classIri];
      for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
        if (reached.has(next)) continue;
        reached.add(next);
        for (const parent of this.graph.objects(terms.namedNode(next), `${RDFS}subClassOf`)) {
          if (parent.termType === 'NamedNode') pending.push(parent.value);
        }
      }
      this.superclassesByClass.set(classIri, (found = reached));
    }
    return found;
  }

  /**
   * How payloads are lifted when no shapes are given: a class's keys are the local names, then the
   * rdfs:labels, of the properties its restrictions and rdfs:domain declarations name; a nested
   * object is typed by the property's owl:allValuesFrom or rdfs:range class.
   */
  liftingVocabulary(): LiftingVocabulary {
    const vocabularies = new Map<string, ClassVocabulary>();
    return {
      classVocabulary: (classIri) => {
        if (!this.classes.has(classIri)) return undefined;
        let vocabulary = vocabularies.get(classIri);
        if (!vocabulary) vocabularies.set(classIri, (vocabulary = this.classVocabulary(classIri)));
        return vocabulary;
      },
      resolveClass: classResolver(this.classes),
      defaultNamespace: mostCommonNamespace(this.classes),
    };
  }

  private classVocabulary(classIri: string): ClassVocabulary {
    const properties = new Set<string>();
    for (const owner of this.superclasses(classIri)) {
      this.restrictionNodes(owner).forEach((r) => this.graph.objects(r, `${OWL}onProperty`).forEach((p) => properties.add(p.value)));
      this.graph.subjects(`${RDFS}domain`, terms.namedNode(owner)).forEach((p) => properties.add(p.value));
    }
    return classVocabulary(
      [...properties].map((property) => {
        const fillers = this.fillers(classIri, property);
        return {
          predicate: property,
          keys: [localName(property), this.graph.objects(terms.namedNode(property), `${RDFS}label`)[0]?.value],
          datatype: fillers.find((f) => this.isDatatype(f)),
          nodeClasses: fillers.filter((f) => !this.isDatatype(f) && this.dataRange(terms.namedNode(f)) === undefined).slice(0, 1),
        };
      }),
    );
  }

  /** Named owl:allValuesFrom values of the class's restrictions on `property`, then its rdfs:range. */
  private fillers(classIri: string, property: string): string[] {
    const fromRestrictions = [...this.superclasses(classIri)].flatMap((owner) =>
      this.restrictionNodes(owner)
        .filter((r) => this.graph.objects(r, `${OWL}onProperty`).some((p) => p.value === property))
        .flatMap((r) => this.graph.objects(r, `${OWL}allValuesFrom`)),
    );
    const ranges = this.graph.objects(terms.namedNode(property), `${RDFS}range`);
    return [...fromRestrictions, ...ranges].filter((t) => t.termType === 'NamedNode').map((t) => t.value);
  }

  private isDatatype(iri: string): boolean {
    return iri.startsWith(XSD) || iri === `${RDFS}Literal`;
  }

  private indexRanges(): Map<string, DataRange> {
    const ranges = new Map<string, DataRange>();
    for (const quad of this.graph.withPredicate(`${RDFS}range`)) {
      const range = this.dataRange(quad.object);
      if (range) ranges.set(quad.subject.value, range);
    }
    return ranges;
  }

  private indexClasses(): Set<string> {
    const declared = [`${OWL}Class`, `${RDFS}Class`].flatMap((c) => this.graph.subjects(RDF_TYPE, terms.namedNode(c)));
    const restricted = this.graph.withPredicate(`${RDFS}subClassOf`).map((q) => q.subject);
    return new Set([...declared, ...restricted].filter((t) => t.termType === 'NamedNode').map((t) => t.value));
  }

  private dataRange(term: Term): DataRange | undefined {
    if (term.termType === 'NamedNode' && this.isDatatype(term.value)) return { kind: 'datatype', iri: term.value };
    const list = this.graph.objects(term, `${OWL}oneOf`)[0];
    return list ? { kind: 'oneOf', members: this.graph.listItems(list) } : undefined;
  }

  private restrictionNodes(classIri: string): Term[] {
    const node = terms.namedNode(classIri);
    return [`${RDFS}subClassOf`, `${OWL}equivalentClass`].flatMap((p) => this.graph.objects(node, p)).filter((r) => r.termType !== 'NamedNode' && this.graph.objects(r, `${OWL}onProperty`).length > 0);
  }

  private collectRestrictions(classIri: string): ClassRestrictions {
    const counts: CountRestriction[] = [];
    const ranges: RangeRestriction[] = [];
    for (const owner of this.superclasses(classIri)) {
      for (const restriction of this.restrictionNodes(owner)) {
        const property = this.graph.objects(restriction, `${OWL}onProperty`)[0].value;
        counts.push(...this.countRestrictions(restriction, property));
        for (const filler of this.graph.objects(restriction, `${OWL}allValuesFrom`)) {
          const range = this.dataRange(filler);
          if (range) ranges.push({ property, range });
        }
      }
    }
    return { counts, ranges };
  }

  private countRestrictions(restriction: Term, property: string): CountRestriction[] {
    const onClass = this.graph.objects(restriction, `${OWL}onClass`)[0];
    const onDataRangeTerm = this.graph.objects(restriction, `${OWL}onDataRange`)[0];
    const onDataRange = onDataRangeTerm && this.dataRange(onDataRangeTerm);
    return CARDINALITIES.flatMap(([name, bound]) =>
      this.graph
        .objects(restriction, OWL + name)
        .map((value) => Number(value.value))
        .filter((count) => Number.isInteger(count) && count >= 0)
        .flatMap((count): CountRestriction[] => {
          const source = `owl:${name}`;
          if (!name.includes('Qualified')) return [{ property, bound, count, source }];
          // A qualifier this index cannot read (a class expression, a custom datatype) is not guessed at.
          if (onClass?.termType === 'NamedNode') return [{ property, bound, count, onClass: onClass.value, source }];
          return onDataRange ? [{ property, bound, count, onDataRange, source }] : [];
        }),
    );
  }
}
