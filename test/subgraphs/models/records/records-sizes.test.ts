import { randomBytes, randomInt } from 'node:crypto';
import type { ArtifactHost } from '../../../support/artifact-host.js';
import { type Answer, type TestSystem, call, startInProcessSystem } from '../../../support/system.js';
import { type Backend, backendsUnderTest, createDatabase, type TestDatabase } from '../store/support.js';
import { coreCreate, expectError, graphql, recordsModelHost, recordsStore } from './support.js';

/**
 * Issue 4: an 8,000-character idempotency key, record id or model name answered 502/503 on
 * PostgreSQL (an index entry over its 2,704 bytes) and 200 on SQLite. Names a record is stored under
 * hold at most 256 bytes of UTF-8 (docs/DECISIONS.md, "Reliability and limits"): longer is 400 with
 * the field named, on both stores alike, on every door; the longest allowed names, in characters
 * that compress least (random, up to four bytes each), are stored on both.
 */
const backends = await backendsUnderTest();
const BARE = '/models/bare/versions/0.1';

/** Code points to draw from, and the bytes of UTF-8 each takes. */
const CHARACTERS = { latin1: [0xa0, 0x100, 2], astral: [0x10000, 0x110000, 4] } as const;

/**
 * `bytes` bytes of UTF-8: random letters, digits, `-` and `_` (what a filter can name), or random
 * code points of two (Latin-1, what a header carries) or four bytes each.
 */
function randomName(bytes: number, kind: 'ascii' | keyof typeof CHARACTERS = 'ascii'): string {
  if (kind === 'ascii') return randomBytes(bytes).toString('base64url').slice(0, bytes);
  const [from, to, width] = CHARACTERS[kind];
  return Array.from({ length: bytes / width }, () => String.fromCodePoint(randomInt(from, to))).join('');
}

let host: ArtifactHost;
let catalogEnv: Record<string, string>;
beforeAll(async () => {
  const models = await recordsModelHost();
  host = models.host;
  catalogEnv = models.env;
});
afterAll(async () => {
  await host?.stop();
});

describe.each(backends)('names longer than 256 bytes on %s', (backend: Backend) => {
  let database: TestDatabase;
  let sut: TestSystem;
  beforeAll(async () => {
    database = await createDatabase(backend);
    // forward_auth: each request names its own subject and tenant.
    sut = await startInProcessSystem({ ...catalogEnv, AUTH_MODE: 'forward_auth', AUTH_FORWARD_TENANT_HEADER: 'x-auth-tenant', DATABASE_URL: database.url });
  });
  afterAll(async () => {
    await sut?.stop();
    await database?.drop();
  });

  const caller = (tenant = 'acme', subject = 'alice') => ({ 'x-auth-subject': subject, 'x-auth-tenant': tenant, 'x-auth-scopes': 'records:write records:read' });
  const store = (body: Record<string, unknown>, key: string, headers = caller()) =>
    recordsStore(sut.url('records'), { id: randomName(16), model: 'm', version: '1', payload: 1, ...body }, key, headers);

  /** 400 in the door's envelope, naming the field and the limit. */
  function expectTooLong(answer: Answer, code: 'BAD_REQUEST' | 'bad_request', field: string): void {
    expect(expectError(answer, 400, code)).toEqual({ field, reason: expect.stringContaining('at most 256 bytes of UTF-8'), max_bytes: 256 });
    expect(answer.json.message).toMatch(new RegExp(`^${field.replace('.', '\\.')} is too long`));
  }

  test('core :create: an 8,000-character Idempotency-Key or payload.id is 400 BAD_REQUEST naming it', async () => {
    expectTooLong(await coreCreate(sut.url('core'), { n: 1 }, randomName(8000), caller(), BARE), 'BAD_REQUEST', 'Idempotency-Key');
    expectTooLong(await coreCreate(sut.url('core'), { id: randomName(8000) }, randomName(16), caller(), BARE), 'BAD_REQUEST', 'payload.id');
  });

  test('POST /records: an 8,000-character key, id, model or version is 400 bad_request naming it', async () => {
    expectTooLong(await store({}, randomName(8000)), 'bad_request', 'Idempotency-Key');
    for (const field of ['id', 'model', 'version']) expectTooLong(await store({ [field]: randomName(8000) }, randomName(16)), 'bad_request', field);
  });

  test('a caller whose subject or tenant is longer than 256 bytes cannot store records: 400 naming it', async () => {
    expectTooLong(await store({}, randomName(16), caller(randomName(257))), 'bad_request', 'caller.tenant');
    expectTooLong(await coreCreate(sut.url('core'), { n: 1 }, randomName(16), caller('acme', randomName(257)), BARE), 'BAD_REQUEST', 'caller.subject');
  });

  test('GraphQL: the same 400 as BAD_REQUEST with its details, for creates and for grants', async () => {
    const create = await graphql(
      sut.url('gateway'),
      'mutation ($input: StoreRecordInput!) { storeRecord(input: $input) { record { id } } }',
      { input: { id: 'g-1', model: 'm', version: '1', payload: 1, idempotencyKey: randomName(8000) } },
      caller(),
    );
    expect(create.errors).toEqual([
      expect.objectContaining({ extensions: expect.objectContaining({ code: 'BAD_REQUEST', details: expect.objectContaining({ field: 'Idempotency-Key', max_bytes: 256 }) }) }),
    ]);
    expect((await store({ id: 'g-own' }, randomName(16))).status).toBe(200);
    const grant = await graphql(
      sut.url('gateway'),
      'mutation ($input: RecordReadGrantInput!) { grantRecordRead(input: $input) { granted } }',
      { input: { recordId: 'g-own', subject: randomName(8000) } },
      caller(),
    );
    expect(grant.errors).toEqual([expect.objectContaining({ extensions: expect.objectContaining({ code: 'BAD_REQUEST', details: expect.objectContaining({ field: 'subject' }) }) })]);
  });

  test('a payload number whose path is longer than 1,024 bytes is 400 (it could not be indexed)', async () => {
    const answer = await store({ payload: { [randomName(3000)]: 1 } }, randomName(16));
    expect(expectError(answer, 400, 'bad_request')).toEqual({ field: 'payload', reason: expect.stringContaining('at most 1024 bytes of UTF-8') });
    expect((await store({ payload: { [randomName(1024)]: 1 } }, randomName(16))).status).toBe(200);
  });

  test('the longest names, in characters that compress least, are stored and read back', async () => {
    // Four bytes a character in the body; the owner's names come in headers, which carry Latin-1.
    const owner = caller(randomName(256, 'latin1'), randomName(256, 'latin1'));
    const record = { id: randomName(256, 'astral'), model: randomName(256, 'astral'), version: randomName(256, 'astral'), payload: { [randomName(1024)]: 1.5 } };
    expect(await store(record, randomName(256), owner)).toMatchObject({ status: 200, json: { id: record.id } });
    expect((await call(sut.url('records'), 'GET', `/records/${encodeURIComponent(record.id)}`, { headers: owner })).json).toEqual(record);
  });
});
