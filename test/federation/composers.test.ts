import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type ASTNode, type DocumentNode, Kind, type GraphQLSchema, isEnumType, isObjectType, isSpecifiedScalarType, isUnionType, lexicographicSortSchema, parse, printSchema } from 'graphql';
import { type SubgraphSdl, composeSubgraphs, placeholderUrl, subgraphSdls } from '../../gateway/compose.js';
import { composeWithGuild } from '../../gateway/guild-composition.js';
import { apiSchemaOf } from '../../server/schema-check.js';
import { GRAFBASE_CLI, grafbaseMissing, writeGrafbaseConfig } from '../support/grafbase.js';

/**
 * Issue 39: a graph every composer accepts. The subgraphs as the code declares them (the SDL
 * `npm run schema:print` prints) compose unedited under Apollo's composition (the gateway's),
 * The Guild's (Hive's registry, for Hive Router) and Grafbase's CLI, and each gives clients the
 * same graph: portable to Hive Router, Grafbase and Cosmo (docs/GRAPH.md, "Composition").
 */

function grafbaseAvailable(): boolean {
  const missing = grafbaseMissing();
  if (missing === null) return true;
  if (process.env.CI === 'true') throw new Error(`${missing}; under CI it is required`);
  console.warn(`skipping: ${missing}`);
  return false;
}

let subgraphs: SubgraphSdl[];
beforeAll(async () => {
  subgraphs = await subgraphSdls();
});

const printedApi = (schema: GraphQLSchema) => printSchema(lexicographicSortSchema(schema));

async function apiOf(compose: (subgraphs: SubgraphSdl[]) => { supergraphSdl?: string; errors: Array<{ code: string }> }): Promise<GraphQLSchema> {
  const { supergraphSdl, errors } = compose(subgraphs);
  expect(errors.map((e) => e.code)).toEqual([]);
  return apiSchemaOf(supergraphSdl!);
}

test("Apollo's and The Guild's composition accept the subgraphs unedited and give the same API schema", async () => {
  const [apollo, guild] = await Promise.all([apiOf(composeSubgraphs), apiOf(composeWithGuild)]);
  expect(printedApi(guild)).toBe(printedApi(apollo));
  // Each subgraph's part of the one health field, and nothing of how the parts are keyed.
  const health = apollo.getType('Health');
  expect(isObjectType(health) && Object.keys(health.getFields()).sort()).toEqual(['impact', 'indicators', 'readiness', 'records', 'registry', 'status', 'version']);
});

/** What a client can name in a schema: each type's fields, enum values or union members, leaving out what is `@inaccessible` and the federation's own (`join__`, `link__`). */
type Shape = Record<string, string[]>;

function apiShape(api: GraphQLSchema): Shape {
  const types = Object.values(api.getTypeMap()).filter((type) => !type.name.startsWith('__') && !isSpecifiedScalarType(type));
  return Object.fromEntries(
    types.map((type) => {
      const names = isEnumType(type) ? type.getValues() : isUnionType(type) ? type.getTypes() : 'getFields' in type ? Object.values(type.getFields()) : [];
      return [type.name, names.map((n) => n.name).sort()];
    }),
  );
}

function supergraphShape(supergraph: DocumentNode): Shape {
  const hidden = (node: ASTNode) => 'directives' in node && (node.directives ?? []).some((d) => d.name.value === 'inaccessible');
  const shape: Shape = {};
  for (const definition of supergraph.definitions) {
    if (!('name' in definition) || !definition.name || definition.kind === Kind.DIRECTIVE_DEFINITION || /^(join|link)__/.test(definition.name.value) || hidden(definition)) continue;
    const members =
      definition.kind === Kind.ENUM_TYPE_DEFINITION ? definition.values : definition.kind === Kind.UNION_TYPE_DEFINITION ? definition.types : 'fields' in definition ? definition.fields : [];
    shape[definition.name.value] = (members ?? [])
      .filter((m) => !hidden(m))
      .map((m) => m.name.value)
      .sort();
  }
  return shape;
}

/** `grafbase compose` on the subgraphs' SDL files, each with its name and URL (grafbase.toml), offline. */
function grafbaseCompose(dir: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const config = writeGrafbaseConfig(
    dir,
    subgraphs.map(({ name, sdl }) => ({ name, sdl, url: placeholderUrl(name) })),
  );
  return new Promise((resolve) => {
    // HOME: the CLI's own files (credentials, caches) stay in the test's directory.
    execFile(GRAFBASE_CLI, ['compose', '--config', config], { cwd: dir, env: { PATH: process.env.PATH, HOME: dir }, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
    );
  });
}

(grafbaseAvailable() ? test : test.skip)("Grafbase's CLI composes the printed SDL files unedited: the types, fields and values of Apollo's API schema", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'grafbase-compose-'));
  try {
    const { code, stdout, stderr } = await grafbaseCompose(dir);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(supergraphShape(parse(stdout))).toEqual(apiShape(await apiOf(composeSubgraphs)));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
