import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'libsql';
import { DomainError } from '../../../kernel/errors.js';
import { BrightwayProjectReader } from '../../../subgraphs/impact/adapters/brightway-project.js';
import { ImpactService } from '../../../subgraphs/impact/domain/impact-service.js';
import type { Capabilities } from '../../../subgraphs/impact/domain/impact-service.js';
import { breakProject, EMPTY_PROJECT, SMALL_PROJECT, snapshotDirectory, writeBrightwayProject } from '../../support/brightway-fixture.js';
import type { ProjectFault } from '../../support/brightway-fixture.js';
import { describeWithSharedData, sharedPath } from '../../support/shared-data.js';

const SHARED_PROJECT = 'brightway-project/cerise_demo.ec29467c11cfe4e4dbe360e587a9a5fd';

function serviceFor(directory: string): ImpactService {
  return new ImpactService({ backgroundProjectDir: directory, coreBaseUrl: 'http://127.0.0.1:8080' }, new BrightwayProjectReader(directory));
}

async function unavailable(directory: string): Promise<DomainError> {
  const error = await serviceFor(directory)
    .capabilities()
    .then(
      () => null,
      (thrown: unknown) => thrown,
    );
  expect(error).toBeInstanceOf(DomainError);
  expect((error as DomainError).code).toBe('BACKGROUND_PROJECT_UNAVAILABLE');
  return error as DomainError;
}

let workspace: string;
beforeEach(() => {
  workspace = mkdtempSync(path.join(os.tmpdir(), 'impact-capabilities-'));
});
afterEach(() => rmSync(workspace, { recursive: true, force: true }));

describeWithSharedData(SHARED_PROJECT)('capabilities of the shared cerise_demo project', () => {
  const directory = sharedPath(SHARED_PROJECT);

  test('are exactly those the data README lists', async () => {
    const capabilities = await serviceFor(directory).capabilities();
    expect(capabilities).toEqual({
      calculation_status: 'not_available',
      background: {
        project_name: 'cerise_demo',
        databases: [
          { name: 'biosphere3', backend: 'sqlite', format: 'Ecospold2', activity_count: 24 },
          { name: 'foreground', backend: 'sqlite', format: null, activity_count: 3 },
          { name: 'lci-background', backend: 'sqlite', format: 'Ecospold2', activity_count: 60 },
        ],
        method_count: 8,
        method_examples: [
          ['CML v4.8 2016', 'acidification', 'acidification (incl. fate, average Europe total, A&B)'],
          ['Crustal Scarcity Indicator 2020', 'material resources: metals/minerals', 'crustal scarcity potential (CSP)'],
          ['EF v3.1', 'acidification', 'accumulated exceedance (AE)'],
          ['EF v3.1', 'climate change', 'global warming potential (GWP100)'],
          ['EF v3.1', 'water use', 'user deprivation potential (deprivation-weighted water consumption)'],
        ],
      },
      engine: { data_library_version: expect.stringMatching(/^3\.\d+\.\d+$/), calc_library_version: 'not_available' },
    } satisfies Capabilities);
  });

  test('leave the project directory byte for byte unchanged', async () => {
    const before = snapshotDirectory(directory);
    await serviceFor(directory).capabilities();
    await serviceFor(directory).capabilities();
    expect(snapshotDirectory(directory)).toEqual(before);
  });
});

