import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'libsql';

/**
 * Brightway 2.5 project directories for tests and benchmarks, in bw2data's on-disk layout (as
 * `../shared/data/brightway-project/make-fixture.py` writes them): `<name>.<md5(name)>/` with
 * `.project-name.json`, `databases.json`, `methods.json` (`[key, metadata]` pairs, not in sorted
 * order) and `lci/databases.db` holding bw2data's `activitydataset`/`exchangedataset` tables. The
 * `data` blobs are small placeholders: nothing here reads them.
 */
export interface FixtureDatabase {
  name: string;
  activities: number;
  backend?: string;
  /** Omitted from databases.json when absent. */
  format?: string;
  /** Write the activity count as `number` in databases.json (default true). */
  recordNumber?: boolean;
}

export interface FixtureProject {
  /** Written to `.project-name.json`; null writes no such file. */
  name: string | null;
  /** Directory name; default `<name>.<md5(name)>` as bw2data names it. */
  directoryName?: string;
  databases: FixtureDatabase[];
  methods: string[][];
  /** bw2data leaves SQLite in its default rollback-journal mode; `wal` tests the other one. */
  journalMode?: 'delete' | 'wal';
}

export const SMALL_PROJECT: FixtureProject = {
  name: 'small_demo',
  databases: [
    { name: 'lci-background', activities: 12, format: 'Ecospold2' },
    { name: 'biosphere3', activities: 7, format: 'Ecospold2' },
    { name: 'foreground', activities: 3, recordNumber: false },
  ],
  methods: [
    ['IPCC 2021', 'climate change', 'GWP100'],
    ['EF v3.1', 'acidification', 'accumulated exceedance (AE)'],
    ['CML v4.8 2016', 'acidification', 'average Europe'],
    ['EF v3.1', 'climate change', 'GWP100'],
    ['IPCC 2021', 'climate change', 'GWP20'],
    ['Crustal Scarcity Indicator 2020', 'metals/minerals', 'CSP'],
    ['EF v3.1', 'water use', 'user deprivation potential'],
  ],
};

export const EMPTY_PROJECT: FixtureProject = { name: 'empty_project', databases: [], methods: [] };

export const BIG_PROJECT_ACTIVITIES = 200_000;

/** One database of 200,000 activities; with `recordNumber: false` its count must come from SQLite. */
export function bigProject(recordNumber: boolean): FixtureProject {
  return {
    name: recordNumber ? 'big_counted_by_bw2data' : 'big_counted_by_sqlite',
    databases: [
      { name: 'ecoinvent-like', activities: BIG_PROJECT_ACTIVITIES, format: 'Ecospold2', recordNumber },
      { name: 'biosphere3', activities: 50, format: 'Ecospold2', recordNumber },
    ],
    methods: Array.from({ length: 300 }, (_, i) => [`Method family ${i % 7}`, `category ${i}`, `indicator ${i % 3}`]),
  };
}

/** Writes the project under `parent` and returns its directory. */
export function writeBrightwayProject(parent: string, project: FixtureProject): string {
  const directory = path.join(parent, project.directoryName ?? bw2dataDirectoryName(project.name ?? 'unnamed'));
  mkdirSync(path.join(directory, 'lci'), { recursive: true });
  writeActivities(path.join(directory, 'lci', 'databases.db'), project.databases);
  if (project.journalMode === 'wal') switchToWal(path.join(directory, 'lci', 'databases.db'));
  writeJson(directory, 'databases.json', databasesJson(project.databases));
  writeJson(directory, 'methods.json', methodsJson(project.methods));
  if (project.name !== null) writeJson(directory, '.project-name.json', { name: project.name });
  return directory;
}

function bw2dataDirectoryName(name: string): string {
  return `${name}.${createHash('md5').update(name).digest('hex')}`;
}

function writeJson(directory: string, file: string, value: unknown): void {
  writeFileSync(path.join(directory, file), JSON.stringify(value, null, 2));
}

function databasesJson(databases: FixtureDatabase[]): Record<string, unknown> {
  return Object.fromEntries(
    databases.map((database) => [
      database.name,
      {
        backend: database.backend ?? 'sqlite',
        ...(database.format === undefined ? {} : { format: database.format }),
        depends: [],
        ...(database.recordNumber === false ? {} : { number: database.activities }),
        geocollections: ['world'],
        dirty: false,
        searchable: true,
      },
    ]),
  );
}

/** bw2data's pack format; reversed so that the on-disk order is never the sorted one. */
function methodsJson(methods: string[][]): unknown[] {
  return methods.map((key, i) => [key, { unit: 'kg', num_cfs: i + 1, abbreviation: `m.${i}` }]).reverse();
}

const SCHEMA = `
CREATE TABLE "activitydataset" ("id" INTEGER NOT NULL PRIMARY KEY, "data" BLOB NOT NULL, "code" TEXT NOT NULL,
  "database" TEXT NOT NULL, "location" TEXT, "name" TEXT, "product" TEXT, "type" TEXT);
CREATE UNIQUE INDEX "activitydataset_key" ON "activitydataset" ("database", "code");
CREATE TABLE "exchangedataset" ("id" INTEGER NOT NULL PRIMARY KEY, "data" BLOB NOT NULL, "input_code" TEXT NOT NULL,
  "input_database" TEXT NOT NULL, "output_code" TEXT NOT NULL, "output_database" TEXT NOT NULL, "type" TEXT NOT NULL);
CREATE INDEX "exchangedataset_input" ON "exchangedataset" ("input_database", "input_code");
CREATE INDEX "exchangedataset_output" ON "exchangedataset" ("output_database", "output_code");
`;

