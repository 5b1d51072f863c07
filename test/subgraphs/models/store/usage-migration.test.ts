import { createHash } from 'node:crypto';
import { migrate } from '../../../../database/migrator.js';
import { databaseLocation } from '../../../../database/location.js';
import { backendsUnderTest, createDatabase, migratedBefore, onDatabase } from './support.js';
import type { TestDatabase } from './support.js';

/**
 * Issue 35: usage stored before operations were kept as signatures held the documents as clients
 * sent them, literals included, under the sha256 of that text. The migration `*_usage_signatures`
 * empties those texts and gives each such operation a random key in place of the digest (a digest
 * of a text with a guessable secret confirms the guess), and keeps everything a check reads: the
 * counts, their clients, days and inputs, and each operation's name, type and coordinates.
 */
const backends = await backendsUnderTest();
const SECRET_BODY = 'query ByMail {\n  record(id: "alice@example.com") {\n    id\n  }\n}';
const OTHER_BODY = 'query Count {\n  modelVersionCount\n}';
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe.each(backends)('the usage signatures migration on %s', (backend) => {
  let database: TestDatabase;
  beforeEach(async () => {
    database = await createDatabase(backend);
  });
  afterEach(async () => {
    await database.drop();
  });

  test('old operation texts are emptied and rekeyed; counts, clients, inputs and coordinates stay', async () => {
    const pending = await migratedBefore(backend, database.url, 'usage_signatures');
    const [secret, other] = [sha256(SECRET_BODY), sha256(OTHER_BODY)];
    await onDatabase(
      backend,
      database.url,
      `
      INSERT INTO usage_operations (hash, name, type, body, coordinates, first_seen_ms, last_seen_ms) VALUES
        ('${secret}', 'ByMail', 'query', '${SECRET_BODY}', '["Query","Query.record","Query.record.id","Query.record.id!"]', 1, 2),
        ('${other}', 'Count', 'query', '${OTHER_BODY}', '["Query","Query.modelVersionCount"]', 3, 4);
      INSERT INTO usage_counts (hash, client_name, client_version, day, inputs, requests, last_seen_ms) VALUES
        ('${secret}', 'app', '1', '2026-11-20', '', 5, 2),
        ('${secret}', 'app', '1', '2026-11-21', 'Query.record.id!', 6, 2),
        ('${other}', 'kit', '2', '2026-11-21', '', 7, 4);`,
    );

    expect(await migrate(databaseLocation(database.url))).toEqual(pending);
    const rows = (sql: string) => onDatabase(backend, database.url, sql);
    const operations = await rows('SELECT hash, name, type, body, coordinates, first_seen_ms, last_seen_ms FROM usage_operations ORDER BY name');
    const counts = await rows('SELECT hash, client_name, client_version, day, inputs, requests FROM usage_counts ORDER BY requests');
    const stored = JSON.stringify([operations, counts], (_key, value) => (typeof value === 'bigint' ? String(value) : value));
    for (const gone of ['alice@example.com', secret, other]) expect(stored).not.toContain(gone);

    expect(operations.map(({ name, type, body, coordinates }) => ({ name, type, body, coordinates }))).toEqual([
      { name: 'ByMail', type: 'query', body: '', coordinates: '["Query","Query.record","Query.record.id","Query.record.id!"]' },
      { name: 'Count', type: 'query', body: '', coordinates: '["Query","Query.modelVersionCount"]' },
    ]);
    const [byMail, count] = operations.map((o) => String(o.hash));
    expect(byMail).not.toBe(count);
    expect(counts.map((c) => ({ ...c, requests: Number(c.requests) }))).toEqual([
      { hash: byMail, client_name: 'app', client_version: '1', day: '2026-11-20', inputs: '', requests: 5 },
      { hash: byMail, client_name: 'app', client_version: '1', day: '2026-11-21', inputs: 'Query.record.id!', requests: 6 },
      { hash: count, client_name: 'kit', client_version: '2', day: '2026-11-21', inputs: '', requests: 7 },
    ]);
    // A second start changes nothing.
    expect(await migrate(databaseLocation(database.url))).toEqual([]);
  });
});
