import 'reflect-metadata';
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { composeServices } from '@apollo/composition';
import { printSubgraphSchema } from '@apollo/subgraph';
import { type DocumentNode, type GraphQLError, parse } from 'graphql';
import { subgraphSchemaForComposition } from '../subgraphs/index.js';
import { SUBGRAPH_NAMES } from '../subgraphs/names.js';
import { SUPERGRAPH_PATH } from './committed-supergraph.js';

export interface CompositionError {
  code: string;
  message: string;
}

export interface Composition {
  supergraphSdl?: string;
  errors: CompositionError[];
}

/** A subgraph's schema as composition reads it: its SDL with the federation directives. */
export interface SubgraphSdl {
  name: string;
  sdl: string;
}

let built: Promise<SubgraphSdl[]> | undefined;

/**
 * The SDL of every subgraph, built from the code (never from hand-edited files): once per process,
 * the code being what it is while it runs (a check or a publish asks for it up to three times, a
 * test process running the commands in turn many more); each caller gets its own array.
 */
export async function subgraphSdls(): Promise<SubgraphSdl[]> {
  built ??= Promise.all(SUBGRAPH_NAMES.map(async (name) => ({ name, sdl: printSubgraphSchema(await subgraphSchemaForComposition(name)) }))).catch((error: unknown) => {
    built = undefined;
    throw error;
  });
  return (await built).map((subgraph) => ({ ...subgraph }));
}

/** Composes the subgraph schemas built from the code. */
export async function composeSupergraph(): Promise<Composition> {
  return composeSubgraphs(await subgraphSdls());
}

/** Where the supergraph says a subgraph is: a placeholder, since the gateway is given its data sources. */
export function placeholderUrl(subgraph: string): string {
  return `http://${subgraph}.subgraph.invalid/graphql`;
}

/** The subgraphs as a composition library takes them (Apollo's and The Guild's alike). */
export function serviceDefinitions(subgraphs: SubgraphSdl[]): Array<{ name: string; url: string; typeDefs: DocumentNode }> {
  return subgraphs.map(({ name, sdl }) => ({ name, url: placeholderUrl(name), typeDefs: parse(sdl) }));
}

/** A composition library's result, its errors by their codes. */
export function compositionOf(result: { supergraphSdl?: string; errors?: readonly GraphQLError[] }): Composition {
  if (result.errors) return { errors: result.errors.map((e) => ({ code: String(e.extensions?.code ?? 'COMPOSITION_ERROR'), message: e.message })) };
  return { supergraphSdl: result.supergraphSdl, errors: [] };
}

export const APOLLO_COMPOSER = '@apollo/composition';

/** Composes subgraph SDLs with Apollo's composition: the supergraph the gateway serves. */
export function composeSubgraphs(subgraphs: SubgraphSdl[]): Composition {
  return compositionOf(composeServices(serviceDefinitions(subgraphs)));
}

async function main(): Promise<void> {
  const { supergraphSdl, errors } = await composeSupergraph();
  if (!supergraphSdl) {
    for (const error of errors) console.error(`${error.code}: ${error.message}`);
    process.exit(2);
  }
  await writeFile(SUPERGRAPH_PATH, supergraphSdl);
  console.log(`wrote ${SUPERGRAPH_PATH}`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
