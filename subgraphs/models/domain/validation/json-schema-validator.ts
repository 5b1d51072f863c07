import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule, { type FormatsPlugin } from 'ajv-formats';
import { type PayloadValidator, type Violation, resultOf } from './validation-report.js';

// ajv-formats is CommonJS: under NodeNext its default export arrives wrapped in `default`.
const addFormats = (addFormatsModule as unknown as { default: FormatsPlugin }).default;

/** The draft named by `$schema` picks the ajv flavour; draft-07 when absent or unknown. */
function ajvFor(schema: Record<string, unknown>): Ajv {
  const draft = String(schema.$schema ?? '');
  const options = { allErrors: true, strict: false, validateFormats: true };
  const ajv = draft.includes('2020-12')
    ? new Ajv2020(options)
    : draft.includes('2019-09')
      ? new Ajv2019(options)
      : new Ajv(options);
  addFormats(ajv);
  return ajv;
}

/**
 * Compiles a JSON Schema artifact once. With a root class that the schema defines, payloads are
 * checked against `$defs/<rootClass>` (or draft-07 `definitions/`) instead of the permissive root.
 */
export function compileJsonSchemaValidator(schema: unknown, rootClass?: string): PayloadValidator {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    throw new Error('JSON Schema artifact is not a JSON object');
  }
  const document = schema as Record<string, unknown>;
  const ajv = ajvFor(document);
  const id = typeof document.$id === 'string' ? document.$id : 'urn:cerise:artifact:schema';
  ajv.addSchema({ ...document, $id: id });
  const check = rootCheck(ajv, id, document, rootClass);
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
  return pointer.slice(1).split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

export function toJsonPath(segments: Array<string | number>): string {
  return segments.reduce<string>((path, segment) => {
    if (typeof segment === 'number' || /^\d+$/.test(segment)) return `${path}[${segment}]`;
    return /^[A-Za-z_][A-Za-z0-9_-]*$/.test(segment) ? `${path}.${segment}` : `${path}[${JSON.stringify(segment)}]`;
  }, '$');
}
