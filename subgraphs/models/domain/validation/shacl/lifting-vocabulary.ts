import type { NamedNode } from '@rdfjs/types';
import { localName, namespaceOf } from './rdf-vocabulary.js';
import { terms } from './rdf-environment.js';

/** What a JSON key of a node lifts to. */
export interface PropertyTerm {
  readonly predicate: NamedNode;
  /** Datatype given to scalar values that can carry it (see literalFor). */
  readonly datatype?: NamedNode;
  /** Classes a nested object under this key becomes an instance of. */
  readonly nodeClasses: readonly NamedNode[];
}

/**
 * One property an artifact declares for a class, with the JSON keys that may name it, in the
 * contract's order of precedence (for SHACL: sh:path local name, sh:name, JSON Schema key paired by
 * description). A key that no rule gives is undefined.
 */
export interface PropertyCandidate {
  readonly predicate: string;
  readonly keys: readonly (string | undefined)[];
  readonly datatype?: string;
  readonly nodeClasses: readonly string[];
}

export interface ClassVocabulary {
  readonly byKey: ReadonlyMap<string, PropertyTerm>;
  /** The key to name a property that the payload lacks: the schema's spelling when there is one. */
  readonly keyByPredicate: ReadonlyMap<string, string>;
}

/** The lifter's view of an artifact: per-class keys, and how a payload may name a class. */
export interface LiftingVocabulary {
  classVocabulary(classIri: string): ClassVocabulary | undefined;
  resolveClass(name: string): ClassResolution;
  /** Where keys of nodes without a class are minted (the namespace most classes share). */
  readonly defaultNamespace: string;
}

export type ClassResolution = { iri: string } | { error: string };

/**
 * Builds the key table of one class. Rules are applied rank by rank over all properties, so an
 * earlier rule always wins (a local name beats another property's sh:name). Candidates sharing a
 * predicate (several shapes may constrain one path) merge into one term.
 */
export function classVocabulary(candidates: readonly PropertyCandidate[]): ClassVocabulary {
  const termsByPredicate = mergeByPredicate(candidates);
  const byKey = new Map<string, PropertyTerm>();
  const ranks = Math.max(0, ...candidates.map((c) => c.keys.length));
  for (let rank = 0; rank < ranks; rank++) {
    for (const candidate of candidates) {
      const key = candidate.keys[rank];
      if (key !== undefined && !byKey.has(key)) byKey.set(key, termsByPredicate.get(candidate.predicate)!);
    }
  }
  const keyByPredicate = new Map<string, string>();
  for (let rank = ranks - 1; rank >= 0; rank--) {
    for (const candidate of candidates) {
      const key = candidate.keys[rank];
      if (key !== undefined && !keyByPredicate.has(candidate.predicate) && byKey.get(key)?.predicate.value === candidate.predicate) {
        keyByPredicate.set(candidate.predicate, key);
      }
    }
  }
  return { byKey, keyByPredicate };
}

function mergeByPredicate(candidates: readonly PropertyCandidate[]): Map<string, PropertyTerm> {
  const merged = new Map<string, { datatype?: string; nodeClasses: Set<string> }>();
  for (const candidate of candidates) {
    const entry = merged.get(candidate.predicate) ?? { nodeClasses: new Set<string>() };
    entry.datatype ??= candidate.datatype;
    candidate.nodeClasses.forEach((c) => entry.nodeClasses.add(c));
    merged.set(candidate.predicate, entry);
  }
  return new Map(
    [...merged].map(([predicate, entry]) => [
      predicate,
      {
        predicate: terms.namedNode(predicate),
        datatype: entry.datatype === undefined ? undefined : terms.namedNode(entry.datatype),
        nodeClasses: [...entry.nodeClasses].map((c) => terms.namedNode(c)),
      },
    ]),
  );
}

/**
 * DECISIONS: a class is named by a full IRI, or by a local name matching exactly one of the
 * artifact's classes. A name containing `:` is taken as an IRI even when the artifact does not
 * know it (then nothing constrains its instances).
 */
export function classResolver(classIris: Iterable<string>): (name: string) => ClassResolution {
  const known = new Set(classIris);
  const byLocalName = new Map<string, string[]>();
  for (const iri of known) {
    const name = localName(iri);
    byLocalName.set(name, [...(byLocalName.get(name) ?? []), iri]);
  }
  return (name) => {
    if (known.has(name) || name.includes(':')) return { iri: name };
    const matches = byLocalName.get(name) ?? [];
    if (matches.length === 1) return { iri: matches[0] };
    return {
      error: matches.length === 0 ? `no class is named ${name}` : `${matches.length} classes are named ${name}: ${matches.join(', ')}`,
    };
  };
}

/** The namespace shared by most of the classes (ties: the first seen). */
export function mostCommonNamespace(classIris: Iterable<string>): string {
  const counts = new Map<string, number>();
  for (const iri of classIris) {
    const namespace = namespaceOf(iri);
    counts.set(namespace, (counts.get(namespace) ?? 0) + 1);
  }
  let best = '';
  let bestCount = 0;
  for (const [namespace, count] of counts) {
    if (count > bestCount) [best, bestCount] = [namespace, count];
  }
  return best;
}