describe('capabilities of generated projects', () => {
  test('count in SQLite only the databases without a number, and sort databases and methods', async () => {
    const directory = writeBrightwayProject(workspace, SMALL_PROJECT);
    const { background } = await serviceFor(directory).capabilities();
    expect(background).toEqual({
      project_name: 'small_demo',
      databases: [
        { name: 'biosphere3', backend: 'sqlite', format: 'Ecospold2', activity_count: 7 },
        { name: 'foreground', backend: 'sqlite', format: null, activity_count: 3 },
        { name: 'lci-background', backend: 'sqlite', format: 'Ecospold2', activity_count: 12 },
      ],
      method_count: 7,
      method_examples: [
        ['CML v4.8 2016', 'acidification', 'average Europe'],
        ['Crustal Scarcity Indicator 2020', 'metals/minerals', 'CSP'],
        ['EF v3.1', 'acidification', 'accumulated exceedance (AE)'],
        ['EF v3.1', 'climate change', 'GWP100'],
        ['EF v3.1', 'water use', 'user deprivation potential'],
      ],
    });
  });

  test('an empty project has no databases and no methods', async () => {
    const directory = writeBrightwayProject(workspace, EMPTY_PROJECT);
    expect((await serviceFor(directory).capabilities()).background).toEqual({
      project_name: 'empty_project',
      databases: [],
      method_count: 0,
      method_examples: [],
    });
  });

  test('without .project-name.json the directory names the project', async () => {
    const directory = writeBrightwayProject(workspace, { ...SMALL_PROJECT, name: null, directoryName: 'plain-dir' });
    expect((await serviceFor(directory).capabilities()).background.project_name).toBe('plain-dir');
  });

  test('a database without backend is sqlite, as bw2data reads it', async () => {
    const directory = writeBrightwayProject(workspace, SMALL_PROJECT);
    writeFileSync(path.join(directory, 'databases.json'), JSON.stringify({ solo: { number: 2 } }));
    expect((await serviceFor(directory).capabilities()).background.databases).toEqual([{ name: 'solo', backend: 'sqlite', format: null, activity_count: 2 }]);
  });

  test('methods sort as Python sorts lists of strings: by code point, a prefix first', async () => {
    const directory = writeBrightwayProject(workspace, {
      ...EMPTY_PROJECT,
      methods: [['b'], ['a', 'z'], ['a'], ['\u{1F600}'], ['\uFF21'], ['a', 'b'], ['a', 'b']],
    });
    const { background } = await serviceFor(directory).capabilities();
    expect(background.method_count).toBe(6); // bw2data keeps one entry per key
    expect(background.method_examples).toEqual([['a'], ['a', 'b'], ['a', 'z'], ['b'], ['\uFF21']]);
  });

  test('a complete databases.json costs no SQL: an unreadable SQLite file goes unnoticed', async () => {
    const directory = writeBrightwayProject(workspace, SMALL_PROJECT);
    const catalogue = { biosphere3: { backend: 'sqlite', number: 7 }, foreground: { backend: 'sqlite', number: 3 } };
    writeFileSync(path.join(directory, 'databases.json'), JSON.stringify(catalogue));
    breakProject(directory, 'sqlite-not-a-database');
    expect((await serviceFor(directory).capabilities()).background.databases.map((db) => db.activity_count)).toEqual([7, 3]);
  });

  test('a directory name with URI-special characters still opens read-only', async () => {
    const directory = writeBrightwayProject(workspace, { ...SMALL_PROJECT, directoryName: 'odd #1 ?x=%20 dir' });
    const before = snapshotDirectory(directory);
    expect((await serviceFor(directory).capabilities()).background.databases[1]?.activity_count).toBe(3);
    expect(snapshotDirectory(directory)).toEqual(before);
  });

  test('the project is read afresh on every call', async () => {
    const directory = writeBrightwayProject(workspace, SMALL_PROJECT);
    const service = serviceFor(directory);
    await service.capabilities();
    writeFileSync(path.join(directory, '.project-name.json'), JSON.stringify({ name: 'renamed' }));
    expect((await service.capabilities()).background.project_name).toBe('renamed');
  });
});

