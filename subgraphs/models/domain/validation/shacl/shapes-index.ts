import type { Quad, Term } from '@rdfjs/types';
import { IndexedDataset, termKey } from './indexed-dataset.js';
import { RdfGraph } from './rdf-graph.js';
import { terms } from './rdf-environment.js';
import { RDFS, RDF_FIRST, RDF_TYPE, SH } from './rdf-vocabulary.js';

/** A property shape as the lifter needs it (simple IRI paths only: a complex path names no key). */
export interface PropertyShapeInfo {
  readonly predicate: string;
  readonly name?: string;
  readonly description?: string;
  readonly datatype?: string;
  readonly nodeClasses: readonly string[];
}

/** A constraint the engine cannot run: reported as an Info violation, never passed as checked. */
export interface UnsupportedConstraint {
  readonly key: string;
  readonly message: string;
}

/** Predicates whose objects are shapes the engine evaluates on behalf of the shape that names them. */
const SHAPE_REFERENCES = new Set(['node', 'property', 'and', 'or', 'xone', 'not', 'qualifiedValueShape'].map((p) => SH + p));
const UNTYPED_TARGETS = ['targetNode', 'targetSubjectsOf', 'targetObjectsOf', 'target'].map((p) => SH + p);
const SPARQL_VALIDATORS = ['validator', 'nodeValidator', 'propertyValidator'].map((p) => SH + p);
const SH_SPARQL = `${SH}sparql`;

/** What the engine needs to validate the instances of one class (or the untyped nodes). */
interface ShapeSubset {
  readonly quads: readonly Quad[];
  readonly unsupported: readonly UnsupportedConstraint[];
}

/**
 * Compile-time index of a shapes graph. The published 0.0.4 shapes have ~1,267 node shapes, and
 * a payload is an instance of a handful of classes: the engine is handed only the shapes that can
 * target those classes, with everything they reference, so it never walks the rest.
 * SHACL-SPARQL (sh:sparql, and constraint components declared with SPARQL validators) is left out
 * of those subsets, since rdf-validate-shacl throws on sh:sparql and ignores custom components; each
 * use is recorded instead.
 */
export class ShapesIndex {
  readonly targetClasses: ReadonlySet<string>;
  /** SHACL-SPARQL constraints in the whole shapes graph (for /admin/status). */
  readonly unsupportedCount: number;
  private readonly graph: RdfGraph;
  private readonly shapesByClass = new Map<string, Term[]>();
  private readonly untypedShapes: Term[];
  private readonly sparqlComponentByParameter: Map<string, string>;
  private readonly subsets = new Map<string, ShapeSubset>();
  private untypedShapesSubset: ShapeSubset | undefined;
  private readonly propertyShapesByClass = new Map<string, PropertyShapeInfo[]>();

  constructor(quads: readonly Quad[]) {
    this.graph = new RdfGraph(quads);
    this.indexClassTargets();
    this.targetClasses = new Set(this.shapesByClass.keys());
    this.untypedShapes = distinctTerms(UNTYPED_TARGETS.flatMap((p) => this.graph.subjects(p)));
    this.sparqlComponentByParameter = this.indexSparqlComponents();
    this.unsupportedCount = this.countUnsupported();
  }

  propertyShapes(classIri: string): readonly PropertyShapeInfo[] {
    let infos = this.propertyShapesByClass.get(classIri);
    if (!infos) {
      infos = this.propertyShapeNodes(this.shapesByClass.get(classIri) ?? []).flatMap((p) => this.propertyShapeInfo(p) ?? []);
      this.propertyShapesByClass.set(classIri, infos);
    }
    return infos;
  }

