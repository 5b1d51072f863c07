import { type DocumentNode, Kind, parse, print, visit } from 'graphql';
import { openDatabase } from '../../database/database.js';
import { DEFAULT_DATABASE_LIMITS } from '../../database/limits.js';
import { supergraphVersion } from '../../gateway/committed-supergraph.js';
import { composeSubgraphs, subgraphSdls } from '../../gateway/compose.js';
import type { PublishedSubgraph, SupergraphVersion } from '../../gateway/schema-registry/supergraph-versions.js';
import { SupergraphVersions } from '../../gateway/schema-registry/supergraph-versions.js';
import { stopAtScopeEnd } from './cleanup.js';

/**
 * The schema registry of a records database, as a publisher writes it (the rows of
 * `supergraph_versions` through the store): `publish` composes the subgraphs with Apollo's
 * composition and appends the supergraph; `appendUnchecked` appends any SDL, as a careless or
 * hostile writer of the table could. Closed at the end of the scope that opened it.
 */
export interface SupergraphRegistry {
  publish(subgraphs: PublishedSubgraph[], rollbackOf?: number): Promise<SupergraphVersion>;
  appendUnchecked(supergraphSdl: string, subgraphs: PublishedSubgraph[]): Promise<SupergraphVersion>;
  /** The newest version, whoever appended it. */
  newest(): Promise<SupergraphVersion | undefined>;
  close(): Promise<void>;
}

export async function openSupergraphRegistry(databaseUrl: string): Promise<SupergraphRegistry> {
  const database = await openDatabase(databaseUrl, { limits: { ...DEFAULT_DATABASE_LIMITS, poolSize: 1 } });
  await database.migrate();
  const versions = new SupergraphVersions(database);
  const append = (supergraphSdl: string, subgraphs: PublishedSubgraph[], rollbackOf: number | null) =>
    versions.append(async () => ({
      supergraphSdl,
      supergraphHash: supergraphVersion(supergraphSdl),
      subgraphs,
      subgraph: rollbackOf === null ? (subgraphs.at(-1)?.name ?? null) : null,
      changelog: [],
      author: 'test',
      commit: null,
      forcedReason: null,
      rollbackOf,
    }));
  return {
    publish: (subgraphs, rollbackOf) => append(composed(subgraphs), subgraphs, rollbackOf ?? null),
    appendUnchecked: (supergraphSdl, subgraphs) => append(supergraphSdl, subgraphs, null),
    newest: () => versions.newest(),
    close: stopAtScopeEnd(() => database.close()),
  };
}

/** The supergraph of these subgraphs, composed as the gateway's own is (gateway/compose.ts). */
export function composed(subgraphs: Array<{ name: string; sdl: string }>): string {
  const { supergraphSdl, errors } = composeSubgraphs(subgraphs);
  if (!supergraphSdl) throw new Error(`the test's subgraphs do not compose: ${errors.map((e) => e.message).join('; ')}`);
  return supergraphSdl;
}

/** The code's three subgraphs as published with no routing URL of their own (each gateway's configured one, or in-process). */
export async function codeSubgraphs(): Promise<PublishedSubgraph[]> {
  return (await subgraphSdls()).map(({ name, sdl }) => ({ name, url: null, sdl }));
}

/** A subgraph's SDL without one of its fields (`Type.field`): a breaking change. */
export function withoutField(subgraph: PublishedSubgraph, coordinate: string): PublishedSubgraph {
  const [type, field] = coordinate.split('.');
  const document = visit(parse(subgraph.sdl), {
    [Kind.OBJECT_TYPE_DEFINITION]: (node) => (node.name.value !== type ? undefined : { ...node, fields: node.fields?.filter((f) => f.name.value !== field) }),
    [Kind.OBJECT_TYPE_EXTENSION]: (node) => (node.name.value !== type ? undefined : { ...node, fields: node.fields?.filter((f) => f.name.value !== field) }),
  }) as DocumentNode;
  return { ...subgraph, sdl: print(document) };
}
