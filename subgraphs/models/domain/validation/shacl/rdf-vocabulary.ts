/** IRIs the validators read, and the IRI helpers the lifting rules of DECISIONS section 3 use. */
export const RDF = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';
export const RDFS = 'http://www.w3.org/2000/01/rdf-schema#';
export const XSD = 'http://www.w3.org/2001/XMLSchema#';
export const SH = 'http://www.w3.org/ns/shacl#';
export const OWL = 'http://www.w3.org/2002/07/owl#';

export const RDF_TYPE = `${RDF}type`;
export const RDF_FIRST = `${RDF}first`;
export const RDF_REST = `${RDF}rest`;
export const RDF_NIL = `${RDF}nil`;

/** The part after the last `/` or `#` (DECISIONS: "the sh:path IRI's local name"). */
export function localName(iri: string): string {
  return iri.slice(Math.max(iri.lastIndexOf('/'), iri.lastIndexOf('#')) + 1);
}

/** Everything up to and including the last `/` or `#`: where unmatched keys of a class are minted. */
export function namespaceOf(iri: string): string {
  return iri.slice(0, Math.max(iri.lastIndexOf('/'), iri.lastIndexOf('#')) + 1);
}

/** Compact form for messages: `xsd:dateTime`, `sh:Violation`, else the local name. */
export function shortName(iri: string): string {
  for (const [prefix, ns] of [
    ['xsd', XSD],
    ['sh', SH],
    ['owl', OWL],
    ['rdf', RDF],
    ['rdfs', RDFS],
  ] as const) {
    if (iri.startsWith(ns)) return `${prefix}:${iri.slice(ns.length)}`;
  }
  return localName(iri) || iri;
}
