import SHACLValidator from 'rdf-validate-shacl';
import type { NamedNode, Term } from '@rdfjs/types';
import type { ValidationResult } from 'rdf-validate-shacl/src/validation-report.js';
import { type PayloadValidator, type Severity, type ValidatorResult, type Violation, resultOf } from '../validation-report.js';
import { IndexedDataset } from './indexed-dataset.js';
import { type LiftingVocabulary, type ClassVocabulary, classResolver, classVocabulary, mostCommonNamespace } from './lifting-vocabulary.js';
import { type LiftedPayload, liftPayload, propertyPath } from './payload-lifter.js';
import { type TurtleSource, quadsOf, rdfEnvironment, terms } from './rdf-environment.js';
import { SH, localName, shortName } from './rdf-vocabulary.js';
import { schemaKeysByDescription } from './schema-pairing.js';
import { ShapesIndex } from './shapes-index.js';
import { isJsonObject } from '../../../../../kernel/json.js';

export interface ShaclValidatorOptions {
  /** The shapes graph. */
  shapes: TurtleSource;
  /** The parsed JSON Schema of the same model, for the description rule of key matching. */
  schema?: unknown;
  /** The catalog's root_class: a full IRI or a local name matching exactly one target class. */
  rootClass?: string;
}

export interface ShaclValidator extends PayloadValidator {
  /** SHACL-SPARQL constraints of the shapes graph that this validator reports instead of checking. */
  readonly unsupportedConstraints: number;
}

/** The shapes graph compiled for lifting: shared with the OWL validator, which lifts payloads the same way. */
export interface CompiledShapes {
  readonly index: ShapesIndex;
  readonly vocabulary: LiftingVocabulary;
  readonly rootClass?: NamedNode;
}

/**
 * The registry compiles a version's SHACL and OWL validators back to back from the same shapes,
 * schema and root class: the second call reuses the first's work (a parse and index of ~300 ms on
 * the published shapes). Only the last compilation is kept.
 */
let lastCompiled: { shapes: TurtleSource; schema: unknown; rootClass: string | undefined; compiled: CompiledShapes } | undefined;

export function compileShapes(shapes: TurtleSource, schema: unknown, rootClass: string | undefined): CompiledShapes {
  const last = lastCompiled;
  if (last && last.shapes === shapes && last.schema === schema && last.rootClass === rootClass) return last.compiled;
  const compiled = compileShapesAnew(shapes, schema, rootClass);
  lastCompiled = { shapes, schema, rootClass, compiled };
  return compiled;
}

/**
 * JSON-LD contexts (the catalog's `context_url`, first rule of DECISIONS' key matching) are not
 * read: keys are matched by sh:path local name, sh:name, then JSON Schema description.
 */
function compileShapesAnew(shapes: TurtleSource, schema: unknown, rootClass: string | undefined): CompiledShapes {
  const index = new ShapesIndex(quadsOf(shapes, 'SHACL shapes'));
  const resolveClass = classResolver(index.targetClasses);
  const root = rootClass === undefined ? undefined : resolveClass(rootClass);
  if (root && 'error' in root) throw new Error(`root class ${rootClass} cannot be used with these shapes: ${root.error}`);
  if (root && !index.targetClasses.has(root.iri)) throw new Error(`root class ${rootClass} cannot be used with these shapes: no shape targets it`);
  const schemaKeys = schemaKeysByDescription(schema, root?.iri, index.targetClasses, (c) => index.propertyShapes(c));
  // Each class's key table is built when a payload first meets the class: a payload meets a handful
  // of the published shapes' 1,264 classes, and building them all held the event loop 90 ms per load.
  const vocabularies = new Map<string, ClassVocabulary>();
  const vocabularyOf = (classIri: string): ClassVocabulary => {
    const candidates = index.propertyShapes(classIri).map((shape) => ({
      predicate: shape.predicate,
      keys: [localName(shape.predicate), shape.name, schemaKeys.get(classIri)?.get(shape.predicate)],
      datatype: shape.datatype,
      nodeClasses: shape.nodeClasses,
    }));
    return classVocabulary(candidates);
  };
  const vocabulary: LiftingVocabulary = {
    classVocabulary: (classIri) => {
      if (!index.targetClasses.has(classIri)) return undefined;
      let found = vocabularies.get(classIri);
      if (!found) vocabularies.set(classIri, (found = vocabularyOf(classIri)));
      return found;
    },
    resolveClass,
    defaultNamespace: mostCommonNamespace(index.targetClasses),
  };
  return { index, vocabulary, rootClass: root && terms.namedNode(root.iri) };
}

