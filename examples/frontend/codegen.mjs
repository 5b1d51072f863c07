// The frontend kit's typed documents, as a frontend team generates them with graphql-codegen
// (typescript-operations + typed-document-node, the plugins behind the client preset): one
// TypedDocumentNode per operation of operations/*.graphql, typed against the graph's API schema
// (the committed supergraph here; a team would point it at the gateway or at this file).
//   node examples/frontend/codegen.mjs [supergraph.graphql] [output.ts]
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import federation from '@apollo/federation-internals';
import { codegen } from '@graphql-codegen/core';
import * as typedDocumentNode from '@graphql-codegen/typed-document-node';
import * as typescriptOperations from '@graphql-codegen/typescript-operations';
import { parse, printSchema } from 'graphql';

const here = path.dirname(fileURLToPath(import.meta.url));
const [supergraphFile = path.join(here, '..', '..', 'gateway', 'supergraph.graphql'), output = path.join(here, 'generated', 'graphql.ts')] = process.argv.slice(2);

const apiSchema = federation.Supergraph.build(readFileSync(supergraphFile, 'utf8')).apiSchema().toGraphQLJSSchema();
const documents = readdirSync(path.join(here, 'operations'))
  .filter((file) => file.endsWith('.graphql'))
  .sort()
  .map((file) => ({ location: `operations/${file}`, document: parse(readFileSync(path.join(here, 'operations', file), 'utf8')) }));

const generated = await codegen({
  filename: output,
  schema: parse(printSchema(apiSchema)),
  documents,
  plugins: [{ typescriptOperations: {} }, { typedDocumentNode: {} }],
  pluginMap: { typescriptOperations, typedDocumentNode },
  config: {
    scalars: { JSON: 'unknown', JSONObject: 'Record<string, unknown>', DateTime: 'string' },
    strictScalars: true,
    enumsAsTypes: true,
    useTypeImports: true,
    skipTypename: true,
  },
});
mkdirSync(path.dirname(output), { recursive: true });
writeFileSync(output, generated);
