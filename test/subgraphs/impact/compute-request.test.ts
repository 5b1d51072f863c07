import { DomainError } from '../../../kernel/errors.js';
import { computeImpactInput, validateComputeRequest } from '../../../rest-facade/impact/compute-request.js';
import { parseComputeBody } from '../../../rest-facade/impact/compute-body.js';
import type { RequestIssue } from '../../../rest-facade/impact/compute-request.js';
import { ImpactService } from '../../../subgraphs/impact/domain/impact-service.js';
import type { BackgroundProjectReader } from '../../../subgraphs/impact/domain/impact-service.js';

const VALID = {
  model_versions: { product_system: '0.1.0', lci_dataset: '0.1.0', integrated_lca: '0.1.0' },
  product_system: { name: 'battery pack' },
};

/** What the REST path answers for a raw body (the facade reads and validates it, the service computes): the DomainError thrown. */
function answer(raw: string | Uint8Array): DomainError {
  try {
    service().compute(computeImpactInput(validateComputeRequest(parseComputeBody(raw))));
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('compute returned');
}

/** A reader that fails the test if compute ever touches the background project. */
function service(): ImpactService {
  const untouchable: BackgroundProjectReader = {
    read: () => Promise.reject(new Error('compute must not open the background project')),
    engineVersions: () => {
      throw new Error('compute must not read engine versions');
    },
  };
  return new ImpactService({ backgroundProjectDir: '/nowhere', coreBaseUrl: 'http://127.0.0.1:8080' }, untouchable);
}

function issuesOf(raw: string | Uint8Array): RequestIssue[] {
  const error = answer(raw);
  expect(error.code).toBe('UNPROCESSABLE');
  return error.details as RequestIssue[];
}

function issuesOfValue(body: unknown): RequestIssue[] {
  return issuesOf(JSON.stringify(body));
}

describe('compute: schema-valid requests', () => {
  test('answer CALCULATION_NOT_IMPLEMENTED without touching the background project', () => {
    const error = answer(JSON.stringify(VALID));
    expect(error.code).toBe('CALCULATION_NOT_IMPLEMENTED');
    expect(error.message).toMatch(/not available/);
  });

  test('the same through the GraphQL path (a typed input)', () => {
    const input = { modelVersions: { productSystem: '0.1.0', lciDataset: '0.1.0', integratedLca: '0.1.0' }, productSystem: { name: 'battery pack' }, lciDatasets: [], assessmentContext: {} };
    expect(() => service().compute(input)).toThrow(expect.objectContaining({ code: 'CALCULATION_NOT_IMPLEMENTED' }));
  });

  test('get the documented defaults and keep extra fields out of the request', () => {
    expect(validateComputeRequest({ ...VALID, unknown: 1 })).toEqual({ ...VALID, lci_datasets: [], assessment_context: {} });
  });

  test('accept empty lists, empty objects and a UTF-8 BOM before the JSON', () => {
    const body = { ...VALID, lci_datasets: [{}, { id: 'x' }], assessment_context: {} };
    expect(answer(`\uFEFF${JSON.stringify(body)}`).code).toBe('CALCULATION_NOT_IMPLEMENTED');
    expect(answer(Buffer.from(`\uFEFF${JSON.stringify(body)}`)).code).toBe('CALCULATION_NOT_IMPLEMENTED');
  });
});

describe('compute: 422 for each missing required field', () => {
  test.each(['model_versions', 'product_system'])('top-level %s', (field) => {
    const body: Record<string, unknown> = { ...VALID };
    delete body[field];
    expect(issuesOfValue(body)).toEqual([{ type: 'missing', loc: ['body', field], msg: 'Field required', input: body }]);
  });

  test.each(['product_system', 'lci_dataset', 'integrated_lca'])('model_versions.%s', (field) => {
    const versions: Record<string, unknown> = { ...VALID.model_versions };
    delete versions[field];
    expect(issuesOfValue({ ...VALID, model_versions: versions })).toEqual([{ type: 'missing', loc: ['body', 'model_versions', field], msg: 'Field required', input: versions }]);
  });

  test('no body at all, or a JSON null body', () => {
    const expected = [{ type: 'missing', loc: ['body'], msg: 'Field required', input: null }];
    expect(issuesOf('')).toEqual(expected);
    expect(issuesOf(new Uint8Array())).toEqual(expected);
    expect(issuesOf('null')).toEqual(expected);
  });
});

describe('compute: 422 for each field of an incompatible JSON type', () => {
  const WRONG_VALUES: unknown[] = ['text', 42, true, null, [], {}];

  test.each(WRONG_VALUES.filter((value) => typeof value !== 'object' || value === null || Array.isArray(value)))('the body itself: %j', (body) => {
    const expected = body === null ? 'missing' : 'model_attributes_type';
    expect(issuesOfValue(body).map((issue) => issue.type)).toEqual([expected]);
  });

  const cases: Array<[string, Array<string | number>, string, (value: unknown) => unknown]> = [
    ['model_versions', ['model_versions'], 'model_attributes_type', (value) => ({ ...VALID, model_versions: value })],
    ['product_system', ['product_system'], 'dict_type', (value) => ({ ...VALID, product_system: value })],
    ['lci_datasets', ['lci_datasets'], 'list_type', (value) => ({ ...VALID, lci_datasets: value })],
    ['lci_datasets[0]', ['lci_datasets', 0], 'dict_type', (value) => ({ ...VALID, lci_datasets: [value] })],
    ['assessment_context', ['assessment_context'], 'dict_type', (value) => ({ ...VALID, assessment_context: value })],
    ...['product_system', 'lci_dataset', 'integrated_lca'].map((field): [string, Array<string | number>, string, (value: unknown) => unknown] => [
      `model_versions.${field}`,
      ['model_versions', field],
      'string_type',
      (value) => ({ ...VALID, model_versions: { ...VALID.model_versions, [field]: value } }),
    ]),
  ];

  const MESSAGES: Record<string, string> = {
    model_attributes_type: 'Input should be a valid dictionary or object to extract fields from',
    dict_type: 'Input should be a valid dictionary',
    list_type: 'Input should be a valid list',
    string_type: 'Input should be a valid string',
  };

  test.each(cases)('%s', (_, loc, type, build) => {
    const accepted = (value: unknown) =>
      type === 'string_type' ? typeof value === 'string' : type === 'list_type' ? Array.isArray(value) : typeof value === 'object' && value !== null && !Array.isArray(value);
    for (const value of WRONG_VALUES.filter((candidate) => !accepted(candidate))) {
      expect(issuesOfValue(build(value))).toEqual([{ type, loc: ['body', ...loc], msg: MESSAGES[type], input: value }]);
    }
  });

  test('every issue is reported, in field order', () => {
    const body = { model_versions: { product_system: 1 }, lci_datasets: [{}, 'x', 3], assessment_context: [] };
    expect(issuesOfValue(body).map((issue) => [issue.type, issue.loc.join('.')])).toEqual([
      ['string_type', 'body.model_versions.product_system'],
      ['missing', 'body.model_versions.lci_dataset'],
      ['missing', 'body.model_versions.integrated_lca'],
      ['missing', 'body.product_system'],
      ['dict_type', 'body.lci_datasets.1'],
      ['dict_type', 'body.lci_datasets.2'],
      ['dict_type', 'body.assessment_context'],
    ]);
  });
});

describe('compute: malformed JSON', () => {
  test('is json_invalid located where Python stops, with its message in ctx', () => {
    expect(issuesOf('{"model_versions": }')).toEqual([{ type: 'json_invalid', loc: ['body', 19], msg: 'JSON decode error', input: {}, ctx: { error: 'Expecting value' } }]);
  });

  test('positions count code points, as Python does', () => {
    expect(issuesOf('{"😀": }')[0]?.loc).toEqual(['body', 6]);
  });

  test('NaN and Infinity are not JSON (Python would accept them)', () => {
    expect(issuesOf('{"a": NaN}')[0]).toMatchObject({ type: 'json_invalid', loc: ['body', 6], ctx: { error: 'Expecting value' } });
  });

  test("bytes that are not UTF-8 are FastAPI's 400, not a 422", () => {
    expect(answer(Uint8Array.from([0x7b, 0xff, 0x7d])).code).toBe('BAD_REQUEST');
  });

  test("nesting deeper than the stack is FastAPI's 400 (Python's RecursionError)", () => {
    expect(answer('['.repeat(200_000)).code).toBe('BAD_REQUEST');
  });
});

/**
 * Generated by running each raw body through CPython 3.11's `json.loads` and pydantic 2.13's
 * validation of the reference model with `from_attributes=True`, the way FastAPI reads a body
 * (`errors(include_url=False)`, loc prefixed with "body"); "valid" bodies reach the 501.
 */
const PYTHON_REFERENCE: Array<[string, unknown]> = [
  ['', [{ type: 'missing', loc: ['body'], msg: 'Field required', input: null }]],
  ['null', [{ type: 'missing', loc: ['body'], msg: 'Field required', input: null }]],
  ['"text"', [{ type: 'model_attributes_type', loc: ['body'], msg: 'Input should be a valid dictionary or object to extract fields from', input: 'text' }]],
  ['42', [{ type: 'model_attributes_type', loc: ['body'], msg: 'Input should be a valid dictionary or object to extract fields from', input: 42 }]],
  ['[]', [{ type: 'model_attributes_type', loc: ['body'], msg: 'Input should be a valid dictionary or object to extract fields from', input: [] }]],
  ['[{"a":1}]', [{ type: 'model_attributes_type', loc: ['body'], msg: 'Input should be a valid dictionary or object to extract fields from', input: [{ a: 1 }] }]],
  ['true', [{ type: 'model_attributes_type', loc: ['body'], msg: 'Input should be a valid dictionary or object to extract fields from', input: true }]],
  [
    '{}',
    [
      { type: 'missing', loc: ['body', 'model_versions'], msg: 'Field required', input: {} },
      { type: 'missing', loc: ['body', 'product_system'], msg: 'Field required', input: {} },
    ],
  ],
  ['{"model_versions":{"product_system":"1","lci_dataset":"1","integrated_lca":"1"},"product_system":{}}', 'valid'],
  ['{"model_versions":{"product_system":"1","lci_dataset":"1","integrated_lca":"1"},"product_system":{},"lci_datasets":[{}],"assessment_context":{"x":1},"extra":1}', 'valid'],
  [
    '{"model_versions":{},"product_system":{}}',
    [
      { type: 'missing', loc: ['body', 'model_versions', 'product_system'], msg: 'Field required', input: {} },
      { type: 'missing', loc: ['body', 'model_versions', 'lci_dataset'], msg: 'Field required', input: {} },
      { type: 'missing', loc: ['body', 'model_versions', 'integrated_lca'], msg: 'Field required', input: {} },
    ],
  ],
  [
    '{"model_versions":{"product_system":1,"lci_dataset":null,"integrated_lca":["x"]},"product_system":{}}',
    [
      { type: 'string_type', loc: ['body', 'model_versions', 'product_system'], msg: 'Input should be a valid string', input: 1 },
      { type: 'string_type', loc: ['body', 'model_versions', 'lci_dataset'], msg: 'Input should be a valid string', input: null },
      { type: 'string_type', loc: ['body', 'model_versions', 'integrated_lca'], msg: 'Input should be a valid string', input: ['x'] },
    ],
  ],
  [
    '{"model_versions":"0.1","product_system":[]}',
    [
      { type: 'model_attributes_type', loc: ['body', 'model_versions'], msg: 'Input should be a valid dictionary or object to extract fields from', input: '0.1' },
      { type: 'dict_type', loc: ['body', 'product_system'], msg: 'Input should be a valid dictionary', input: [] },
    ],
  ],
  [
    '{"model_versions":null,"product_system":null}',
    [
      { type: 'model_attributes_type', loc: ['body', 'model_versions'], msg: 'Input should be a valid dictionary or object to extract fields from', input: null },
      { type: 'dict_type', loc: ['body', 'product_system'], msg: 'Input should be a valid dictionary', input: null },
    ],
  ],
  [
    '{"model_versions":[],"product_system":"x"}',
    [
      { type: 'model_attributes_type', loc: ['body', 'model_versions'], msg: 'Input should be a valid dictionary or object to extract fields from', input: [] },
      { type: 'dict_type', loc: ['body', 'product_system'], msg: 'Input should be a valid dictionary', input: 'x' },
    ],
  ],
  [
    '{"model_versions":5,"product_system":true}',
    [
      { type: 'model_attributes_type', loc: ['body', 'model_versions'], msg: 'Input should be a valid dictionary or object to extract fields from', input: 5 },
      { type: 'dict_type', loc: ['body', 'product_system'], msg: 'Input should be a valid dictionary', input: true },
    ],
  ],
  [
    '{"model_versions":{"product_system":"1","lci_dataset":"1","integrated_lca":"1"},"product_system":{},"lci_datasets":{}}',
    [{ type: 'list_type', loc: ['body', 'lci_datasets'], msg: 'Input should be a valid list', input: {} }],
  ],
  [
    '{"model_versions":{"product_system":"1","lci_dataset":"1","integrated_lca":"1"},"product_system":{},"lci_datasets":null,"assessment_context":null}',
    [
      { type: 'list_type', loc: ['body', 'lci_datasets'], msg: 'Input should be a valid list', input: null },
      { type: 'dict_type', loc: ['body', 'assessment_context'], msg: 'Input should be a valid dictionary', input: null },
    ],
  ],
  [
    '{"model_versions":{"product_system":"1","lci_dataset":"1","integrated_lca":"1"},"product_system":{},"lci_datasets":"abc","assessment_context":[]}',
    [
      { type: 'list_type', loc: ['body', 'lci_datasets'], msg: 'Input should be a valid list', input: 'abc' },
      { type: 'dict_type', loc: ['body', 'assessment_context'], msg: 'Input should be a valid dictionary', input: [] },
    ],
  ],
  [
    '{"model_versions":{"product_system":"1","lci_dataset":"1","integrated_lca":"1"},"product_system":{},"lci_datasets":[{}, 1, "x", [], null, {"a":2}],"assessment_context":"ctx"}',
    [
      { type: 'dict_type', loc: ['body', 'lci_datasets', 1], msg: 'Input should be a valid dictionary', input: 1 },
      { type: 'dict_type', loc: ['body', 'lci_datasets', 2], msg: 'Input should be a valid dictionary', input: 'x' },
      { type: 'dict_type', loc: ['body', 'lci_datasets', 3], msg: 'Input should be a valid dictionary', input: [] },
      { type: 'dict_type', loc: ['body', 'lci_datasets', 4], msg: 'Input should be a valid dictionary', input: null },
      { type: 'dict_type', loc: ['body', 'assessment_context'], msg: 'Input should be a valid dictionary', input: 'ctx' },
    ],
  ],
  [
    '{"model_versions":{"product_system":"1","lci_dataset":"1","integrated_lca":"1"},"product_system":{},"lci_datasets":[],"assessment_context":5}',
    [{ type: 'dict_type', loc: ['body', 'assessment_context'], msg: 'Input should be a valid dictionary', input: 5 }],
  ],
  [
    '{"model_versions":{"product_system":true,"lci_dataset":"1","integrated_lca":2.5}}',
    [
      { type: 'string_type', loc: ['body', 'model_versions', 'product_system'], msg: 'Input should be a valid string', input: true },
      { type: 'string_type', loc: ['body', 'model_versions', 'integrated_lca'], msg: 'Input should be a valid string', input: 2.5 },
      { type: 'missing', loc: ['body', 'product_system'], msg: 'Field required', input: { model_versions: { product_system: true, lci_dataset: '1', integrated_lca: 2.5 } } },
    ],
  ],
  [
    '{"model_versions":{"product_system":"1","lci_dataset":"1","integrated_lca":"1"},"product_system":{},"lci_datasets":5}',
    [{ type: 'list_type', loc: ['body', 'lci_datasets'], msg: 'Input should be a valid list', input: 5 }],
  ],
  ['{', [{ type: 'json_invalid', loc: ['body', 1], msg: 'JSON decode error', input: {}, ctx: { error: 'Expecting property name enclosed in double quotes' } }]],
  ['{"a"', [{ type: 'json_invalid', loc: ['body', 4], msg: 'JSON decode error', input: {}, ctx: { error: "Expecting ':' delimiter" } }]],
  ['{"a":', [{ type: 'json_invalid', loc: ['body', 5], msg: 'JSON decode error', input: {}, ctx: { error: 'Expecting value' } }]],
  ['{"a":}', [{ type: 'json_invalid', loc: ['body', 5], msg: 'JSON decode error', input: {}, ctx: { error: 'Expecting value' } }]],
  ['{"a" 1}', [{ type: 'json_invalid', loc: ['body', 5], msg: 'JSON decode error', input: {}, ctx: { error: "Expecting ':' delimiter" } }]],
  ['{"a":1,}', [{ type: 'json_invalid', loc: ['body', 7], msg: 'JSON decode error', input: {}, ctx: { error: 'Expecting property name enclosed in double quotes' } }]],
  ['{"a":1 "b":2}', [{ type: 'json_invalid', loc: ['body', 7], msg: 'JSON decode error', input: {}, ctx: { error: "Expecting ',' delimiter" } }]],
  ["{'a':1}", [{ type: 'json_invalid', loc: ['body', 1], msg: 'JSON decode error', input: {}, ctx: { error: 'Expecting property name enclosed in double quotes' } }]],
  ['[1,]', [{ type: 'json_invalid', loc: ['body', 3], msg: 'JSON decode error', input: {}, ctx: { error: 'Expecting value' } }]],
  ['[1 2]', [{ type: 'json_invalid', loc: ['body', 3], msg: 'JSON decode error', input: {}, ctx: { error: "Expecting ',' delimiter" } }]],
  ['[', [{ type: 'json_invalid', loc: ['body', 1], msg: 'JSON decode error', input: {}, ctx: { error: 'Expecting value' } }]],
  ['{} x', [{ type: 'json_invalid', loc: ['body', 3], msg: 'JSON decode error', input: {}, ctx: { error: 'Extra data' } }]],
  ['{}{}', [{ type: 'json_invalid', loc: ['body', 2], msg: 'JSON decode error', input: {}, ctx: { error: 'Extra data' } }]],
  ['   ', [{ type: 'json_invalid', loc: ['body', 3], msg: 'JSON decode error', input: {}, ctx: { error: 'Expecting value' } }]],
  [
    '﻿{}',
    [
      { type: 'missing', loc: ['body', 'model_versions'], msg: 'Field required', input: {} },
      { type: 'missing', loc: ['body', 'product_system'], msg: 'Field required', input: {} },
    ],
  ],
  ['nul', [{ type: 'json_invalid', loc: ['body', 0], msg: 'JSON decode error', input: {}, ctx: { error: 'Expecting value' } }]],
  ['tru', [{ type: 'json_invalid', loc: ['body', 0], msg: 'JSON decode error', input: {}, ctx: { error: 'Expecting value' } }]],
  ['-', [{ type: 'json_invalid', loc: ['body', 0], msg: 'JSON decode error', input: {}, ctx: { error: 'Expecting value' } }]],
  ['-x', [{ type: 'json_invalid', loc: ['body', 0], msg: 'JSON decode error', input: {}, ctx: { error: 'Expecting value' } }]],
  ['01', [{ type: 'json_invalid', loc: ['body', 1], msg: 'JSON decode error', input: {}, ctx: { error: 'Extra data' } }]],
  ['1.', [{ type: 'json_invalid', loc: ['body', 1], msg: 'JSON decode error', input: {}, ctx: { error: 'Extra data' } }]],
  ['1e', [{ type: 'json_invalid', loc: ['body', 1], msg: 'JSON decode error', input: {}, ctx: { error: 'Extra data' } }]],
  ['1.5e+', [{ type: 'json_invalid', loc: ['body', 3], msg: 'JSON decode error', input: {}, ctx: { error: 'Extra data' } }]],
  ['"abc', [{ type: 'json_invalid', loc: ['body', 0], msg: 'JSON decode error', input: {}, ctx: { error: 'Unterminated string starting at' } }]],
  ['"a\\qb"', [{ type: 'json_invalid', loc: ['body', 2], msg: 'JSON decode error', input: {}, ctx: { error: 'Invalid \\escape' } }]],
  ['"a\\u12g4"', [{ type: 'json_invalid', loc: ['body', 3], msg: 'JSON decode error', input: {}, ctx: { error: 'Invalid \\uXXXX escape' } }]],
  ['"a\\u12"', [{ type: 'json_invalid', loc: ['body', 3], msg: 'JSON decode error', input: {}, ctx: { error: 'Invalid \\uXXXX escape' } }]],
  ['"a\\u1234', [{ type: 'json_invalid', loc: ['body', 3], msg: 'JSON decode error', input: {}, ctx: { error: 'Invalid \\uXXXX escape' } }]],
  ['"a\\ud800\\uzzzz"', [{ type: 'json_invalid', loc: ['body', 9], msg: 'JSON decode error', input: {}, ctx: { error: 'Invalid \\uXXXX escape' } }]],
  ['"a\tb"', [{ type: 'json_invalid', loc: ['body', 2], msg: 'JSON decode error', input: {}, ctx: { error: 'Invalid control character at' } }]],
  ['"a\\', [{ type: 'json_invalid', loc: ['body', 0], msg: 'JSON decode error', input: {}, ctx: { error: 'Unterminated string starting at' } }]],
  ['{"é😀": 1, "b": }', [{ type: 'json_invalid', loc: ['body', 15], msg: 'JSON decode error', input: {}, ctx: { error: 'Expecting value' } }]],
  ['{"a": [1, 2, {"b": tru}]}', [{ type: 'json_invalid', loc: ['body', 19], msg: 'JSON decode error', input: {}, ctx: { error: 'Expecting value' } }]],
  [
    '{\n  "model_versions": {\n    "product_system": "1",\n  }\n}',
    [{ type: 'json_invalid', loc: ['body', 53], msg: 'JSON decode error', input: {}, ctx: { error: 'Expecting property name enclosed in double quotes' } }],
  ],
  ['{"a":1}\n\n  ]', [{ type: 'json_invalid', loc: ['body', 11], msg: 'JSON decode error', input: {}, ctx: { error: 'Extra data' } }]],
];

describe('compute: parity with FastAPI + pydantic v2', () => {
  test.each(PYTHON_REFERENCE)('%j', (raw, expected) => {
    const error = answer(raw);
    if (expected === 'valid') expect(error.code).toBe('CALCULATION_NOT_IMPLEMENTED');
    else expect({ code: error.code, detail: error.details }).toEqual({ code: 'UNPROCESSABLE', detail: expected });
  });
});
