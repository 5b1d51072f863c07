import { ENTITY_LOOKUP_WEIGHT } from '../../pipeline/limits/cost.js';
import { bearer } from '../support/edges.js';
import { hostileSubgraphPortEnv } from '../support/hostile-input.js';
import { JwksServer } from '../support/jwks-server.js';
import { type ServerProcess, spawnServer } from '../support/server-process.js';
import { type Answer, call } from '../support/system.js';
import { type TestDatabase, createDatabase, onDatabase, postgresReachable } from '../subgraphs/models/store/support.js';

/**
 * Issue 35, row 9: `_entities` on a subgraph port is priced by the work it causes. The largest batch
 * the default GRAPHQL_MAX_COST (50,000) accepted, 4,999 representations of records, took 2.9 to 5.2 s
 * (each representation its own store read, each waiting for the one before). Now the reads of one
 * batch are one statement per thousand ids, a representation costs ENTITY_LOOKUP_WEIGHT (20), and
 * one representation more than the limit allows is refused before anything is read. Its time is a
 * bench figure (`graphql.entities`), never asserted here. The models subgraph as `npm run serve`
 * starts it in that role (two workers, every default limit), on PostgreSQL where it answers.
 */
const onPostgres = await postgresReachable();
const SECRET = 'entity-batches-gateway-secret';
const LIMIT = 50_000;
/** The most representations a batch selecting no weighed field may hold (LIMIT / ENTITY_LOOKUP_WEIGHT): what bench `graphql.entities` times. */
const LARGEST = 2_500;
const TENANT = 'acme';

const recordId = (i: number) => `batch-${String(i).padStart(5, '0')}`;
const representations = (count: number) => Array.from({ length: count }, (_, i) => ({ __typename: 'Record', id: recordId(i) }));
const RECORDS = 'query($r: [_Any!]!) { _entities(representations: $r) { ... on Record { id model version payload } } }';
const KEYS = 'query($r: [_Any!]!) { _entities(representations: $r) { __typename ... on Record { id } } }';

let idp: JwksServer;
let token: string;
let database: TestDatabase;
let server: ServerProcess;

/**
 * The caller's records, all but the last three ids of LARGEST; the last is another tenant's, the two
 * before it are missing. Written as the store writes rows, a thousand a statement: storing them a
 * request at a time is not what this is about.
 */
async function seed(): Promise<void> {
  const row = (i: number) => {
    const [owner, tenant] = i === LARGEST - 1 ? ['someone-else', 'globex'] : ['user-1', TENANT];
    return `('${recordId(i)}', '${tenant}', 'bare', '0.1', '${JSON.stringify({ serial: i })}'::jsonb, '${owner}', '${tenant}', '2025-01-01T00:00:00Z', '2025-01-01T00:00:00Z')`;
  };
  const stored = Array.from({ length: LARGEST }, (_, i) => i).filter((i) => i < LARGEST - 3 || i === LARGEST - 1);
  for (let first = 0; first < stored.length; first += 1000) {
    const rows = stored.slice(first, first + 1000).map(row);
    await onDatabase('postgresql', database.url, `INSERT INTO records (id, namespace, model, version, payload, created_by_sub, tenant_id, created_at, updated_at) VALUES ${rows.join(', ')}`);
  }
}

const direct = (query: string, variables: Record<string, unknown>): Promise<Answer> => call(server.url('subgraph:models'), 'POST', '/graphql', { body: { query, variables }, headers: bearer(token) });

/** What a representation of the i-th id answers: the caller's record, null for a missing one and for the other tenant's. */
const expectedRecord = (i: number) => (i >= LARGEST - 3 ? null : { id: recordId(i), model: 'bare', version: '0.1', payload: { serial: i } });
const expectedKey = (i: number) => (i >= LARGEST - 3 ? null : { __typename: 'Record', id: recordId(i) });

if (!onPostgres) console.warn('entity batches: skipped, PostgreSQL unreachable (the deployed store)');

(onPostgres ? describe : describe.skip)('`_entities` on a subgraph port, priced by its representations', () => {
  beforeAll(async () => {
    idp = await JwksServer.start();
    token = await idp.sign({ scope: 'records:read', tenant_id: TENANT });
    database = await createDatabase('postgresql');
    server = await spawnServer({ ...hostileSubgraphPortEnv(database.url, SECRET), ...idp.authEnv() });
    await seed();
  });
  afterAll(async () => {
    await server?.stop();
    await database?.drop();
    await idp?.close();
  });

  test('one representation more than the limit allows: 400 QUERY_TOO_COMPLEX naming the setting', async () => {
    const answer = await direct(KEYS, { r: representations(LARGEST + 1) });
    expect(answer.status).toBe(400);
    expect(answer.json).toEqual({
      errors: [
        {
          message: `operation cost ${(LARGEST + 1) * ENTITY_LOOKUP_WEIGHT} exceeds the limit of ${LIMIT} (GRAPHQL_MAX_COST); its costliest path is _entities`,
          extensions: { code: 'QUERY_TOO_COMPLEX', details: { limit: LIMIT, actual: (LARGEST + 1) * ENTITY_LOOKUP_WEIGHT, path: '_entities' } },
        },
      ],
    });
  });

  test('the largest batch the limit accepts is answered: every record in its place, null for the missing and for another tenant’s', async () => {
    const answer = await direct(KEYS, { r: representations(LARGEST) });
    expect(answer.status).toBe(200);
    expect(answer.json.errors).toBeUndefined();
    expect(answer.json.data._entities).toEqual(Array.from({ length: LARGEST }, (_, i) => expectedKey(i)));
  });

  test('the same ids asked for many times, in any order, with their payloads (each weighed as well): each answered as itself', async () => {
    const count = Math.floor(LIMIT / (ENTITY_LOOKUP_WEIGHT + 30));
    const picks = [LARGEST - 1, 0, LARGEST - 3, 7, 0, 1234];
    const order = Array.from({ length: count }, (_, i) => picks[i % picks.length]!);
    const answer = await direct(RECORDS, { r: order.map((i) => ({ __typename: 'Record', id: recordId(i) })) });
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ data: { _entities: order.map(expectedRecord) } });
    const over = await direct(RECORDS, { r: representations(count + 1) });
    expect({ status: over.status, code: over.json.errors?.[0]?.extensions?.code }).toEqual({ status: 400, code: 'QUERY_TOO_COMPLEX' });
  });

  test('four of the largest batches at once, on two workers: each answered in full', async () => {
    const answers = await Promise.all(Array.from({ length: 4 }, () => direct(KEYS, { r: representations(LARGEST) })));
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(answer.json).toEqual({ data: { _entities: Array.from({ length: LARGEST }, (_, i) => expectedKey(i)) } });
    }
  });

  test('model versions the registry does not hold: null each, as the `modelVersion` query answers, not an error each', async () => {
    const versions = Array.from({ length: LARGEST }, (_, i) => ({ __typename: 'ModelVersion', model: i === 0 ? 're-indicators-specification' : 'nope', version: '0.0.4' }));
    const answer = await direct('query($r: [_Any!]!) { _entities(representations: $r) { ... on ModelVersion { model version } } }', { r: versions });
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ data: { _entities: [{ model: 're-indicators-specification', version: '0.0.4' }, ...Array.from({ length: LARGEST - 1 }, () => null)] } });
  });
});
