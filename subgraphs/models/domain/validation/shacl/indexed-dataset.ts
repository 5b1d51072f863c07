import type { DatasetCore, Quad, Term } from '@rdfjs/types';

/**
 * The RDF/JS dataset handed to rdf-validate-shacl (through its `factory` option). The engine calls
 * `match` thousands of times per validation, mostly with a subject or an object, and iterates or
 * counts the answer. The default dataset answers each `match` with a fully indexed new dataset,
 * which is most of the engine's time on small graphs; here an answer is a plain array wrapper, and
 * indexes (one per position) are built on the first lookup that needs them.
 */
export class IndexedDataset implements DatasetCore<Quad> {
  private quads: Quad[];
  private quadKeys: Set<string> | undefined;
  private indexes: Partial<Record<QuadPosition, Map<string, Quad[]>>> | undefined;

  /** `distinct` says the caller guarantees no duplicates, which skips the duplicate check. */
  constructor(quads: Iterable<Quad> = [], distinct = false) {
    if (distinct) {
      this.quads = Array.isArray(quads) ? quads : [...quads];
    } else {
      this.quads = [];
      for (const quad of quads) this.add(quad);
    }
  }

  get size(): number {
    return this.quads.length;
  }

  add(quad: Quad): this {
    const keys = this.keys();
    const key = quadKey(quad);
    if (keys.has(key)) return this;
    keys.add(key);
    this.quads.push(quad);
    this.indexes = undefined;
    return this;
  }

  delete(quad: Quad): this {
    const key = quadKey(quad);
    if (!this.keys().delete(key)) return this;
    this.quads = this.quads.filter((q) => quadKey(q) !== key);
    this.indexes = undefined;
    return this;
  }

  has(quad: Quad): boolean {
    return this.keys().has(quadKey(quad));
  }

  match(subject?: Term | null, predicate?: Term | null, object?: Term | null, graph?: Term | null): IndexedDataset {
    const candidates = subject ? this.lookup('subject', subject) : object ? this.lookup('object', object) : predicate ? this.lookup('predicate', predicate) : this.quads;
    const found: Quad[] = [];
    for (const quad of candidates) {
      if (subject && !subject.equals(quad.subject)) continue;
      if (predicate && !predicate.equals(quad.predicate)) continue;
      if (object && !object.equals(quad.object)) continue;
      if (graph && !graph.equals(quad.graph)) continue;
      found.push(quad);
    }
    return new IndexedDataset(found, true);
  }

  [Symbol.iterator](): Iterator<Quad> {
    return this.quads[Symbol.iterator]();
  }

  private keys(): Set<string> {
    this.quadKeys ??= new Set(this.quads.map(quadKey));
    return this.quadKeys;
  }

  private lookup(position: QuadPosition, term: Term): readonly Quad[] {
    this.indexes ??= {};
    const index = (this.indexes[position] ??= indexBy(this.quads, position));
    return index.get(bucketKey(term)) ?? NO_QUADS;
  }
}

type QuadPosition = 'subject' | 'predicate' | 'object';
const NO_QUADS: readonly Quad[] = [];

function indexBy(quads: readonly Quad[], position: QuadPosition): Map<string, Quad[]> {
  const index = new Map<string, Quad[]>();
  for (const quad of quads) {
    const key = bucketKey(quad[position]);
    const bucket = index.get(key);
    if (bucket) bucket.push(quad);
    else index.set(key, [quad]);
  }
  return index;
}

/**
 * The index bucket of a term: its value alone. Terms of different kinds or datatypes that share a
 * value land in one bucket and `match` tells them apart with `equals`; building no composite key is
 * what makes indexing a fresh payload graph cheap.
 */
function bucketKey(term: Term): string {
  return term.value;
}

/** A string that tells terms apart, for duplicate detection. */
export function termKey(term: Term): string {
  switch (term.termType) {
    case 'NamedNode':
      return `<${term.value}>`;
    case 'BlankNode':
      return `_:${term.value}`;
    case 'Literal':
      return term.language ? `"${term.value}"@${term.language}` : `"${term.value}"^^${term.datatype.value}`;
    default:
      return `${term.termType}:${term.value}`;
  }
}

function quadKey(quad: Quad): string {
  return `${termKey(quad.subject)} ${termKey(quad.predicate)} ${termKey(quad.object)} ${termKey(quad.graph)}`;
}
