import { createRequire } from 'node:module';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import standaloneModule from 'ajv/dist/standalone/index.js';
import addFormatsModule, { type FormatsPlugin } from 'ajv-formats';
import { type PayloadValidator, type Violation, resultOf } from './validation-report.js';

// ajv-formats and ajv's standalone module are CommonJS: under NodeNext their default export arrives wrapped in `default`.
const addFormats = (addFormatsModule as unknown as { default: FormatsPlugin }).default;
const standaloneCode = (standaloneModule as unknown as { default: (ajv: Ajv, validate: ValidateFunction) => string }).default;

/** The draft named by `$schema` picks the ajv flavour; draft-07 when absent or unknown. */
function ajvFor(schema: Record<string, unknown>): Ajv {
  const draft = String(schema.$schema ?? '');
  // `source`: the compiled validator can be written out as code (ajv's standalone mode).
  const options = { allErrors: true, strict: false, validateFormats: true, code: { source: true } };
  const ajv = draft.includes('2020-12') ? new Ajv2020(options) : draft.includes('2019-09') ? new Ajv2019(options) : new Ajv(options);
  addFormats(ajv);
  return ajv;
}

/**
 * Compiles a JSON Schema artifact once, into the code of its validator (ajv's standalone code, a
 * CommonJS module): the expensive part, which the registry runs in a worker thread, since a compiled
 * function cannot cross threads and its code can. With a root class that the schema defines,
 * payloads are checked against `$defs/<rootClass>` (or draft-07 `definitions/`) instead of the
 * permissive root.
 */
export function jsonSchemaCode(schema: unknown, rootClass?: string): string {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    throw new Error('JSON Schema artifact is not a JSON object');
  }
  const document = schema as Record<string, unknown>;
  const ajv = ajvFor(document);
  const id = typeof document.$id === 'string' ? document.$id : 'urn:cerise:artifact:schema';
  ajv.addSchema({ ...document, $id: id });
  return standaloneCode(ajv, rootCheck(ajv, id, document, rootClass));
}

/** The code requires ajv's runtime helpers and ajv-formats' formats; nothing else. */
const requireDependency = createRequire(import.meta.url);
const RUNTIME_MODULE = /^ajv(-formats)?\/dist\/[\w/-]+$/;

/** The validator of `jsonSchemaCode`'s code: evaluating it takes about a millisecond. */
export function jsonSchemaValidator(code: string): PayloadValidator {
  const module = { exports: {} as { default?: ValidateFunction } };
  const require = (id: string): unknown => {
    if (!RUNTIME_MODULE.test(id)) throw new Error(`JSON Schema validator code requires an unexpected module: ${id}`);
    return requireDependency(id);
  };
  new Function('require', 'module', 'exports', code)(require, module, module.exports);
  const check = module.exports.default!;
  return {
    kind: 'JsonSchema',
    async validate(payload) {
      return resultOf('JsonSchema', check(payload) ? [] : (check.errors ?? []).map(toViolation));
    },
  };
}

function rootCheck(ajv: Ajv, id: string, schema: Record<string, unknown>, rootClass?: string): ValidateFunction {
  const section = rootClass && ['$defs', 'definitions'].find((key) => hasKey(schema[key], rootClass));
  const ref = section ? `${id}#/${section}/${rootClass}` : id;
  const validate = ajv.getSchema(ref);
  if (!validate) throw new Error(`JSON Schema could not be compiled at ${ref}`);
  return validate;
}

function hasKey(value: unknown, key: string): boolean {
  return typeof value === 'object' && value !== null && Object.prototype.hasOwnProperty.call(value, key);
}

/** ajv reports missing and extra properties at their parent; the contract wants the property's path. */
function toViolation(error: ErrorObject): Violation {
  const params = error.params as Record<string, unknown>;
  const segments = pointerSegments(error.instancePath);
  const property = (params.missingProperty ?? params.additionalProperty ?? params.unevaluatedProperty) as string | undefined;
  if (property !== undefined) segments.push(property);
  return {
    path: toJsonPath(segments),
    message: property !== undefined ? `${property}: ${error.message}` : (error.message ?? 'invalid'),
    severity: 'Error',
    constraint: error.keyword,
  };
}

function pointerSegments(pointer: string): string[] {
  if (!pointer) return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

export function toJsonPath(segments: Array<string | number>): string {
  return segments.reduce<string>((path, segment) => {
    if (typeof segment === 'number' || /^\d+$/.test(segment)) return `${path}[${segment}]`;
    return /^[A-Za-z_][A-Za-z0-9_-]*$/.test(segment) ? `${path}.${segment}` : `${path}[${JSON.stringify(segment)}]`;
  }, '$');
}
