import { setImmediate as nextTurn } from 'node:timers/promises';
import { jsonSchemaValidator } from './json-schema-validator.js';
import { compileShaclValidator } from './shacl/shacl-validator.js';
import { compileOwlValidator } from './owl/owl-validator.js';
import { decodeQuads } from './shacl/quad-transfer.js';
import { type ArtifactProblem, type PreparedArtifacts, problemRecorder } from './prepare-artifacts.js';
import { type PayloadValidator, type ValidatorKind, VALIDATOR_ORDER, resultOf } from './validation-report.js';
import { ARTIFACT_KINDS } from '../registry/catalog.js';

export interface CompiledValidators {
  /** One validator per kind, in report order; absent artifacts give a validator that passes. */
  validators: PayloadValidator[];
  /** In artifact order (schema, shacl, owl). */
  problems: ArtifactProblem[];
  unsupportedConstraints: number;
}

/**
 * Finishes the validators of a prepared version (`prepareArtifacts`), once, at registry load, on
 * the thread that validates: validators are functions and indexed graphs, which cannot cross
 * threads. What is left is the quick part (evaluating the JSON Schema code, indexing the parsed
 * graphs, building the SHACL engine of the root class), and the event loop gets a turn between the
 * validators, so requests are answered in between.
 */
export async function compileValidators(prepared: PreparedArtifacts, rootClass?: string): Promise<CompiledValidators> {
  const problems = [...prepared.problems];
  const attempt = problemRecorder(problems);
  const { schema, schemaCode } = prepared;
  const jsonSchema = schemaCode === undefined ? undefined : attempt('schema', () => jsonSchemaValidator(schemaCode));
  await nextTurn();
  const shapes = prepared.shacl && decodeQuads(prepared.shacl);
  const shacl = shapes && attempt('shacl', () => compileShaclValidator({ shapes, schema, rootClass }));
  await nextTurn();
  const ontology = prepared.owl && decodeQuads(prepared.owl);
  const owl = ontology && attempt('owl', () => compileOwlValidator({ ontology, shapes, schema, rootClass }));
  const byKind: Partial<Record<ValidatorKind, PayloadValidator>> = { JsonSchema: jsonSchema, Shacl: shacl, Owl: owl };
  return {
    validators: VALIDATOR_ORDER.map((kind) => byKind[kind] ?? passing(kind)),
    problems: problems.sort((a, b) => ARTIFACT_KINDS.indexOf(a.artifact) - ARTIFACT_KINDS.indexOf(b.artifact)),
    unsupportedConstraints: shacl?.unsupportedConstraints ?? 0,
  };
}

function passing(kind: ValidatorKind): PayloadValidator {
  const result = resultOf(kind, []);
  return { kind, validate: async () => result };
}
