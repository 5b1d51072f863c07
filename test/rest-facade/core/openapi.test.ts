import { NO_AUTH, type TestSystem, call, startInProcessSystem } from '../../support/system.js';
import { miniModelHost } from '../../support/mini-model.js';
import type { ArtifactHost } from '../../support/artifact-host.js';
import { openApiProblems } from '../../support/openapi.js';

/** Every path of doc 01 with its method. */
const DOC_01_PATHS: Array<[string, string]> = [
  ['post', '/models/{model}/versions/{version}:validate'],
  ['post', '/models/{model}/versions/{version}:create'],
  ['post', '/models/{model}/versions/{version}:query'],
  ['get', '/models'],
  ['get', '/models/{model}/versions/{version}/schema'],
  ['get', '/models/{model}/versions/{version}/shacl'],
  ['get', '/models/{model}/versions/{version}/owl'],
  ['get', '/openapi.json'],
  ['get', '/admin/health'],
  ['get', '/admin/version'],
  ['get', '/admin/models/count'],
  ['get', '/admin/ready'],
  ['get', '/admin/status'],
  ['get', '/admin/metrics'],
  ['post', '/admin/registry/refresh'],
];

let host: ArtifactHost;
let sut: TestSystem;

beforeAll(async () => {
  const mini = await miniModelHost();
  host = mini.host;
  sut = await startInProcessSystem({ ...NO_AUTH, ...mini.env });
});
afterAll(async () => {
  await sut?.stop();
  await host?.stop();
});

test('the core facade serves a valid OpenAPI 3.1 document with every path of doc 01', async () => {
  const answer = await call(sut.url('core'), 'GET', '/openapi.json');
  expect(answer.status).toBe(200);
  expect(answer.json.openapi).toBe('3.1.0');
  expect(await openApiProblems(answer.json)).toBe('');
  for (const [method, path] of DOC_01_PATHS) {
    expect({ method, path, operation: answer.json.paths[path]?.[method] }).toEqual({
      method,
      path,
      operation: expect.objectContaining({ summary: expect.any(String), responses: expect.objectContaining({}) }),
    });
  }
  expect(Object.keys(answer.json.paths)).toHaveLength(DOC_01_PATHS.length);
});
