import { Parser } from 'n3';
import type { DataFactory, NamedNode, Quad } from '@rdfjs/types';
import defaultEnvironment from 'rdf-validate-shacl/src/defaultEnv.js';
import { IndexedDataset } from './indexed-dataset.js';

/**
 * The RDF/JS environment given to rdf-validate-shacl (its `factory` option) and used for every term
 * the validators make, so that shapes, payload and engine share one term implementation. Two
 * changes from the engine's default, both for speed (see IndexedDataset): datasets are
 * IndexedDatasets, and namespace builders are memoised, because the engine's graph pointers
 * (clownface) build the rdf and xsd namespaces, and their terms, on every step of a traversal.
 */
export const rdfEnvironment: typeof defaultEnvironment = createEnvironment();
export const terms: DataFactory = rdfEnvironment as unknown as DataFactory;

function createEnvironment(): typeof defaultEnvironment {
  const environment = Object.create(defaultEnvironment) as Record<string, unknown>;
  environment.dataset = (quads?: Iterable<Quad>) => new IndexedDataset(quads);
  const builders = new Map<string, NamespaceBuilder>();
  environment.namespace = (base: string) => {
    let builder = builders.get(base);
    if (!builder) builders.set(base, (builder = namespaceBuilder(base)));
    return builder;
  };
  return environment as unknown as typeof defaultEnvironment;
}

/** `ns('x')`, `ns.x` and `` ns`x` `` give one shared NamedNode per name (terms are immutable). */
type NamespaceBuilder = (name?: string | TemplateStringsArray) => NamedNode;

/**
 * Like @rdfjs/namespace, without its per-read cost: a name read as a property (`rdf.first`)
 * becomes an own property of the builder the first time, through a Proxy that sits in the
 * prototype chain; later reads are plain property loads, and the Proxy is never consulted again.
 */
function namespaceBuilder(base: string): NamespaceBuilder {
  const made = new Map<string, NamedNode>();
  const termFor = (local: string): NamedNode => {
    let term = made.get(local);
    if (!term) made.set(local, (term = terms.namedNode(base + local)));
    return term;
  };
  const build: NamespaceBuilder = (name = '') => termFor(typeof name === 'string' ? name : name.raw.join(''));
  // `name` and `length` are own properties of every function; here they are IRIs like any other.
  Reflect.deleteProperty(build, 'name');
  Reflect.deleteProperty(build, 'length');
  const firstRead = new Proxy(Object.create(null) as object, {
    get: (_target, property, builder) => {
      if (typeof property !== 'string') return undefined;
      const term = termFor(property);
      Object.defineProperty(builder, property, { value: term, enumerable: true });
      return term;
    },
  });
  Object.setPrototypeOf(build, firstRead);
  return build;
}

/** A Turtle artifact as text, or already parsed (the registry parses in a worker thread). */
export type TurtleSource = string | readonly Quad[];

export function quadsOf(source: TurtleSource, artifact: string): readonly Quad[] {
  return typeof source === 'string' ? parseTurtle(source, artifact) : source;
}

/** Parses a Turtle artifact; `artifact` names it in the error ("SHACL shapes", "OWL ontology"). */
export function parseTurtle(text: string, artifact: string): Quad[] {
  try {
    return new Parser({ factory: terms }).parse(text) as Quad[];
  } catch (error) {
    throw new Error(`${artifact} cannot be parsed as Turtle: ${(error as Error).message}`, { cause: error });
  }
}
