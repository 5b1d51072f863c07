import 'reflect-metadata';
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { composeServices } from '@apollo/composition';
import { printSubgraphSchema } from '@apollo/subgraph';
import { parse } from 'graphql';
import { subgraphSchemaForComposition } from '../subgraphs/index.js';
import { SUBGRAPH_NAMES } from '../subgraphs/names.js';
import { SUPERGRAPH_PATH } from './committed-supergraph.js';

export interface Composition {
  supergraphSdl?: string;
  errors: Array<{ code: string; message: string }>;
}

/** A subgraph's schema as composition reads it: its SDL with the federation directives. */
export interface SubgraphSdl {
  name: string;
  sdl: string;
}

/** The SDL of every subgraph, built from the code (never from hand-edited files). */
export function subgraphSdls(): Promise<SubgraphSdl[]> {
  return Promise.all(SUBGRAPH_NAMES.map(async (name) => ({ name, sdl: printSubgraphSchema(await subgraphSchemaForComposition(name)) })));
}

/** Composes the subgraph schemas built from the code. */
export async function composeSupergraph(): Promise<Composition> {
  return composeSubgraphs(await subgraphSdls());
}

/** Composes subgraph SDLs; the URLs are placeholders, since the gateway is given its data sources. */
export function composeSubgraphs(subgraphs: SubgraphSdl[]): Composition {
  const result = composeServices(subgraphs.map(({ name, sdl }) => ({ name, url: `http://${name}.subgraph.invalid/graphql`, typeDefs: parse(sdl) })));
  if (result.errors) {
    return { errors: result.errors.map((e) => ({ code: String(e.extensions?.code ?? 'COMPOSITION_ERROR'), message: e.message })) };
  }
  return { supergraphSdl: result.supergraphSdl, errors: [] };
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
