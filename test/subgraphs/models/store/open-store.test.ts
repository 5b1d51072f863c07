import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { backendsUnderTest, createDatabase, openStoreAt } from './support.js';

const backends = await backendsUnderTest();
const onPostgres = backends.includes('postgresql') ? describe : describe.skip;

const driverText = /ECONNREFUSED|127\.0\.0\.1|secret|SQLITE|terminat|does not exist|select/i;

describe('openRecordStore on SQLite', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'records-open-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test('creates the directory of file:<path>, migrates, and answers ping', async () => {
    const file = path.join(dir, 'nested', 'data', 'records.db');
    const store = await openStoreAt(`file:${file}`);
    try {
      expect(store.dialect.name).toBe('sqlite');
      await expect(store.ping()).resolves.toBeUndefined();
      expect(existsSync(file)).toBe(true);
    } finally {
      await store.close();
    }
  });

  test('reads a relative path from the working directory, and starts twice on one file', async () => {
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      await (await openStoreAt('file:./data/records.db')).close();
      await (await openStoreAt('file:./data/records.db')).close();
      expect(existsSync(path.join(dir, 'data', 'records.db'))).toBe(true);
    } finally {
      process.chdir(cwd);
    }
  });

  test('a path that cannot hold a database is STORE_ERROR', async () => {
    const file = path.join(dir, 'not-a-directory');
    await writeFile(file, '');
    await expect(openStoreAt(`file:${file}/records.db`)).rejects.toMatchObject({ code: 'STORE_ERROR' });
  });
});

test('a URL of another kind is STORE_ERROR that does not repeat the URL', async () => {
  const failure = openStoreAt('mysql://root:secret@127.0.0.1/records');
  await expect(failure).rejects.toMatchObject({ code: 'STORE_ERROR' });
  await expect(failure).rejects.toHaveProperty('message', expect.not.stringMatching(driverText));
});

test('an unreachable PostgreSQL is STORE_ERROR at start, without driver text', async () => {
  const failure = openStoreAt('postgresql://someone:secret@127.0.0.1:1/records');
  await expect(failure).rejects.toMatchObject({ code: 'STORE_ERROR' });
  await expect(failure).rejects.toHaveProperty('message', expect.not.stringMatching(driverText));
});

onPostgres('openRecordStore on PostgreSQL', () => {
  test('answers ping, and STORE_ERROR without driver text once the database is gone', async () => {
    const database = await createDatabase('postgresql');
    const store = await openStoreAt(database.url);
    try {
      expect(store.dialect.name).toBe('postgresql');
      await expect(store.ping()).resolves.toBeUndefined();
      await database.drop(); // WITH (FORCE): terminates the store's connections
      const failure = store.ping();
      await expect(failure).rejects.toMatchObject({ code: 'STORE_ERROR', message: 'records store unreachable' });
    } finally {
      await store.close();
    }
  });

  test('accepts postgres:// as well', async () => {
    const database = await createDatabase('postgresql');
    try {
      const store = await openStoreAt(database.url.replace(/^postgresql:/, 'postgres:'));
      await store.ping();
      await store.close();
      const client = new pg.Client(database.url);
      await client.connect();
      const { rows } = await client.query('SELECT count(*)::int AS n FROM _store_migrations');
      await client.end();
      expect(rows[0].n).toBeGreaterThan(0);
    } finally {
      await database.drop();
    }
  });
});
