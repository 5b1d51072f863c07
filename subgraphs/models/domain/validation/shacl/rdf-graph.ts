import type { Quad, Term } from '@rdfjs/types';
import { IndexedDataset } from './indexed-dataset.js';
import { terms } from './rdf-environment.js';
import { RDF_FIRST, RDF_NIL, RDF_REST } from './rdf-vocabulary.js';

/**
 * Read helpers over a parsed artifact, for the compile-time indexes of shapes and ontologies.
 * A Turtle file may state a triple twice; the graph keeps the repeat rather than pay a duplicate
 * check on every triple of a large artifact, and its readers tolerate repeated answers.
 */
export class RdfGraph {
  readonly dataset: IndexedDataset;

  constructor(quads: readonly Quad[]) {
    this.dataset = new IndexedDataset([...quads], true);
  }

  objects(subject: Term, predicate: string): Term[] {
    return [...this.dataset.match(subject, terms.namedNode(predicate))].map((q) => q.object);
  }

  subjects(predicate: string, object?: Term): Term[] {
    return [...this.dataset.match(null, terms.namedNode(predicate), object)].map((q) => q.subject);
  }

  withPredicate(predicate: string): Quad[] {
    return [...this.dataset.match(null, terms.namedNode(predicate))];
  }

  /** The triples whose subject is `subject`. */
  about(subject: Term): Quad[] {
    return [...this.dataset.match(subject)];
  }

  /** The items of the RDF list starting at `head` (a malformed, cyclic list stops after `size` steps). */
  listItems(head: Term): Term[] {
    const items: Term[] = [];
    for (let node: Term | undefined = head, steps = 0; node && node.value !== RDF_NIL && steps < this.dataset.size; steps++) {
      const item = this.objects(node, RDF_FIRST)[0];
      if (item) items.push(item);
      node = this.objects(node, RDF_REST)[0];
    }
    return items;
  }
}
