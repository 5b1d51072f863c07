import type { ArtifactKind } from '../registry/catalog.js';
import { jsonSchemaCode } from './json-schema-validator.js';
import { parseTurtle } from './shacl/rdf-environment.js';
import { type TransferableQuads, encodeQuads } from './shacl/quad-transfer.js';

/** Artifact texts of one model version; an absent artifact is undefined. */
export interface ArtifactTexts {
  schema?: string;
  shacl?: string;
  owl?: string;
}

export interface ArtifactProblem {
  artifact: ArtifactKind;
  message: string;
}

/**
 * A version's artifacts parsed, and its JSON Schema compiled to code: the expensive part of
 * loading a version (Turtle parsing and ajv's compilation, about 90% of the time), as plain data
 * that a worker thread can post back. `compileValidators` finishes it on the thread that validates.
 */
export interface PreparedArtifacts {
  /** The parsed JSON Schema: the SHACL and OWL validators pair keys by its descriptions. */
  schema?: unknown;
  /** The JSON Schema validator as code (`jsonSchemaCode`). */
  schemaCode?: string;
  shacl?: TransferableQuads;
  owl?: TransferableQuads;
  problems: ArtifactProblem[];
}

/** A broken artifact does not stop the others: it is reported, and validating that version answers VALIDATOR_ERROR. */
export function prepareArtifacts(texts: ArtifactTexts, rootClass?: string): PreparedArtifacts {
  const problems: ArtifactProblem[] = [];
  const attempt = problemRecorder(problems);
  const turtle = (kind: 'shacl' | 'owl', text: string | undefined, artifact: string) => (text === undefined ? undefined : attempt(kind, () => encodeQuads(parseTurtle(text, artifact))));
  const schema = texts.schema === undefined ? undefined : attempt('schema', () => JSON.parse(texts.schema!) as unknown);
  return {
    schema,
    schemaCode: schema === undefined ? undefined : attempt('schema', () => jsonSchemaCode(schema, rootClass)),
    shacl: turtle('shacl', texts.shacl, 'SHACL shapes'),
    owl: turtle('owl', texts.owl, 'OWL ontology'),
    problems,
  };
}

/** The buffers a worker hands over with its answer instead of copying them. */
export function transferablesOf(prepared: PreparedArtifacts): ArrayBuffer[] {
  return [prepared.shacl, prepared.owl].flatMap((quads) => (quads ? [quads.quads.buffer as ArrayBuffer] : []));
}

/** Runs one step of compiling an artifact; a step that throws is recorded as the artifact's problem. */
export function problemRecorder(problems: ArtifactProblem[]) {
  return <T>(artifact: ArtifactKind, build: () => T): T | undefined => {
    try {
      return build();
    } catch (error) {
      problems.push(compileProblem(artifact, (error as Error).message));
      return undefined;
    }
  };
}

export function compileProblem(artifact: ArtifactKind, reason: string): ArtifactProblem {
  return { artifact, message: `${artifact} artifact cannot be compiled: ${reason}` };
}
