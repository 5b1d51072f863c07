import { DomainError } from '../../kernel/errors.js';
import { isJsonObject, type JsonObject } from '../../kernel/json.js';
import type { ImpactComputeMutationVariables } from '../generated/operations.js';

/**
 * The compute request of doc 03 part II (DECISIONS section 6) as FastAPI + pydantic v2 read it in the
 * reference implementation, and its 422 errors in their shape and wording:
 * `{detail: [{type, loc: ["body", …], msg, input}]}`. An HTTP concern: the graph's input types
 * guarantee what is checked here, so the facade answers these before it calls the graph. The
 * `UNPROCESSABLE` DomainError carries the list as its `details`; the envelope wraps it in `{detail: …}`.
 */
export interface ModelVersions {
  product_system: string;
  lci_dataset: string;
  integrated_lca: string;
}

export interface ComputeRequest {
  model_versions: ModelVersions;
  product_system: JsonObject;
  lci_datasets: JsonObject[];
  assessment_context: JsonObject;
}

/** One pydantic error; `ctx` appears only where FastAPI sends it (`json_invalid`). */
export interface RequestIssue {
  type: string;
  loc: Array<string | number>;
  msg: string;
  input: unknown;
  ctx?: Record<string, unknown>;
}

const MESSAGES = {
  missing: 'Field required',
  // FastAPI validates bodies with `from_attributes=True`, so a non-dict where a model is expected gets
  // this message rather than `dict_type`'s.
  model_attributes_type: 'Input should be a valid dictionary or object to extract fields from',
  dict_type: 'Input should be a valid dictionary',
  list_type: 'Input should be a valid list',
  string_type: 'Input should be a valid string',
} as const;

type IssueType = keyof typeof MESSAGES;
type Loc = Array<string | number>;
type Check = (value: unknown, loc: Loc) => RequestIssue[];

const MODEL_VERSION_FIELDS = ['product_system', 'lci_dataset', 'integrated_lca'] as const;

/**
 * The request, or UNPROCESSABLE listing every issue in pydantic's order (fields in declaration order,
 * nested issues in place). `undefined`/`null` is FastAPI's "no body": one `missing` at `["body"]`.
 */
export function validateComputeRequest(body: unknown): ComputeRequest {
  if (body === undefined || body === null) throw unprocessable([issue('missing', [], null)]);
  if (!isJsonObject(body)) throw unprocessable([issue('model_attributes_type', [], body)]);
  const issues = [
    ...requiredField(body, 'model_versions', [], modelVersionsIssues),
    ...requiredField(body, 'product_system', [], dictIssues),
    ...optionalField(body, 'lci_datasets', [], listOfDictsIssues),
    ...optionalField(body, 'assessment_context', [], dictIssues),
  ];
  if (issues.length > 0) throw unprocessable(issues);
  return {
    model_versions: body.model_versions as ModelVersions,
    product_system: body.product_system as JsonObject,
    lci_datasets: (body.lci_datasets ?? []) as JsonObject[],
    assessment_context: (body.assessment_context ?? {}) as JsonObject,
  };
}

function requiredField(parent: JsonObject, name: string, loc: Loc, check: Check): RequestIssue[] {
  const at = [...loc, name];
  // pydantic reports a missing field with the enclosing object as its input
  return Object.hasOwn(parent, name) ? check(parent[name], at) : [issue('missing', at, parent)];
}

function optionalField(parent: JsonObject, name: string, loc: Loc, check: Check): RequestIssue[] {
  // An explicit null is a value, not an absence: it fails the type check like pydantic's does.
  return Object.hasOwn(parent, name) ? check(parent[name], [...loc, name]) : [];
}

const dictIssues: Check = (value, loc) => (isJsonObject(value) ? [] : [issue('dict_type', loc, value)]);

const stringIssues: Check = (value, loc) => (typeof value === 'string' ? [] : [issue('string_type', loc, value)]);

const listOfDictsIssues: Check = (value, loc) => (Array.isArray(value) ? value.flatMap((item, index) => dictIssues(item, [...loc, index])) : [issue('list_type', loc, value)]);

const modelVersionsIssues: Check = (value, loc) =>
  isJsonObject(value) ? MODEL_VERSION_FIELDS.flatMap((name) => requiredField(value, name, loc, stringIssues)) : [issue('model_attributes_type', loc, value)];

function issue(type: IssueType, loc: Loc, input: unknown): RequestIssue {
  return { type, loc: ['body', ...loc], msg: MESSAGES[type], input };
}

function unprocessable(issues: RequestIssue[]): DomainError {
  return new DomainError('UNPROCESSABLE', 'the request body does not match the compute request schema', issues);
}

/** The valid request as the mutation's input, the documented defaults filled in. */
export function computeImpactInput(request: ComputeRequest): ImpactComputeMutationVariables['input'] {
  const versions = request.model_versions;
  return {
    modelVersions: { productSystem: versions.product_system, lciDataset: versions.lci_dataset, integratedLca: versions.integrated_lca },
    productSystem: request.product_system,
    lciDatasets: request.lci_datasets,
    assessmentContext: request.assessment_context,
  };
}