/** One activity per row and one production exchange each, in a single transaction (fast at 200k). */
function writeActivities(file: string, databases: FixtureDatabase[]): void {
  const db = new Database(file);
  try {
    db.exec(SCHEMA);
    const activity = db.prepare('INSERT INTO activitydataset (data, code, database, location, name, product, type) VALUES (?, ?, ?, ?, ?, ?, ?)');
    const exchange = db.prepare('INSERT INTO exchangedataset (data, input_code, input_database, output_code, output_database, type) VALUES (?, ?, ?, ?, ?, ?)');
    const blob = Buffer.from('placeholder');
    db.exec('BEGIN');
    for (const database of databases) {
      for (let i = 0; i < database.activities; i++) {
        const code = `${database.name}-${i}`;
        activity.run(blob, code, database.name, 'GLO', `activity ${i}`, `product ${i}`, 'process');
        exchange.run(blob, code, database.name, code, database.name, 'production');
      }
    }
    db.exec('COMMIT');
  } finally {
    db.close();
  }
}

/**
 * Switched by a connection without prepared statements, so that closing it really closes it and
 * removes `-wal`/`-shm`, as a cleanly closed WAL database is left on disk.
 */
function switchToWal(file: string): void {
  const db = new Database(file);
  db.exec('PRAGMA journal_mode = wal');
  db.close();
}

/** Every way a project can be unusable that `/capabilities` must answer with 503. */
export type ProjectFault =
  | 'missing-databases-json'
  | 'malformed-databases-json'
  | 'databases-json-not-an-object'
  | 'database-entry-not-an-object'
  | 'database-number-invalid'
  | 'missing-methods-json'
  | 'malformed-methods-json'
  | 'methods-json-not-a-list'
  | 'method-not-a-pair'
  | 'malformed-project-name'
  | 'missing-sqlite'
  | 'sqlite-not-a-database'
  | 'sqlite-without-activities-table';

export function breakProject(directory: string, fault: ProjectFault): void {
  const file = (name: string) => path.join(directory, name);
  const databases = () => JSON.parse(readFileSync(file('databases.json'), 'utf8')) as Record<string, Record<string, unknown>>;
  const faults: Record<ProjectFault, () => void> = {
    'missing-databases-json': () => rmSync(file('databases.json')),
    'malformed-databases-json': () => writeFileSync(file('databases.json'), '{"biosphere3": {'),
    'databases-json-not-an-object': () => writeFileSync(file('databases.json'), '["biosphere3"]'),
    'database-entry-not-an-object': () => writeFileSync(file('databases.json'), '{"biosphere3": "sqlite"}'),
    'database-number-invalid': () => {
      const catalogue = databases();
      for (const metadata of Object.values(catalogue)) metadata.number = '24';
      writeFileSync(file('databases.json'), JSON.stringify(catalogue));
    },
    'missing-methods-json': () => rmSync(file('methods.json')),
    'malformed-methods-json': () => writeFileSync(file('methods.json'), '[["EF v3.1", '),
    'methods-json-not-a-list': () => writeFileSync(file('methods.json'), '{"EF v3.1": {}}'),
    'method-not-a-pair': () => writeFileSync(file('methods.json'), '[[["EF v3.1", "climate change"], {}], ["IPCC 2021"]]'),
    'malformed-project-name': () => writeFileSync(file('.project-name.json'), '"cerise_demo"'),
    'missing-sqlite': () => rmSync(file('lci/databases.db')),
    'sqlite-not-a-database': () => writeFileSync(file('lci/databases.db'), 'this is not an SQLite file '.repeat(10)),
    'sqlite-without-activities-table': () => {
      rmSync(file('lci/databases.db'));
      const db = new Database(file('lci/databases.db'));
      db.exec('CREATE TABLE unrelated (id INTEGER PRIMARY KEY)');
      db.close();
    },
  };
  faults[fault]();
}

/**
 * Every entry under `directory` with its size, mode, modification time and content hash: equal
 * snapshots mean nothing was written, created, removed or touched.
 */
export function snapshotDirectory(directory: string): Record<string, string> {
  const snapshot: Record<string, string> = {};
  const visit = (relative: string) => {
    for (const entry of readdirSync(path.join(directory, relative), { withFileTypes: true })) {
      const child = path.join(relative, entry.name);
      const info = statSync(path.join(directory, child));
      const content = entry.isFile()
        ? createHash('sha256')
            .update(readFileSync(path.join(directory, child)))
            .digest('hex')
        : 'dir';
      snapshot[child] = `${info.size} ${info.mode} ${info.mtimeMs} ${content}`;
      if (entry.isDirectory()) visit(child);
    }
  };
  visit('');
  return snapshot;
}
