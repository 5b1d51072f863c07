import { randomUUID } from 'node:crypto';
import type { ArtifactHost } from '../support/artifact-host.js';
import { eventually } from '../support/load-loop.js';
import { JwksServer } from '../support/jwks-server.js';
import { type TestSystem, call, startInProcessSystem } from '../support/system.js';
import { type Backend, type TestDatabase, backendsUnderTest, createDatabase, onDatabase } from '../subgraphs/models/store/support.js';
import { bearer, recordsModelHost } from '../subgraphs/models/records/support.js';

/**
 * Issue 35, row 3: usage reporting holds no client data. A tenant's operations carry an e-mail
 * address and a social security number as inline literals (an argument, an input object, a
 * variable's default, a record's payload): the usage export and the usage tables keep the
 * operation's signature (every literal removed) and never those values. The admin paths need the
 * scope `admin.usage` in the token: another tenant's valid token without it gets 403 FORBIDDEN in the
 * gateway's error envelope. USAGE_FLUSH_SECS is 1: flushing is what the test waits on.
 */
const EMAIL = `alice.${randomUUID().slice(0, 8)}@example.com`;
const SSN = `078-05-${String(1000 + Math.floor(Math.random() * 8999))}`;
const ADMIN_PATHS = ['/admin/usage?days=1', '/admin/usage/fields?days=1', '/admin/supergraph'];

describe.each(await backendsUnderTest())('usage of a tenant with secrets in its literals, on %s', (backend: Backend) => {
  let host: ArtifactHost;
  let idp: JwksServer;
  let database: TestDatabase;
  let sut: TestSystem;
  let acme: Record<string, string>;
  let globex: Record<string, string>;
  let auditor: Record<string, string>;

  beforeAll(async () => {
    const models = await recordsModelHost();
    host = models.host;
    idp = await JwksServer.start();
    database = await createDatabase(backend);
    sut = await startInProcessSystem({ ...models.env, ...idp.authEnv(), DATABASE_URL: database.url, USAGE_FLUSH_SECS: '1' });
    acme = bearer(await idp.sign({ sub: 'alice', tenant_id: 'acme', scope: 'records:read records:write' }));
    // Every scope a tenant's user may hold, but not admin.usage.
    globex = bearer(await idp.sign({ sub: 'bob', tenant_id: 'globex', scope: 'records:read records:write' }));
    auditor = bearer(await idp.sign({ sub: 'ci', scope: 'admin.usage' }));
  });
  afterAll(async () => {
    await sut?.stop();
    await database?.drop();
    await idp?.close();
    await host?.stop();
  });

  const graphql = async (query: string, variables: Record<string, unknown> = {}) => {
    const answer = await call(sut.url('gateway'), 'POST', '/graphql', { body: { query, variables }, headers: { ...acme, 'graphql-client-name': 'passport-app' } });
    expect(answer.status).toBe(200);
    return answer.json;
  };

  test('the export and the tables keep signatures without the literals; counts and coordinates stay', async () => {
    await graphql(`query ByMail { record(id: "${EMAIL}") { id } }`);
    await graphql(`query Search { records(filter: { conditions: [{ field: PAYLOAD, path: "ssn", operator: EQ, value: { string: "${SSN}" } }] }) { totalCount } }`);
    await graphql(`query Defaulted($id: ID! = "${EMAIL}") { record(id: $id) { id } }`);
    await graphql('query ByVariable($id: ID!) { record(id: $id) { id } }', { id: EMAIL });
    const created = await graphql(
      `mutation Store { createRecord(input: { model: "bare", version: "0.1", idempotencyKey: "k-${SSN}", payload: { email: "${EMAIL}", ssn: "${SSN}", n: 7 } }) { replayed } }`,
    );
    expect(created.errors).toBeUndefined();

    const exported = await eventually(async () => {
      const answer = await call(sut.url('gateway'), 'GET', '/admin/usage?days=1', { headers: auditor });
      expect(answer.status).toBe(200);
      const requests = answer.json.counts.filter((c: { client: string }) => c.client === 'passport-app').reduce((sum: number, c: { count: number }) => sum + c.count, 0);
      return requests === 5 ? answer : null;
    });
    expect(exported).not.toBeNull();
    for (const secret of [EMAIL, SSN, '078-05', '@example.com']) expect(exported!.text).not.toContain(secret);
    const operations: Array<{ name: string; body: string; coordinates: string[] }> = exported!.json.operations;
    const byName = (name: string) => operations.find((o) => o.name === name);
    // Apollo's usage reporting signature: literals emptied, whitespace reduced.
    expect(byName('ByMail')?.body).toBe('query ByMail{record(id:""){id}}');
    expect(byName('Defaulted')?.body).toBe('query Defaulted($id:ID!=""){record(id:$id){id}}');
    expect(byName('Store')?.body).toContain('createRecord(input:{})');
    // What the literals touched is still counted, so that a schema check sees it.
    const touched = (name: string) => {
      const hash = operations.find((o) => o.name === name)!;
      const inputs = exported!.json.counts.filter((c: { hash: string }) => c.hash === (hash as unknown as { hash: string }).hash).flatMap((c: { inputs: string[] }) => c.inputs);
      return new Set([...hash.coordinates, ...inputs]);
    };
    expect([...touched('Search')]).toEqual(expect.arrayContaining(['Query.records.filter!', 'RecordFilter.conditions!', 'RecordCondition.path!', 'FilterOperator.EQ']));
    expect([...touched('Store')]).toEqual(expect.arrayContaining(['CreateRecordInput.payload!', 'CreateRecordInput.idempotencyKey!']));

    const fields = await call(sut.url('gateway'), 'GET', '/admin/usage/fields?days=1', { headers: auditor });
    expect(fields.status).toBe(200);
    for (const secret of [EMAIL, SSN]) expect(fields.text).not.toContain(secret);

    const tables = await onDatabase(backend, database.url, 'SELECT * FROM usage_operations');
    const counts = await onDatabase(backend, database.url, 'SELECT * FROM usage_counts');
    expect(tables.length).toBeGreaterThanOrEqual(5);
    const stored = JSON.stringify([tables, counts], (_key, value) => (typeof value === 'bigint' ? String(value) : value));
    for (const secret of [EMAIL, SSN, '078-05', '@example.com']) expect(stored).not.toContain(secret);
  });

  test("another tenant's token without admin.usage: 403 FORBIDDEN in the envelope on every admin path; none: 401", async () => {
    for (const path of ADMIN_PATHS) {
      const refused = await call(sut.url('gateway'), 'GET', path, { headers: globex });
      expect(refused.status).toBe(403);
      expect(refused.json).toEqual({ errors: [{ message: 'admin.usage requires scope admin.usage', extensions: expect.objectContaining({ code: 'FORBIDDEN' }) }] });
      expect(refused.text).not.toContain(EMAIL);
      expect((await call(sut.url('gateway'), 'GET', path)).status).toBe(401);
      expect((await call(sut.url('gateway'), 'GET', path, { headers: auditor })).status).toBe(200);
    }
  });
});
