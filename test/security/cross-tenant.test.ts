import { randomUUID } from 'node:crypto';
import type { ArtifactHost } from '../support/artifact-host.js';
import { JwksServer } from '../support/jwks-server.js';
import { type Answer, type TestSystem, call, startInProcessSystem } from '../support/system.js';
import { backendsUnderTest, createDatabase, type TestDatabase } from '../subgraphs/models/store/support.js';
import { bearer, coreCreate, coreQuery, ids, recordsModelHost, recordsQuery, recordsStore } from '../subgraphs/models/records/support.js';

/**
 * Issue 8, cross-tenant: a subject of tenant acme can never read, query, replay or infer a record of
 * tenant globex, through the core and records facades and GraphQL: an absent record and someone
 * else's answer byte for byte alike (the id aside), queries count and page acme's records alone, and
 * nothing globex stored ever shows in an answer acme gets. (test/records/records-access.test.ts
 * proves the visibility rule itself, grants included.)
 */
const BOTH = 'records:read records:write';
const BARE = '/models/bare/versions/0.1';
const SECRET = `globex-secret-${randomUUID()}`;

describe.each(await backendsUnderTest())('tenant isolation on %s', (backend) => {
  let host: ArtifactHost;
  let idp: JwksServer;
  let database: TestDatabase;
  let sut: TestSystem;
  let core: string;
  let records: string;
  let gateway: string;
  let acme: Record<string, string>;
  let globex: Record<string, string>;
  /** Every answer the acme caller got: searched at the end for anything of globex's. */
  const seenByAcme: Answer[] = [];
  const globexIds: string[] = [];
  const acmeIds: string[] = [];

  const asAcme = async (answer: Promise<Answer>) => {
    const got = await answer;
    seenByAcme.push(got);
    return got;
  };
  const gqlAsAcme = async (query: string, variables: Record<string, unknown>) => {
    const answer = await asAcme(call(gateway, 'POST', '/graphql', { body: { query, variables }, headers: acme }));
    return answer.json;
  };

  beforeAll(async () => {
    const models = await recordsModelHost();
    host = models.host;
    idp = await JwksServer.start();
    database = await createDatabase(backend);
    sut = await startInProcessSystem({ ...models.env, ...idp.authEnv(), DATABASE_URL: database.url, METRICS_ENABLED: 'true' });
    core = sut.url('core');
    records = sut.url('records');
    gateway = sut.url('gateway');
    acme = bearer(await idp.sign({ sub: 'alice', tenant_id: 'acme', scope: BOTH }));
    globex = bearer(await idp.sign({ sub: 'bob', tenant_id: 'globex', scope: BOTH }));
    for (let i = 0; i < 4; i++) {
      globexIds.push((await coreCreate(core, { secret: SECRET, n: i }, `globex-core-${i}`, globex, BARE)).json.id);
      const id = `globex-rec-${i}-${randomUUID()}`;
      expect((await recordsStore(records, { id, model: 'bare', version: '0.1', payload: { secret: SECRET, n: i } }, `globex-rec-${i}`, globex)).status).toBe(200);
      globexIds.push(id);
      acmeIds.push((await coreCreate(core, { mine: true, n: i }, `acme-core-${i}`, acme, BARE)).json.id);
    }
  });
  afterAll(async () => {
    await sut?.stop();
    await database?.drop();
    await idp?.close();
    await host?.stop();
  });

  /** An answer with one id replaced by a placeholder, to compare "absent" with "someone else's". */
  const withoutId = (answer: Answer, id: string) => ({ status: answer.status, body: answer.text.replaceAll(id, '<id>') });

  test('reading globex records by id answers exactly like reading ids that never existed', async () => {
    const RECORD = 'query ($id: ID!) { record(id: $id) { id payload } }';
    for (const id of globexIds) {
      const absent = `absent-${randomUUID()}`;
      expect(withoutId(await asAcme(call(records, 'GET', `/records/${id}`, { headers: acme })), id)).toEqual(
        withoutId(await asAcme(call(records, 'GET', `/records/${absent}`, { headers: acme })), absent),
      );
      const theirs = await gqlAsAcme(RECORD, { id });
      const nobodys = await gqlAsAcme(RECORD, { id: absent });
      expect(JSON.stringify(theirs).replaceAll(id, '<id>')).toBe(JSON.stringify(nobodys).replaceAll(absent, '<id>'));
      expect(theirs).toEqual({ data: { record: null } });
    }
  });

  // Issue 37: Relay's refetch by id reads records as record(id:) does.
  test("node(id:) and nodes(ids:) of globex records answer exactly like ids that never existed; acme's own are found", async () => {
    const NODE = 'query ($id: ID!) { node(id: $id) { __typename id ... on Record { payload } } }';
    for (const id of globexIds) {
      const absent = `absent-${randomUUID()}`;
      const theirs = await gqlAsAcme(NODE, { id });
      const nobodys = await gqlAsAcme(NODE, { id: absent });
      expect(JSON.stringify(theirs).replaceAll(id, '<id>')).toBe(JSON.stringify(nobodys).replaceAll(absent, '<id>'));
      expect(theirs).toEqual({ data: { node: null } });
    }
    const NODES = 'query ($ids: [ID!]!) { nodes(ids: $ids) { __typename id ... on Record { payload } } }';
    const mine = (id: string) => ({ __typename: 'Record', id, payload: expect.objectContaining({ mine: true }) });
    expect(await gqlAsAcme(NODES, { ids: [acmeIds[0], ...globexIds, acmeIds[1]] })).toEqual({ data: { nodes: [mine(acmeIds[0]!), ...globexIds.map(() => null), mine(acmeIds[1]!)] } });
  });

  test('node(id:) asks what the lookup of its object asks: a record needs records:read, as record(id:) does', async () => {
    const writerOnly = bearer(await idp.sign({ sub: 'carol', tenant_id: 'acme', scope: 'records:write' }));
    const ask = async (query: string, id: string) => (await call(gateway, 'POST', '/graphql', { body: { query, variables: { id } }, headers: writerOnly })).json;
    const byNode = await ask('query ($id: ID!) { node(id: $id) { id } }', acmeIds[0]!);
    const byRecord = await ask('query ($id: ID!) { record(id: $id) { id } }', acmeIds[0]!);
    expect(byNode.errors.map((e: { extensions: unknown }) => e.extensions)).toEqual(byRecord.errors.map((e: { extensions: unknown }) => e.extensions));
    expect(byNode.errors[0].extensions.code).toBe('FORBIDDEN');
    const version = (await ask('{ modelVersions { id } }', '')).data.modelVersions[0].id;
    expect(await ask('query ($id: ID!) { node(id: $id) { id } }', version)).toEqual({ data: { node: { id: version } } });
  });

  test('granting or revoking on a globex record answers exactly like on an absent one', async () => {
    for (const mutation of ['grantRecordRead', 'revokeRecordRead']) {
      const query = `mutation ($id: ID!) { ${mutation}(input: { recordId: $id, subject: "alice" }) { recordId granted } }`;
      const absent = `absent-${randomUUID()}`;
      const theirs = await gqlAsAcme(query, { id: globexIds[0] });
      const nobodys = await gqlAsAcme(query, { id: absent });
      expect(JSON.stringify(theirs).replaceAll(globexIds[0]!, '<id>')).toBe(JSON.stringify(nobodys).replaceAll(absent, '<id>'));
      expect(theirs.errors[0].extensions.code).toBe('RECORD_NOT_FOUND');
    }
  });

  /**
   * Filters an attacker would use to find or count globex records: the REST filter, and the same
   * filter as the graph's typed `records` arguments.
   */
  const PROBES: Array<{ rest: Record<string, unknown>; graph: Record<string, unknown> }> = [
    { rest: {}, graph: {} },
    {
      rest: { where: [{ field: 'payload.secret', op: 'exists', value: true }] },
      graph: { filter: { conditions: [{ field: 'PAYLOAD', path: 'secret', operator: 'EXISTS', value: { boolean: true } }] } },
    },
    {
      rest: { where: [{ field: 'payload.secret', op: 'eq', value: SECRET }] },
      graph: { filter: { conditions: [{ field: 'PAYLOAD', path: 'secret', operator: 'EQ', value: { string: SECRET } }] } },
    },
    {
      rest: { where: [{ field: 'payload.secret', op: 'contains', value: 'globex' }] },
      graph: { filter: { conditions: [{ field: 'PAYLOAD', path: 'secret', operator: 'CONTAINS', value: { string: 'globex' } }] } },
    },
    {
      rest: { where: [{ field: 'id', op: 'in', value: ['x', ...globexIds] }] },
      graph: { filter: { conditions: [{ field: 'ID', operator: 'IN', values: ['x', ...globexIds].map((id) => ({ string: id })) }] } },
    },
    {
      rest: { where: [{ field: 'payload.n', op: 'gte', value: 0 }], sort: [{ field: 'payload.n', direction: 'desc' }] },
      graph: {
        filter: { conditions: [{ field: 'PAYLOAD', path: 'n', operator: 'GTE', value: { number: 0 } }] },
        orderBy: [{ field: 'PAYLOAD', path: 'n', direction: 'DESC' }],
      },
    },
    {
      rest: { where: [{ field: 'created_at', op: 'gt', value: '2000-01-01' }], limit: 1000 },
      graph: { filter: { conditions: [{ field: 'CREATED_AT', operator: 'GT', value: { dateTime: '2000-01-01T00:00:00.000Z' } }] }, first: 1000 },
    },
  ];
  const ALL = { rest: { limit: 1000 }, graph: { first: 1000 } };

  const RECORDS = `query ($filter: RecordFilter, $orderBy: [RecordOrder!], $first: Int, $after: String) {
    records(filter: $filter, orderBy: $orderBy, first: $first, after: $after) { nodes { id } totalCount pageInfo { hasNextPage endCursor } }
  }`;

  /** The ids acme gets for a filter through the core, the records backend and GraphQL (whose total counts them all). */
  async function acmeSees({ rest, graph }: { rest: Record<string, unknown>; graph: Record<string, unknown> }): Promise<string[][]> {
    const gql = (await gqlAsAcme(RECORDS, graph)).data.records;
    const found = gql.nodes.map((r: { id: string }) => r.id);
    expect({ totalCount: gql.totalCount, hasNextPage: gql.pageInfo.hasNextPage }).toEqual({ totalCount: found.length, hasNextPage: false });
    return [ids(await asAcme(coreQuery(core, rest, acme, BARE))), ids(await asAcme(recordsQuery(records, rest, acme))), found];
  }

  test('every probing filter finds acme records only, through every path', async () => {
    for (const filter of PROBES) {
      for (const found of await acmeSees(filter)) expect(found.every((id) => acmeIds.includes(id))).toBe(true);
    }
    // Runs before the replay test below gives acme records of its own holding globex's text.
    expect((await acmeSees(PROBES[2]!)).flat()).toEqual([]);
  });

  test('counts and pages are acme records alone, and do not move when globex adds records', async () => {
    const pages = async () => {
      const seen: string[][] = [];
      for (let offset = 0; offset <= acmeIds.length; offset++) {
        seen.push(ids(await asAcme(recordsQuery(records, { limit: 1, offset }, acme))));
        seen.push(ids(await asAcme(coreQuery(core, { limit: 1, offset }, acme, BARE))));
      }
      return seen;
    };
    /** GraphQL's pages of one record, each after the previous page's end cursor, with the total and whether more follow. */
    const graphPages = async () => {
      const seen: unknown[] = [];
      let after: string | null = null;
      for (let hasNextPage = true; hasNextPage;) {
        const page: { nodes: Array<{ id: string }>; totalCount: number; pageInfo: { hasNextPage: boolean; endCursor: string } } = (await gqlAsAcme(RECORDS, { first: 1, after })).data.records;
        seen.push({ ids: page.nodes.map((r) => r.id), totalCount: page.totalCount, hasNextPage: page.pageInfo.hasNextPage });
        ({ hasNextPage } = page.pageInfo);
        after = page.pageInfo.endCursor;
        if (seen.length > acmeIds.length + 1) break;
      }
      return seen;
    };
    const before = { all: await acmeSees(ALL), pages: await pages(), graphPages: await graphPages() };
    expect(before.pages).toEqual(acmeIds.flatMap((id) => [[id], [id]]).concat([[], []]));
    expect(before.graphPages).toEqual(acmeIds.map((id, i) => ({ ids: [id], totalCount: acmeIds.length, hasNextPage: i < acmeIds.length - 1 })));
    for (let i = 0; i < 10; i++) await coreCreate(core, { secret: SECRET, n: 100 + i }, `globex-more-${i}`, globex, BARE);
    expect({ all: await acmeSees(ALL), pages: await pages(), graphPages: await graphPages() }).toEqual(before);
  });

  // Not among the answers searched at the end: acme sends globex's payload itself here.
  test('globex keys replayed by acme are never globex replays', async () => {
    // Same key, same request as globex's first create: a new record of acme's, not globex's.
    const core0 = await coreCreate(core, { secret: SECRET, n: 0 }, 'globex-core-0', acme, BARE);
    expect({ status: core0.status, replayed: core0.headers.get('idempotent-replayed') }).toEqual({ status: 200, replayed: null });
    expect(globexIds).not.toContain(core0.json.id);
    acmeIds.push(core0.json.id);
    const create = `mutation ($p: JSONObject!, $k: String!) { createRecord(input: { model: "bare", version: "0.1", payload: $p, idempotencyKey: $k }) { replayed record { id } } }`;
    const gql = (await call(gateway, 'POST', '/graphql', { body: { query: create, variables: { p: { secret: SECRET, n: 1 }, k: 'globex-core-1' } }, headers: acme })).json;
    expect(gql.data.createRecord.replayed).toBe(false);
    expect(globexIds).not.toContain(gql.data.createRecord.record.id);
    acmeIds.push(gql.data.createRecord.record.id);
  });

  test("an id globex holds is free for acme: storing it makes a record of acme's, and globex's stays globex's", async () => {
    const theirId = globexIds[1]!;
    const stored = await asAcme(recordsStore(records, { id: theirId, model: 'bare', version: '0.1', payload: { mine: 'records' } }, `taken-${theirId}`, acme));
    expect({ status: stored.status, body: stored.json }).toEqual({ status: 200, body: { id: theirId } });
    const created = await asAcme(coreCreate(core, { id: globexIds[3], mine: 'core' }, `taken-core-${theirId}`, acme, BARE));
    expect({ status: created.status, id: created.json.id }).toEqual({ status: 200, id: globexIds[3] });
    acmeIds.push(theirId, globexIds[3]!);
    expect((await asAcme(call(records, 'GET', `/records/${theirId}`, { headers: acme }))).json.payload).toEqual({ mine: 'records' });
    expect((await call(records, 'GET', `/records/${theirId}`, { headers: globex })).json.payload).toEqual({ secret: SECRET, n: 0 });
    // Taken within acme now: the conflict is acme's own record, whichever acme subject asks.
    const again = await asAcme(recordsStore(records, { id: theirId, model: 'bare', version: '0.1', payload: 1 }, `again-${theirId}`, acme));
    expect({ status: again.status, code: again.json.code }).toEqual({ status: 409, code: 'conflict' });
  });

  test('nothing of globex (payload, subject, tenant) is in any answer acme got', () => {
    expect(seenByAcme.length).toBeGreaterThan(40);
    for (const answer of seenByAcme) expect(answer.text).not.toMatch(new RegExp(`${SECRET}|"bob"|globex(?!-)`));
  });

  test('metrics labels name routes and codes, never a subject, tenant or record', async () => {
    const metrics = await call(core, 'GET', '/admin/metrics', { headers: acme });
    expect(metrics.status).toBe(200);
    expect(metrics.text).not.toMatch(/alice|bob|acme|globex|secret/);
  });
});