describe('capabilities leave the project untouched', () => {
  test.each(['delete', 'wal'] as const)('%s journal mode: no byte changes, no new files', async (journalMode) => {
    const directory = writeBrightwayProject(workspace, { ...SMALL_PROJECT, journalMode });
    expect(readFileSync(path.join(directory, 'lci', 'databases.db'))[18]).toBe(journalMode === 'wal' ? 2 : 1);
    const before = snapshotDirectory(directory);
    for (let i = 0; i < 3; i++) await serviceFor(directory).capabilities();
    expect(snapshotDirectory(directory)).toEqual(before);
    expect(readdirSync(path.join(directory, 'lci'))).toEqual(['databases.db']);
  });

  test('a live WAL writer: its commits are read through its -wal/-shm; no file is added or written but -shm', async () => {
    const directory = writeBrightwayProject(workspace, { ...SMALL_PROJECT, journalMode: 'wal' });
    const writer = new Database(path.join(directory, 'lci', 'databases.db'));
    // -shm is the writer's shared-memory index, where every WAL reader records its read mark.
    const withoutShm = () => Object.entries(snapshotDirectory(directory)).filter(([file]) => !file.endsWith('-shm'));
    try {
      writer.exec("INSERT INTO activitydataset (data, code, database) VALUES (x'00', 'new', 'foreground')");
      expect(readdirSync(path.join(directory, 'lci')).sort()).toEqual(['databases.db', 'databases.db-shm', 'databases.db-wal']);
      const before = withoutShm();
      expect((await serviceFor(directory).capabilities()).background.databases[1]?.activity_count).toBe(4);
      expect(withoutShm()).toEqual(before);
      expect(readdirSync(path.join(directory, 'lci')).sort()).toEqual(['databases.db', 'databases.db-shm', 'databases.db-wal']);
    } finally {
      writer.close();
    }
  });

  test('a writer holding the write lock does not stop a read, and no lock outlives the call', async () => {
    const directory = writeBrightwayProject(workspace, SMALL_PROJECT);
    const writer = new Database(path.join(directory, 'lci', 'databases.db'));
    try {
      writer.exec("BEGIN IMMEDIATE; INSERT INTO activitydataset (data, code, database) VALUES (x'00', 'new', 'foreground')");
      expect((await serviceFor(directory).capabilities()).background.databases[1]?.activity_count).toBe(3);
      writer.exec('COMMIT');
      expect((await serviceFor(directory).capabilities()).background.databases[1]?.activity_count).toBe(4);
      // An exclusive lock is only granted when no reader holds a shared one.
      writer.exec('BEGIN EXCLUSIVE; COMMIT');
    } finally {
      writer.close();
    }
  });
});

describe('capabilities answer BACKGROUND_PROJECT_UNAVAILABLE', () => {
  test('when the directory does not exist', async () => {
    const missing = path.join(workspace, 'no-such-project');
    expect((await unavailable(missing)).message).toBe(`background project unavailable: directory ${missing} does not exist or cannot be read`);
  });

  test('when the configured path is a file', async () => {
    const file = path.join(workspace, 'file');
    writeFileSync(file, '{}');
    expect((await unavailable(file)).message).toMatch(/is not a directory/);
  });

  const FAULTS: Array<[ProjectFault, RegExp]> = [
    ['missing-databases-json', /databases\.json is missing$/],
    ['malformed-databases-json', /databases\.json is not valid JSON$/],
    ['databases-json-not-an-object', /databases\.json is not a JSON object$/],
    ['database-entry-not-an-object', /databases\.json: database "biosphere3" is not an object$/],
    ['database-number-invalid', /databases\.json: database "[^"]+" has a "number" that is not a non-negative integer$/],
    ['missing-methods-json', /methods\.json is missing$/],
    ['malformed-methods-json', /methods\.json is not valid JSON$/],
    ['methods-json-not-a-list', /methods\.json is not a JSON array$/],
    ['method-not-a-pair', /methods\.json: item 1 is not a \[key, metadata\] pair/],
    ['malformed-project-name', /\.project-name\.json has no string "name"$/],
    ['missing-sqlite', /lci\/databases\.db is missing$/],
    ['sqlite-not-a-database', /lci\/databases\.db is not an SQLite database$/],
    ['sqlite-without-activities-table', /lci\/databases\.db cannot be read \(SQLITE_ERROR\)$/],
  ];

  test.each(FAULTS)('%s (a count is needed for the SQLite faults)', async (fault, message) => {
    const directory = writeBrightwayProject(workspace, SMALL_PROJECT);
    breakProject(directory, fault);
    const before = snapshotDirectory(directory);
    const error = await unavailable(directory);
    expect(error.message).toMatch(message);
    expect(error.message).not.toContain(os.tmpdir());
    expect(snapshotDirectory(directory)).toEqual(before);
  });

  test('when a writer is committing for longer than the busy timeout', async () => {
    const directory = writeBrightwayProject(workspace, SMALL_PROJECT);
    const writer = new Database(path.join(directory, 'lci', 'databases.db'));
    try {
      writer.exec('BEGIN EXCLUSIVE');
      expect((await unavailable(directory)).message).toMatch(/lci\/databases\.db cannot be read \(SQLITE_BUSY\)$/);
    } finally {
      writer.exec('ROLLBACK');
      writer.close();
    }
  });
});