  /** The classes whose instances a payload rooted in `roots` can contain: the roots and, transitively, the sh:class of their properties. */
  reachableClasses(roots: Iterable<string>): Set<string> {
    const reached = new Set<string>();
    const pending = [...roots];
    for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
      if (reached.has(next)) continue;
      reached.add(next);
      for (const property of this.propertyShapes(next)) pending.push(...property.nodeClasses);
    }
    return reached;
  }

  /** The shapes graph for nodes of `classes`: their shapes, the untyped-target shapes, and what those reference. */
  engineShapes(classes: Iterable<string>): IndexedDataset {
    const shapes = new IndexedDataset(this.untypedSubset().quads);
    for (const classIri of classes) this.classSubset(classIri).quads.forEach((q) => shapes.add(q));
    return shapes;
  }

  /** The SHACL-SPARQL constraints that would have applied to a payload with instances of `classes`. */
  unsupportedFor(classes: Iterable<string>): UnsupportedConstraint[] {
    const found = new Map<string, UnsupportedConstraint>();
    const subsets = [this.untypedSubset(), ...[...classes].map((c) => this.classSubset(c))];
    for (const subset of subsets) subset.unsupported.forEach((u) => found.set(u.key, u));
    return [...found.values()];
  }

  private indexClassTargets(): void {
    for (const quad of this.graph.withPredicate(`${SH}targetClass`)) this.addClassTarget(quad.object.value, quad.subject);
    // A shape that is also an rdfs:Class targets its own instances (SHACL implicit class target).
    for (const shape of this.graph.subjects(RDF_TYPE, terms.namedNode(`${RDFS}Class`))) {
      if (this.graph.objects(shape, `${SH}property`).length > 0 || this.isNodeShape(shape)) this.addClassTarget(shape.value, shape);
    }
  }

  private addClassTarget(classIri: string, shape: Term): void {
    const shapes = this.shapesByClass.get(classIri) ?? [];
    if (!shapes.some((s) => s.equals(shape))) shapes.push(shape);
    this.shapesByClass.set(classIri, shapes);
  }

  private isNodeShape(term: Term): boolean {
    return this.graph.objects(term, RDF_TYPE).some((t) => t.value === `${SH}NodeShape`);
  }

  /** parameter predicate → component, for the components that only a SPARQL engine could run */
  private indexSparqlComponents(): Map<string, string> {
    const byParameter = new Map<string, string>();
    const components = distinctTerms(SPARQL_VALIDATORS.flatMap((p) => this.graph.subjects(p)));
    for (const component of components) {
      for (const parameter of this.graph.objects(component, `${SH}parameter`)) {
        this.graph.objects(parameter, `${SH}path`).forEach((path) => byParameter.set(path.value, component.value));
      }
    }
    return byParameter;
  }

  /** Counted as reported: one per sh:sparql constraint, one per shape using a SPARQL-based component. */
  private countUnsupported(): number {
    const keys = new Set(this.graph.withPredicate(SH_SPARQL).map((q) => sparqlConstraintKey(q)));
    for (const [parameter, component] of this.sparqlComponentByParameter) {
      this.graph.subjects(parameter).forEach((shape) => keys.add(componentUseKey(shape, component)));
    }
    return keys.size;
  }

  private classSubset(classIri: string): ShapeSubset {
    let subset = this.subsets.get(classIri);
    if (!subset) this.subsets.set(classIri, (subset = this.subsetOf(this.shapesByClass.get(classIri) ?? [])));
    return subset;
  }

  private untypedSubset(): ShapeSubset {
    this.untypedShapesSubset ??= this.subsetOf(this.untypedShapes);
    return this.untypedShapesSubset;
  }

  private subsetOf(shapes: readonly Term[]): ShapeSubset {
    const quads: Quad[] = [];
    const unsupported: UnsupportedConstraint[] = [];
    const visited = new Set<string>();
    for (const shape of shapes) this.collect(shape, shape, quads, unsupported, visited);
    return { quads, unsupported };
  }

  /** The shape's own triples, its blank-node structure and the shapes it references, minus SHACL-SPARQL. */
  private collect(node: Term, shape: Term, quads: Quad[], unsupported: UnsupportedConstraint[], visited: Set<string>): void {
    const key = termKey(node);
    if (visited.has(key)) return;
    visited.add(key);
    for (const quad of this.graph.about(node)) {
      const predicate = quad.predicate.value;
      if (predicate === SH_SPARQL) {
        unsupported.push(this.sparqlConstraint(quad, shape));
        continue;
      }
      const component = this.sparqlComponentByParameter.get(predicate);
      if (component) unsupported.push(this.sparqlComponentUse(quad, shape, component));
      quads.push(quad);
      const object = quad.object;
      if (object.termType === 'BlankNode' || (object.termType === 'NamedNode' && (SHAPE_REFERENCES.has(predicate) || predicate === RDF_FIRST))) {
        this.collect(object, shape, quads, unsupported, visited);
      }
    }
  }

  private sparqlConstraint(quad: Quad, shape: Term): UnsupportedConstraint {
    const message = this.graph.objects(quad.object, `${SH}message`)[0]?.value;
    return {
      key: sparqlConstraintKey(quad),
      message:
        `SPARQL-based constraint (sh:sparql) of shape ${shapeName(quad.subject, shape)} was not checked: ` + `this validator cannot run SHACL-SPARQL${message ? ` (it checks: "${message}")` : ''}`,
    };
  }

  private sparqlComponentUse(quad: Quad, shape: Term, component: string): UnsupportedConstraint {
    return {
      key: componentUseKey(quad.subject, component),
      message: `constraint component ${component} used by shape ${shapeName(quad.subject, shape)} was not checked: it is SPARQL-based, and this validator cannot run SHACL-SPARQL`,
    };
  }

  private propertyShapeNodes(shapes: readonly Term[], visited = new Set<string>()): Term[] {
    return shapes.flatMap((shape) => {
      if (visited.has(termKey(shape))) return [];
      visited.add(termKey(shape));
      return [...this.graph.objects(shape, `${SH}property`), ...this.propertyShapeNodes(this.graph.objects(shape, `${SH}node`), visited)];
    });
  }

  private propertyShapeInfo(propertyShape: Term): PropertyShapeInfo | undefined {
    const path = this.graph.objects(propertyShape, `${SH}path`).find((t) => t.termType === 'NamedNode');
    if (!path) return undefined;
    const literal = (predicate: string) => this.graph.objects(propertyShape, SH + predicate).find((t) => t.termType === 'Literal')?.value;
    return {
      predicate: path.value,
      name: literal('name'),
      description: literal('description'),
      datatype: this.graph.objects(propertyShape, `${SH}datatype`).find((t) => t.termType === 'NamedNode')?.value,
      nodeClasses: this.graph
        .objects(propertyShape, `${SH}class`)
        .filter((t) => t.termType === 'NamedNode')
        .map((t) => t.value),
    };
  }
}

function sparqlConstraintKey(quad: Quad): string {
  return `${termKey(quad.subject)} ${termKey(quad.object)}`;
}

function componentUseKey(shape: Term, component: string): string {
  return `${termKey(shape)} ${component}`;
}

function shapeName(subject: Term, shape: Term): string {
  if (subject.termType === 'NamedNode') return `<${subject.value}>`;
  return shape.termType === 'NamedNode' ? `<${shape.value}> (a nested shape)` : 'a blank-node shape';
}

function distinctTerms(list: readonly Term[]): Term[] {
  const seen = new Map<string, Term>();
  list.forEach((t) => seen.set(termKey(t), t));
  return [...seen.values()];
}
