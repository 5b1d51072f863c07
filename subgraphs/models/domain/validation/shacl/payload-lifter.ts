import type { BlankNode, Literal, NamedNode, Quad } from '@rdfjs/types';
import type { Violation } from '../validation-report.js';
import { termKey } from './indexed-dataset.js';
import { type JsonScalar, literalFor } from './json-literals.js';
import type { LiftingVocabulary, PropertyTerm } from './lifting-vocabulary.js';
import { terms } from './rdf-environment.js';
import { RDF_TYPE, localName, namespaceOf } from './rdf-vocabulary.js';
import { type JsonObject } from '../../../../../kernel/json.js';

export interface LiftedLiteral {
  readonly kind: 'literal';
  readonly term: Literal;
  readonly json: JsonScalar;
  readonly path: string;
}

/** A JSON object: a blank node whose label is its JSONPath, so report focus nodes name their path. */
export interface LiftedNode {
  readonly kind: 'node';
  readonly term: BlankNode;
  readonly path: string;
  readonly classes: readonly NamedNode[];
  /** predicate IRI → values, in payload order */
  readonly properties: Map<string, LiftedValue[]>;
  /** predicate IRI → the JSON key the payload used for it */
  readonly keys: Map<string, string>;
}

export type LiftedValue = LiftedLiteral | LiftedNode;

export interface LiftedPayload {
  readonly root: LiftedNode;
  /** by blank node label (= JSONPath) */
  readonly nodes: ReadonlyMap<string, LiftedNode>;
  readonly quads: Quad[];
  /** IRIs of every class some node is an instance of */
  readonly classes: ReadonlySet<string>;
  /** what could not be lifted (an unknown `@type`), reported as violations */
  readonly problems: Violation[];
}

const rdfType = terms.namedNode(RDF_TYPE);
const TYPE_KEY = '@type';

/**
 * DECISIONS section 3, "SHACL": lifts a JSON payload to RDF with the artifact's own vocabulary.
 * `null` adds nothing, an array adds one triple per element, a nested object becomes a blank node
 * typed by the property's classes, a scalar a literal typed by the property's datatype; a key the
 * vocabulary does not know becomes `<namespace of the node's class>key`, so closed shapes report it.
 * The root is typed by `rootClass`, else by the payload's `@type` (a root `@type` key is never a
 * property). Duplicate scalars in one array give one triple (RDF is a set), which is how the
 * validators count values.
 */
export function liftPayload(payload: JsonObject, vocabulary: LiftingVocabulary, rootClass?: NamedNode): LiftedPayload {
  const lifter = new PayloadLifter(vocabulary);
  const rootClasses = rootClass ? [rootClass] : lifter.declaredTypes(payload[TYPE_KEY]);
  const root = lifter.liftObject(payload, '$', rootClasses, vocabulary.defaultNamespace, true);
  return { root, nodes: lifter.nodes, quads: lifter.quads, classes: lifter.classes, problems: lifter.problems };
}

class PayloadLifter {
  readonly nodes = new Map<string, LiftedNode>();
  readonly quads: Quad[] = [];
  readonly classes = new Set<string>();
  readonly problems: Violation[] = [];
  /** keys of the literal triples of multi-valued properties, and the value lists already keyed */
  private readonly literalTriples = new Set<string>();
  private readonly keyedValueLists = new WeakSet<LiftedValue[]>();

  constructor(private readonly vocabulary: LiftingVocabulary) {}

  declaredTypes(declared: unknown): NamedNode[] {
    if (declared === undefined || declared === null) return [];
    const names = Array.isArray(declared) ? declared : [declared];
    const path = `$${segment(TYPE_KEY)}`;
    return names.flatMap((name) => {
      if (typeof name !== 'string') {
        this.problems.push({ path, message: '@type must be a class name or IRI (a string)', severity: 'Error' });
        return [];
      }
      const resolution = this.vocabulary.resolveClass(name);
      if ('iri' in resolution) return [terms.namedNode(resolution.iri)];
      this.problems.push({ path, message: `@type ${name}: ${resolution.error}`, severity: 'Error', value: name });
      return [];
    });
  }

  liftObject(json: JsonObject, path: string, classes: readonly NamedNode[], namespace: string, isRoot = false): LiftedNode {
    const node: LiftedNode = { kind: 'node', term: terms.blankNode(path), path, classes, properties: new Map(), keys: new Map() };
    this.nodes.set(path, node);
    for (const type of classes) {
      this.quads.push(terms.quad(node.term, rdfType, type));
      this.classes.add(type.value);
    }
    const ownNamespace = classes.length > 0 ? namespaceOf(classes[0].value) : namespace;
    for (const key of Object.keys(json)) {
      if (isRoot && key === TYPE_KEY) continue;
      const property = this.propertyFor(classes, key, ownNamespace);
      if (!node.keys.has(property.predicate.value)) node.keys.set(property.predicate.value, key);
      this.liftValue(node, property, json[key], path + segment(key), ownNamespace);
    }
    return node;
  }

  private propertyFor(classes: readonly NamedNode[], key: string, namespace: string): PropertyTerm {
    for (const type of classes) {
      const known = this.vocabulary.classVocabulary(type.value)?.byKey.get(key);
      if (known) return known;
    }
    return { predicate: terms.namedNode(namespace + key), nodeClasses: [] };
  }

  private liftValue(node: LiftedNode, property: PropertyTerm, value: unknown, path: string, namespace: string): void {
    if (value === null || value === undefined) return;
    if (Array.isArray(value)) {
      value.forEach((element, index) => this.liftValue(node, property, element, `${path}[${index}]`, namespace));
      return;
    }
    const lifted: LiftedValue =
      typeof value === 'object'
        ? this.liftObject(value as JsonObject, path, property.nodeClasses, namespace)
        : { kind: 'literal', term: literalFor(value as JsonScalar, property.datatype), json: value as JsonScalar, path };
    const values = node.properties.get(property.predicate.value);
    if (values && lifted.kind === 'literal' && this.isRepeated(node, property, values, lifted)) return;
    this.quads.push(terms.quad(node.term, property.predicate, lifted.term));
    if (values) values.push(lifted);
    else node.properties.set(property.predicate.value, [lifted]);
  }

  /** Asked only for a property's second and later values, so single values cost no key. */
  private isRepeated(node: LiftedNode, property: PropertyTerm, values: LiftedValue[], literal: LiftedLiteral): boolean {
    const seen = this.literalTriples;
    if (!this.keyedValueLists.has(values)) {
      this.keyedValueLists.add(values);
      for (const earlier of values) if (earlier.kind === 'literal') seen.add(tripleKey(node, property, earlier));
    }
    const key = tripleKey(node, property, literal);
    if (seen.has(key)) return true;
    seen.add(key);
    return false;
  }
}

function tripleKey(node: LiftedNode, property: PropertyTerm, literal: LiftedLiteral): string {
  return `${node.path}\n${property.predicate.value}\n${termKey(literal.term)}`;
}

/** `.key` for plain keys, `['key']` otherwise (`$.a[0].b`, `$['@type']`). */
function segment(key: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `.${key}` : `['${key.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}']`;
}

/**
 * Where a property of `node` is, or would be, in the payload: the key the payload used, else the
 * vocabulary's key for the predicate, else the predicate's local name.
 */
export function propertyPath(node: LiftedNode, predicate: string, vocabulary: LiftingVocabulary): string {
  const key = node.keys.get(predicate) ?? node.classes.map((c) => vocabulary.classVocabulary(c.value)?.keyByPredicate.get(predicate)).find((k) => k !== undefined) ?? localName(predicate);
  return node.path + segment(key);
}
