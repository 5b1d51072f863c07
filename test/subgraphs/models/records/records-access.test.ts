import { randomUUID } from 'node:crypto';
import type { ArtifactHost } from '../../../support/artifact-host.js';
import { JwksServer } from '../../../support/jwks-server.js';
import { type TestSystem, call, startInProcessSystem } from '../../../support/system.js';
import { backendsUnderTest, createDatabase, type TestDatabase } from '../store/support.js';
import { bearer, coreCreate, coreQuery, expectError, graphql, ids, recordsModelHost, recordsQuery, recordsStore, widget } from './support.js';

/**
 * Scopes, identity and read visibility (DECISIONS sections 2 and 4) through the core facade, the
 * records backend and GraphQL, with real signed tokens; on SQLite and, when reachable, PostgreSQL.
 */
const backends = await backendsUnderTest();
const BOTH = 'records:read records:write';

const RECORD = 'id model version payload owner { subject tenant }';
const GET = `query ($id: ID!) { record(id: $id) { ${RECORD} } }`;
const GRANT = 'mutation ($id: ID!, $subject: String, $tenant: String) { grantRecordRead(input: { recordId: $id, subject: $subject, tenant: $tenant }) { recordId subject tenant granted } }';
const REVOKE = 'mutation ($id: ID!, $subject: String, $tenant: String) { revokeRecordRead(input: { recordId: $id, subject: $subject, tenant: $tenant }) { recordId subject tenant granted } }';
/** The records a typed filter finds, a page at a time. */
const LIST = 'query ($filter: RecordFilter) { records(filter: $filter) { nodes { id } totalCount } }';

