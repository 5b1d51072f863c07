import { compileJsonSchemaValidator } from './json-schema-validator.js';
import { compileShaclValidator } from './shacl/shacl-validator.js';
import { compileOwlValidator } from './owl/owl-validator.js';
import { type PayloadValidator, type ValidatorKind, VALIDATOR_ORDER, resultOf } from './validation-report.js';
import type { ArtifactKind } from '../registry/catalog.js';

/** Artifact texts of one model version; an absent artifact is undefined. */
export interface ArtifactTexts {
  schema?: string;
  shacl?: string;
  owl?: string;
}

export interface CompiledValidators {
  /** One validator per kind, in report order; absent artifacts give a validator that passes. */
  validators: PayloadValidator[];
  problems: Array<{ artifact: ArtifactKind; message: string }>;
  unsupportedConstraints: number;
}

/**
 * Compiles the three validators of a model version once, at registry load. A broken artifact does
 * not stop the others: it is reported, and validating that version answers VALIDATOR_ERROR.
 */
export function compileValidators(texts: ArtifactTexts, rootClass?: string): CompiledValidators {
  const problems: CompiledValidators['problems'] = [];
  const attempt = <T>(artifact: ArtifactKind, build: () => T): T | undefined => {
    try {
      return build();
    } catch (error) {
      problems.push({ artifact, message: `${artifact} artifact cannot be compiled: ${(error as Error).message}` });
      return undefined;
    }
  };
  const schema = texts.schema === undefined ? undefined : attempt('schema', () => JSON.parse(texts.schema!) as unknown);
  const jsonSchema = schema === undefined ? undefined : attempt('schema', () => compileJsonSchemaValidator(schema, rootClass));
  const shacl = texts.shacl === undefined ? undefined : attempt('shacl', () => compileShaclValidator({ shapes: texts.shacl!, schema, rootClass }));
  const owl = texts.owl === undefined ? undefined : attempt('owl', () => compileOwlValidator({ ontology: texts.owl!, shapes: texts.shacl, schema, rootClass }));
  const byKind: Partial<Record<ValidatorKind, PayloadValidator>> = { JsonSchema: jsonSchema, Shacl: shacl, Owl: owl };
  return {
    validators: VALIDATOR_ORDER.map((kind) => byKind[kind] ?? passing(kind)),
    problems,
    unsupportedConstraints: (shacl as { unsupportedConstraints?: number } | undefined)?.unsupportedConstraints ?? 0,
  };
}

function passing(kind: ValidatorKind): PayloadValidator {
  const result = resultOf(kind, []);
  return { kind, validate: async () => result };
}
