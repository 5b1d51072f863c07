import { JwksServer } from '../../support/jwks-server.js';
import { miniModelHost } from '../../support/mini-model.js';
import { type TestSystem, callOnNewConnection, startTestSystem } from '../../support/system.js';

/**
 * Issue "The contract holds as deployed": each worker keeps its own JWKS cache (deliberately: no
 * shared state between processes), and the contract still holds with the default worker count. A
 * token is answered alike on every worker (each fetched the key set for itself), and a token whose
 * key the provider does not publish is 401 on every worker.
 */
let idp: JwksServer;
let sut: TestSystem;

beforeAll(async () => {
  const mini = await miniModelHost();
  idp = await JwksServer.start();
  sut = await startTestSystem({ ...mini.env, ...idp.authEnv() });
});
afterAll(async () => {
  await sut?.stop();
  await idp?.down();
});

/** GET /models with a bearer token, each on a connection of its own: the primary hands them to the workers in turn. */
async function statusesOnNewConnections(token: string, count = 12): Promise<number[]> {
  const answers = await Promise.all(Array.from({ length: count }, () => callOnNewConnection(sut.url('core'), 'GET', '/models', { headers: { authorization: `Bearer ${token}` } })));
  return answers.map((answer) => answer.status);
}

test('a valid token is accepted by every worker, each with the key set it fetched', async () => {
  expect(await statusesOnNewConnections(await idp.sign({ scope: 'models:read' }))).toEqual(Array(12).fill(200));
});

test('a token signed with a key the provider does not publish is 401 on every worker', async () => {
  expect(await statusesOnNewConnections(await idp.signWithUnknownKid({ scope: 'models:read' }))).toEqual(Array(12).fill(401));
});