describe.each(backends)('records access on %s', (backend) => {
  let host: ArtifactHost;
  let modelsEnv: Record<string, string>;
  let idp: JwksServer;
  let database: TestDatabase;
  let sut: TestSystem;
  let core: string;
  let records: string;
  let gateway: string;
  const token: Record<string, Record<string, string>> = {};

  beforeAll(async () => {
    const models = await recordsModelHost();
    host = models.host;
    modelsEnv = models.env;
    idp = await JwksServer.start();
    database = await createDatabase(backend);
    sut = await startInProcessSystem({ ...models.env, ...idp.authEnv(), DATABASE_URL: database.url });
    core = sut.url('core');
    records = sut.url('records');
    gateway = sut.url('gateway');
    const people: Record<string, Record<string, unknown>> = {
      aliceAcme: { sub: 'alice', tenant_id: 'acme', scope: BOTH },
      bobAcme: { sub: 'bob', tenant_id: 'acme', scope: BOTH },
      aliceGlobex: { sub: 'alice', tenant_id: 'globex', scope: BOTH },
      daveGlobex: { sub: 'dave', tenant: 'globex', scp: ['records:read', 'records:write'] },
      carol: { sub: 'carol', scope: BOTH },
      readerOnly: { sub: 'alice', tenant_id: 'acme', scope: 'records:read' },
      writerOnly: { sub: 'alice', tenant_id: 'acme', scp: 'records:write' },
    };
    for (const [name, claims] of Object.entries(people)) token[name] = bearer(await idp.sign(claims));
  });
  afterAll(async () => {
    await sut?.stop();
    await database?.drop();
    await idp?.close();
    await host?.stop();
  });

  /** A record of alice@acme through the core, returned with its id. */
  async function aliceRecord(): Promise<string> {
    const answer = await coreCreate(core, widget(), randomUUID(), token.aliceAcme);
    expect(answer.status).toBe(200);
    return answer.json.id;
  }

  /**
   * What each path answers `who` about record `id`: the REST status, whether queries list it, and
   * what GraphQL's `record(id:)` gives (the record, null, or an error's code).
   */
  async function sight(who: string, id: string) {
    const mine = { where: [{ field: 'id', op: 'eq', value: id }] };
    const gql = await graphql(gateway, GET, { id }, token[who]);
    const listed = await graphql(gateway, LIST, { filter: { conditions: [{ field: 'ID', operator: 'EQ', value: { string: id } }] } }, token[who]);
    return {
      get: (await call(records, 'GET', `/records/${id}`, { headers: token[who] })).status,
      coreQuery: ids(await coreQuery(core, mine, token[who])).includes(id),
      recordsQuery: ids(await recordsQuery(records, mine, token[who])).includes(id),
      graphql: gql.errors ? gql.errors[0].extensions.code : gql.data.record === null ? null : 'record',
      graphqlQuery: listed.errors ? listed.errors[0].extensions.code : { listed: listed.data.records.nodes.some((r: { id: string }) => r.id === id), totalCount: listed.data.records.totalCount },
    };
  }
  const visible = { get: 200, coreQuery: true, recordsQuery: true, graphql: 'record', graphqlQuery: { listed: true, totalCount: 1 } };
  const hidden = { get: 404, coreQuery: false, recordsQuery: false, graphql: null, graphqlQuery: { listed: false, totalCount: 0 } };

  test('without a token: 401 on every records path, with the facade envelope and WWW-Authenticate', async () => {
    const coreAnswer = await coreCreate(core, widget(), randomUUID());
    expectError(coreAnswer, 401, 'UNAUTHORIZED');
    expect(coreAnswer.headers.get('www-authenticate')).toBe('Bearer');
    expectError(await coreQuery(core, {}), 401, 'UNAUTHORIZED');
    expectError(await recordsStore(records, { id: 'x', model: 'm', version: '1', payload: 1 }, randomUUID()), 401, 'unauthorized');
    expectError(await call(records, 'GET', '/records/x'), 401, 'unauthorized');
    expectError(await recordsQuery(records, {}), 401, 'unauthorized');
    // Who asks is settled before what is asked: a filter is not read for a caller without credentials.
    expectError(await coreQuery(core, { where: [{ field: 'payload.x', op: 'in', value: 5 }] }), 401, 'UNAUTHORIZED');
    expectError(await recordsQuery(records, { limit: 'many' }), 401, 'unauthorized');
    expect((await call(gateway, 'POST', '/graphql', { body: { query: '{ records { nodes { id } } }' } })).status).toBe(401);
  });

  test('without the scope: 403 (scopes read from scope and scp)', async () => {
    expectError(await coreCreate(core, widget(), randomUUID(), token.readerOnly), 403, 'FORBIDDEN');
    expectError(await recordsStore(records, { id: 'x', model: 'm', version: '1', payload: 1 }, randomUUID(), token.readerOnly), 403, 'forbidden');
    expectError(await coreQuery(core, {}, token.writerOnly), 403, 'FORBIDDEN');
    expectError(await call(records, 'GET', '/records/x', { headers: token.writerOnly }), 403, 'forbidden');
    expectError(await recordsQuery(records, {}, token.writerOnly), 403, 'forbidden');
    const created = await coreCreate(core, widget(), randomUUID(), token.writerOnly);
    expect(created.status).toBe(200);
    const gql = await graphql(gateway, GET, { id: created.json.id }, token.writerOnly);
    expect(gql.errors[0].extensions).toMatchObject({ code: 'FORBIDDEN', details: { missing_scopes: ['records:read'] } });
  });

  test('a record is visible to its owner within the tenant only; other subjects and other tenants never see it', async () => {
    const id = await aliceRecord();
    expect(await sight('aliceAcme', id)).toEqual(visible);
    expect(await sight('bobAcme', id)).toEqual(hidden);
    expect(await sight('aliceGlobex', id)).toEqual(hidden);
    expect(await sight('daveGlobex', id)).toEqual(hidden);
  });

  test('the owner grants and revokes reading by subject through GraphQL; owner metadata shows to the owner only', async () => {
    const id = await aliceRecord();
    expect((await graphql(gateway, GRANT, { id, subject: 'bob' }, token.aliceAcme)).data).toEqual({ grantRecordRead: { recordId: id, subject: 'bob', tenant: null, granted: true } });
    expect(await sight('bobAcme', id)).toEqual(visible);
    expect((await graphql(gateway, GET, { id }, token.bobAcme)).data.record.owner).toBeNull();
    expect((await graphql(gateway, GET, { id }, token.aliceAcme)).data.record.owner).toEqual({ subject: 'alice', tenant: 'acme' });
    // bob is not the owner: for him the record does not exist to grant on.
    expect((await graphql(gateway, GRANT, { id, subject: 'carol' }, token.bobAcme)).errors[0].extensions.code).toBe('RECORD_NOT_FOUND');
    expect((await graphql(gateway, REVOKE, { id, subject: 'bob' }, token.aliceAcme)).data).toEqual({ revokeRecordRead: { recordId: id, subject: 'bob', tenant: null, granted: false } });
    expect(await sight('bobAcme', id)).toEqual(hidden);
  });

  test('a grant to a tenant lets every subject of that tenant read; callers without a tenant do not match it', async () => {
    const id = await aliceRecord();
    expect((await graphql(gateway, GRANT, { id, tenant: 'globex' }, token.aliceAcme)).data.grantRecordRead).toEqual({ recordId: id, subject: null, tenant: 'globex', granted: true });
    expect(await sight('daveGlobex', id)).toEqual(visible);
    expect(await sight('aliceGlobex', id)).toEqual(visible);
    expect(await sight('carol', id)).toEqual(hidden);
    expect(await sight('bobAcme', id)).toEqual(hidden);
    const neither = await graphql(gateway, GRANT, { id }, token.aliceAcme);
    expect(neither.errors[0].extensions.code).toBe('BAD_REQUEST');
    const both = await graphql(gateway, GRANT, { id, subject: 'bob', tenant: 'acme' }, token.aliceAcme);
    expect(both.errors[0].extensions.code).toBe('BAD_REQUEST');
  });

  test('idempotency keys belong to the caller: the same key and request from someone else is not a replay', async () => {
    const k = randomUUID();
    const { id: _, ...anonymous } = widget();
    const alice = await coreCreate(core, anonymous, k, token.aliceAcme, '/models/bare/versions/0.1');
    const bob = await coreCreate(core, anonymous, k, token.bobAcme, '/models/bare/versions/0.1');
    const aliceElsewhere = await coreCreate(core, anonymous, k, token.aliceGlobex, '/models/bare/versions/0.1');
    for (const answer of [bob, aliceElsewhere]) {
      expect(answer.status).toBe(200);
      expect(answer.headers.get('idempotent-replayed')).toBeNull();
      expect(answer.json.id).not.toBe(alice.json.id);
    }
    // The payload names its id: for another caller of the tenant that id is taken, whatever the key;
    // another tenant has ids of its own (docs/DECISIONS.md, Records).
    const named = widget();
    expect((await coreCreate(core, named, k + 'n', token.aliceAcme)).status).toBe(200);
    expectError(await coreCreate(core, named, k + 'n', token.bobAcme), 409, 'RECORD_CONFLICT');
    expect((await coreCreate(core, named, k + 'n', token.aliceGlobex)).status).toBe(200);
    const own = await recordsStore(records, { id: `r-${k}`, model: 'm', version: '1', payload: 1 }, k + 'r', token.aliceAcme);
    expect(own.status).toBe(200);
    expectError(await recordsStore(records, { id: `r-${k}`, model: 'm', version: '1', payload: 1 }, k + 'r', token.bobAcme), 409, 'conflict');
    expect((await recordsStore(records, { id: `r-${k}`, model: 'm', version: '1', payload: 1 }, k + 'r', token.daveGlobex)).status).toBe(200);
  });

  test('GraphQL: createRecord, storeRecord, records and their error codes', async () => {
    const k = randomUUID();
    const create = `mutation ($payload: JSONObject!, $key: String!) {
      createRecord(input: { model: "mini", version: "1.0", payload: $payload, idempotencyKey: $key }) { replayed record { ${RECORD} createdAt updatedAt } }
    }`;
    const payload = widget();
    const first = await graphql(gateway, create, { payload, key: k }, token.aliceAcme);
    expect(first.data.createRecord).toMatchObject({ replayed: false, record: { id: payload.id, model: 'mini', version: '1.0', payload, owner: { subject: 'alice', tenant: 'acme' } } });
    expect(first.data.createRecord.record.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect((await graphql(gateway, create, { payload, key: k }, token.aliceAcme)).data.createRecord.replayed).toBe(true);
    const code = async (variables: Record<string, unknown>) => (await graphql(gateway, create, variables, token.aliceAcme)).errors[0].extensions;
    expect(await code({ payload: { ...payload, weight: 9 }, key: k })).toMatchObject({ code: 'IDEMPOTENCY_CONFLICT' });
    expect(await code({ payload, key: ' ' })).toMatchObject({ code: 'MISSING_IDEMPOTENCY_KEY' });
    expect(await code({ payload: { id: 'bad' }, key: randomUUID() })).toMatchObject({ code: 'VALIDATION_FAILED', details: { passed: false } });

    const store =
      'mutation ($id: ID!, $payload: JSON, $key: String!) { storeRecord(input: { id: $id, model: "m", version: "1", payload: $payload, idempotencyKey: $key }) { replayed record { id payload } } }';
    expect((await graphql(gateway, store, { id: `g-${k}`, payload: [1, 'two'], key: `${k}-store` }, token.aliceAcme)).data.storeRecord).toEqual({
      replayed: false,
      record: { id: `g-${k}`, payload: [1, 'two'] },
    });
    const connection = 'nodes { id } totalCount pageInfo { hasNextPage hasPreviousPage endCursor }';
    const query = `query ($filter: RecordFilter, $orderBy: [RecordOrder!], $first: Int, $after: String) { records(filter: $filter, orderBy: $orderBy, first: $first, after: $after) { ${connection} } }`;
    const within = `query ($model: String!, $version: String!, $filter: RecordFilter, $orderBy: [RecordOrder!]) {
      modelVersion(model: $model, version: $version) { records(filter: $filter, orderBy: $orderBy) { ${connection} } }
    }`;
    const filter = { conditions: [{ field: 'ID', operator: 'IN', values: [{ string: payload.id }, { string: `g-${k}` }] }] };
    const orderBy = [{ field: 'ID', direction: 'DESC' }];
    const both = { nodes: [{ id: payload.id }, { id: `g-${k}` }], totalCount: 2, pageInfo: { hasNextPage: false, hasPreviousPage: false, endCursor: expect.any(String) } };
    expect((await graphql(gateway, query, { filter, orderBy }, token.aliceAcme)).data.records).toEqual(both);
    expect((await graphql(gateway, within, { filter, orderBy, model: 'mini', version: '1.0' }, token.aliceAcme)).data.modelVersion.records).toMatchObject({
      nodes: [{ id: payload.id }],
      totalCount: 1,
    });
    // A page at a time: the end cursor of one page starts the next.
    const page1 = (await graphql(gateway, query, { filter, orderBy, first: 1 }, token.aliceAcme)).data.records;
    expect(page1).toMatchObject({ nodes: [{ id: payload.id }], totalCount: 2, pageInfo: { hasNextPage: true, hasPreviousPage: false } });
    const page2 = (await graphql(gateway, query, { filter, orderBy, first: 1, after: page1.pageInfo.endCursor }, token.aliceAcme)).data.records;
    expect(page2).toMatchObject({ nodes: [{ id: `g-${k}` }], totalCount: 2, pageInfo: { hasNextPage: false, hasPreviousPage: true } });
    // Backwards: the last page, then the one before its start cursor.
    const backwards = `query ($filter: RecordFilter, $orderBy: [RecordOrder!], $last: Int, $before: String) {
      records(filter: $filter, orderBy: $orderBy, last: $last, before: $before) { nodes { id } pageInfo { hasNextPage hasPreviousPage startCursor } }
    }`;
    const lastPage = (await graphql(gateway, backwards, { filter, orderBy, last: 1 }, token.aliceAcme)).data.records;
    expect(lastPage).toMatchObject({ nodes: [{ id: `g-${k}` }], pageInfo: { hasPreviousPage: true } });
    const beforeLast = (await graphql(gateway, backwards, { filter, orderBy, last: 1, before: lastPage.pageInfo.startCursor }, token.aliceAcme)).data.records;
    expect(beforeLast).toMatchObject({ nodes: [{ id: payload.id }], pageInfo: { hasPreviousPage: false } });
    // The typed filter is checked by the filter language: BAD_REQUEST naming the part of the input.
    const bad = await graphql(gateway, query, { orderBy: [{ field: 'PAYLOAD', direction: 'ASC' }] }, token.aliceAcme);
    expect(bad.errors[0].extensions).toEqual({ code: 'BAD_REQUEST', details: { at: 'orderBy[0].path', reason: 'PAYLOAD needs a path into the payload' } });
    const badOperand = await graphql(gateway, query, { filter: { conditions: [{ field: 'CREATED_AT', operator: 'GT', value: { string: 'yesterday' } }] } }, token.aliceAcme);
    expect(badOperand.errors[0].extensions).toMatchObject({ code: 'BAD_REQUEST', details: { at: 'filter.conditions[0].value', reason: 'CREATED_AT takes value.dateTime (an ISO 8601 instant)' } });
    // A model version needs both its names; one outside the registry is null, with no error.
    const halfNamed = await graphql(gateway, within, { model: 'mini' }, token.aliceAcme);
    expect({ data: halfNamed.data, codes: halfNamed.errors.map((e: { extensions: { code: string } }) => e.extensions.code) }).toEqual({ data: undefined, codes: ['BAD_USER_INPUT'] });
    expect(await graphql(gateway, within, { model: 'mini', version: '9' }, token.aliceAcme)).toEqual({ data: { modelVersion: null } });
  });

  test('Record is a federation entity: the models subgraph resolves a reference with the same visibility', async () => {
    const id = await aliceRecord();
    const subgraph = await startInProcessSystem({
      ...modelsEnv,
      ...idp.authEnv(),
      DATABASE_URL: database.url,
      PROCESS_ROLE: 'subgraph',
      SUBGRAPH: 'models',
      GATEWAY_SUBGRAPH_SECRET: 'test-gateway-subgraph-secret',
    });
    try {
      const entities = 'query ($id: ID!) { _entities(representations: [{__typename: "Record", id: $id}]) { ... on Record { id owner { subject } } } }';
      const lookUp = (who: string) => graphql(subgraph.url('subgraph:models'), entities, { id }, token[who]);
      expect((await lookUp('aliceAcme')).data._entities).toEqual([{ id, owner: { subject: 'alice' } }]);
      expect((await lookUp('bobAcme')).data._entities).toEqual([null]);
      expect((await lookUp('writerOnly')).errors[0].extensions.code).toBe('FORBIDDEN');
    } finally {
      await subgraph.stop();
    }
  });
});

test('a key set that does not answer is 503: unavailable on the records backend, AUTH_UNAVAILABLE on the core', async () => {
  const models = await recordsModelHost();
  const idp = await JwksServer.start();
  const token = bearer(await idp.sign({ scope: BOTH }));
  await idp.down();
  const sut = await startInProcessSystem({ ...models.env, ...idp.authEnv() });
  try {
    expectError(await call(sut.url('records'), 'GET', '/records/x', { headers: token }), 503, 'unavailable');
    expectError(await coreQuery(sut.url('core'), {}, token), 503, 'AUTH_UNAVAILABLE');
  } finally {
    await sut.stop();
    await idp.close();
    await models.host.stop();
  }
});
