import 'reflect-metadata';
import { Directive, Field, ID, InterfaceType, ObjectType } from 'type-graphql';
import { QUESTIONNAIRE_TYPES, type QuestionnaireType, globalId } from '../../../kernel/graphql/global-id.js';

/** What `node(id:)` hands to graphql-js: an object tagged with the type it is. */
export interface NodeSource {
  __typename: string;
  [field: string]: unknown;
}

/**
 * Relay's `Node`: an object the graph can fetch again by its `id` alone. This subgraph answers
 * `node(id:)` and `nodes(ids:)` (the federation's node subgraph): its own records and model versions
 * in full, the indicators subgraph's questionnaire items as the stubs below, which the gateway
 * completes from there.
 */
// Its objects are tagged with their `__typename` (NodeSource), which resolves the type (kernel/graphql/federated-schema.ts).
@InterfaceType('Node', {
  description: "An object with an `id` unique across the whole graph, which `node(id:)` and `nodes(ids:)` fetch again (Relay's Global Object Identification)",
})
export abstract class NodeGql {
  @Field(() => ID, { description: "Unique across the graph: no other object of any type has it. Send it back as it is; don't read anything into it" })
  id!: string;
}

/**
 * A questionnaire item as this subgraph returns it from `node(id:)`: only its `nodeRef` (the id
 * given, hidden from clients), the key the indicators subgraph looks it up by. Its `id` is that
 * subgraph's (`@external`), so every answer about the item, its `id` included, comes from the
 * subgraph that knows whether it exists: an id of an item no questionnaire holds is `null`.
 */
function questionnaireStub(name: QuestionnaireType) {
  @ObjectType(name, { implements: NodeGql })
  @Directive('@key(fields: "nodeRef", resolvable: false)')
  class QuestionnaireStub {
    @Directive('@inaccessible') @Field(() => ID) nodeRef!: string;
    @Directive('@external') @Field(() => ID) id!: string;
  }
  return QuestionnaireStub;
}

export const QUESTIONNAIRE_STUBS = QUESTIONNAIRE_TYPES.map(questionnaireStub);

export const MODEL_VERSION = 'ModelVersion';

/** A model version's global id: its model and version, as a JSON pair (any characters either may hold stay apart). */
export function modelVersionId(model: string, version: string): string {
  return globalId(MODEL_VERSION, JSON.stringify([model, version]));
}

/** The model and version a model version's id names, or null for a key that is not exactly such a pair. */
export function modelVersionOfKey(key: string): { model: string; version: string } | null {
  let pair: unknown;
  try {
    pair = JSON.parse(key);
  } catch {
    return null;
  }
  // One spelling per model version: `[ "m","v"]` is not its id.
  if (!Array.isArray(pair) || pair.length !== 2 || !pair.every((part) => typeof part === 'string') || JSON.stringify(pair) !== key) return null;
  return { model: pair[0], version: pair[1] };
}