/** Throws (a plain Error naming the problem) when the shapes do not parse or the root class is unusable. */
export function compileShaclValidator(options: ShaclValidatorOptions): ShaclValidator {
  const compiled = compileShapes(options.shapes, options.schema, options.rootClass);
  const validator = new ShapesValidator(compiled);
  if (compiled.rootClass) validator.engineFor([compiled.rootClass]);
  return validator;
}

/** Engines kept per set of root classes (one in practice: the catalog's root class). */
const MAX_ENGINES = 64;

/**
 * maxNodeChecks 0 turns off the engine's per-(node, shape) recursion counter, which serialises both
 * terms on every check (an eighth of the validation time). A lifted payload is a tree, so shapes
 * recursing through property paths end with the data; a shape that refers back to itself on the
 * same node (undefined in SHACL 1.0, section 3.4.3) overflows the stack and is reported as an
 * engine failure rather than looping.
 */
const ENGINE_OPTIONS = { factory: rdfEnvironment, maxNodeChecks: 0 };

const SEVERITIES: Record<string, Severity> = {
  [`${SH}Violation`]: 'Error',
  [`${SH}Warning`]: 'Warning',
  [`${SH}Info`]: 'Info',
};

class ShapesValidator implements ShaclValidator {
  readonly kind = 'Shacl' as const;
  readonly unsupportedConstraints: number;
  private readonly engines = new Map<string, SHACLValidator>();

  constructor(private readonly compiled: CompiledShapes) {
    this.unsupportedConstraints = compiled.index.unsupportedCount;
  }

  async validate(payload: unknown): Promise<ValidatorResult> {
    if (!isJsonObject(payload)) return resultOf('Shacl', [{ path: '$', message: 'the payload must be a JSON object', severity: 'Error' }]);
    const lifted = liftPayload(payload, this.compiled.vocabulary, this.compiled.rootClass);
    const engine = this.engineFor(lifted.root.classes);
    const report = await engine.validate(new IndexedDataset(lifted.quads, true)).catch((error: Error) => {
      throw new Error(`the SHACL engine failed: ${error.message}`);
    });
    const unsupported = this.compiled.index.unsupportedFor(lifted.classes).map((u): Violation => ({ path: '$', message: u.message, severity: 'Info', constraint: 'sh:SPARQLConstraintComponent' }));
    return resultOf('Shacl', [...lifted.problems, ...report.results.map((r) => this.violationOf(r, lifted)), ...unsupported]);
  }

  /**
   * A payload's nodes are instances of the root's classes and of the classes reachable from them
   * through sh:class, so one engine per root serves every payload with that root. The engine keeps
   * its parsed shapes between calls; building one costs tens of milliseconds, validating with it
   * about one. Root classes no shape targets add no shapes, and are left out of the key so that
   * `@type` IRIs a payload makes up all share the engine of untyped payloads.
   */
  engineFor(rootClasses: readonly NamedNode[]): SHACLValidator {
    const targeted = rootClasses.map((c) => c.value).filter((c) => this.compiled.index.targetClasses.has(c));
    const key = targeted.sort().join(' ');
    let engine = this.engines.get(key);
    if (engine) {
      this.engines.delete(key);
    } else {
      const classes = this.compiled.index.reachableClasses(targeted);
      engine = new SHACLValidator(this.compiled.index.engineShapes(classes), ENGINE_OPTIONS);
      if (this.engines.size >= MAX_ENGINES) this.engines.delete(this.engines.keys().next().value!);
    }
    this.engines.set(key, engine);
    return engine;
  }

  private violationOf(result: ValidationResult, lifted: LiftedPayload): Violation {
    const located = this.locate(result, lifted);
    const violation: Violation = {
      path: located.path,
      message: result.message[0]?.value ?? `${shortName(result.sourceConstraintComponent.value)} not satisfied`,
      severity: SEVERITIES[result.severity?.value] ?? 'Error',
      constraint: shortName(result.sourceConstraintComponent.value),
    };
    if (located.value !== undefined) violation.value = located.value;
    return violation;
  }

  /** Maps a result back to the payload: the value's own path, else where the missing property would be, else the focus node. */
  private locate(result: ValidationResult, lifted: LiftedPayload): { path: string; value?: unknown } {
    const focus = lifted.nodes.get(blankLabel(result.focusNode));
    if (!focus) return { path: '$' };
    const predicate = result.path?.termType === 'NamedNode' ? result.path.value : undefined;
    const valueTerm = result.value;
    if (predicate !== undefined) {
      const value = valueTerm && focus.properties.get(predicate)?.find((v) => v.term.equals(valueTerm));
      if (value) return { path: value.path, value: value.kind === 'literal' ? value.json : undefined };
      return { path: propertyPath(focus, predicate, this.compiled.vocabulary) };
    }
    return { path: focus.path };
  }
}

function blankLabel(term: Term | null): string {
  return term?.termType === 'BlankNode' ? term.value : '';
}
