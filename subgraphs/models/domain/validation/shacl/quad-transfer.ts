import type { Quad, Term } from '@rdfjs/types';
import { terms } from './rdf-environment.js';

/**
 * Parsed quads in a form that crosses threads cheaply: each distinct term once, as a tagged string,
 * and the quads as indexes into them (a transferable buffer). Structured cloning the quads
 * themselves would copy every term object and lose their prototypes (`equals`); rebuilding the
 * published shapes (26,641 triples) from this takes a few milliseconds.
 */
export interface TransferableQuads {
  terms: string[];
  /** subject, predicate, object, graph: four indexes into `terms` per quad */
  quads: Uint32Array;
}

export function encodeQuads(quads: readonly Quad[]): TransferableQuads {
  const indexes = new Map<string, number>();
  const encoded: string[] = [];
  const indexOf = (term: Term): number => {
    const key = termTag(term);
    let index = indexes.get(key);
    if (index === undefined) {
      index = encoded.push(key) - 1;
      indexes.set(key, index);
    }
    return index;
  };
  const positions = new Uint32Array(quads.length * 4);
  quads.forEach((quad, i) => {
    positions.set([indexOf(quad.subject), indexOf(quad.predicate), indexOf(quad.object), indexOf(quad.graph)], i * 4);
  });
  return { terms: encoded, quads: positions };
}

export function decodeQuads(transferable: TransferableQuads): Quad[] {
  const decoded = transferable.terms.map(termOf);
  const positions = transferable.quads;
  const quads: Quad[] = [];
  const at = <T extends Term>(i: number) => decoded[positions[i]!] as T;
  for (let i = 0; i < positions.length; i += 4) {
    quads.push(terms.quad(at<Quad['subject']>(i), at<Quad['predicate']>(i + 1), at<Quad['object']>(i + 2), at<Quad['graph']>(i + 3)));
  }
  return quads;
}

/**
 * `N<iri>`, `B<label>`, `D` (the default graph), `L<datatype IRI>\0<value>` or `@<language>\0<value>`
 * (neither an IRI nor a language tag can hold a NUL; a value may, so it comes last).
 */
function termTag(term: Term): string {
  switch (term.termType) {
    case 'NamedNode':
      return `N${term.value}`;
    case 'BlankNode':
      return `B${term.value}`;
    case 'DefaultGraph':
      return 'D';
    case 'Literal':
      return term.language ? `@${term.language}\0${term.value}` : `L${term.datatype.value}\0${term.value}`;
    default:
      throw new Error(`a parsed artifact holds an unexpected ${term.termType} term`);
  }
}

function termOf(tag: string): Term {
  const rest = tag.slice(1);
  switch (tag[0]) {
    case 'N':
      return terms.namedNode(rest);
    case 'B':
      return terms.blankNode(rest);
    case 'D':
      return terms.defaultGraph();
    default: {
      const end = rest.indexOf('\0');
      const [meta, value] = [rest.slice(0, end), rest.slice(end + 1)];
      return tag[0] === '@' ? terms.literal(value, meta) : terms.literal(value, terms.namedNode(meta));
    }
  }
}
