import { constants } from 'node:fs';
import { access, open, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'libsql';
import { DomainError } from '../../../kernel/errors.js';
import type { BackgroundDatabase, BackgroundProject, BackgroundProjectReader, EngineVersions } from '../domain/impact-service.js';
import { isJsonObject } from '../../../kernel/json.js';

/**
 * Reads a Brightway 2.5 project directory (bw2data's on-disk layout) on every call, strictly
 * read-only: plain reads of the JSON files, and SQLite opened read-only only when a database's
 * activity count is not in `databases.json`. Nothing is cached, so a re-provisioned project shows up
 * on the next call. Every failure is BACKGROUND_PROJECT_UNAVAILABLE naming the file at fault.
 */
export class BrightwayProjectReader implements BackgroundProjectReader {
  constructor(private readonly directory: string) {}

  async read(): Promise<BackgroundProject> {
    await requireDirectory(this.directory);
    // Sequential reads: each message names the first file at fault, whatever the timing.
    const catalogue = parseCatalogue(await readJson(this.directory, DATABASES_FILE));
    const methodKeys = parseMethodKeys(await readJson(this.directory, METHODS_FILE));
    const projectName = await readProjectName(this.directory);
    return {
      project_name: projectName,
      databases: await withActivityCounts(this.directory, catalogue),
      method_count: methodKeys.length,
      method_examples: methodKeys.sort(compareKeys).slice(0, METHOD_EXAMPLE_COUNT),
    };
  }

  /**
   * `data_library_version`: the SQLite library that reads `lci/databases.db` (linked into libsql).
   * `calc_library_version`: no calculation library is loaded, since calculation is not available.
   */
  engineVersions(): EngineVersions {
    return { data_library_version: sqliteVersion(), calc_library_version: 'not_available' };
  }
}

const DATABASES_FILE = 'databases.json';
const METHODS_FILE = 'methods.json';
const PROJECT_NAME_FILE = '.project-name.json';
const LCI_FILE = 'lci/databases.db';
const METHOD_EXAMPLE_COUNT = 5;
/** A Brightway writer holds its exclusive lock only while committing: wait that long, not forever. */
const BUSY_TIMEOUT_MS = 1000;

interface CatalogueEntry {
  name: string;
  backend: string;
  format: string | null;
  /** bw2data's `number`: the activity count it recorded, or null when it recorded none. */
  number: number | null;
}

function unavailable(message: string): DomainError {
  return new DomainError('BACKGROUND_PROJECT_UNAVAILABLE', `background project unavailable: ${message}`);
}

async function requireDirectory(directory: string): Promise<void> {
  const found = await stat(directory).catch(() => null);
  if (found === null) throw unavailable(`directory ${directory} does not exist or cannot be read`);
  if (!found.isDirectory()) throw unavailable(`${directory} is not a directory`);
}

/** The parsed file, or undefined when it does not exist (each caller decides whether that is fatal). */
async function readOptionalJson(directory: string, file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path.join(directory, file), 'utf8');
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return undefined;
    throw unavailable(`${file} cannot be read (${errorCode(error) ?? 'read error'})`);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw unavailable(`${file} is not valid JSON`);
  }
}

async function readJson(directory: string, file: string): Promise<unknown> {
  const json = await readOptionalJson(directory, file);
  if (json === undefined) throw unavailable(`${file} is missing`);
  return json;
}

/** `.project-name.json` is optional (bw2data writes it); without it the directory names the project. */
async function readProjectName(directory: string): Promise<string> {
  const json = await readOptionalJson(directory, PROJECT_NAME_FILE);
  if (json === undefined) return path.basename(directory);
  if (!isJsonObject(json) || typeof json.name !== 'string') throw unavailable(`${PROJECT_NAME_FILE} has no string "name"`);
  return json.name;
}

/** `databases.json`: `{name: {backend, format?, number?, …}}`, sorted by name as Python sorts. */
function parseCatalogue(json: unknown): CatalogueEntry[] {
  if (!isJsonObject(json)) throw unavailable(`${DATABASES_FILE} is not a JSON object`);
  return Object.entries(json)
    .map(([name, metadata]) => catalogueEntry(name, metadata))
    .sort((a, b) => compareStrings(a.name, b.name));
}

function catalogueEntry(name: string, metadata: unknown): CatalogueEntry {
  const malformed = (what: string) => unavailable(`${DATABASES_FILE}: database ${JSON.stringify(name)} ${what}`);
  if (!isJsonObject(metadata)) throw malformed('is not an object');
  // bw2data's DatabaseChooser treats a database without a backend as "sqlite".
  const { backend = 'sqlite', format = null, number = null } = metadata;
  if (typeof backend !== 'string') throw malformed('has a non-string "backend"');
  if (format !== null && typeof format !== 'string') throw malformed('has a non-string "format"');
  if (number !== null && !(Number.isSafeInteger(number) && (number as number) >= 0)) {
    throw malformed('has a "number" that is not a non-negative integer');
  }
  return { name, backend, format, number: number as number | null };
}

/** `methods.json`: `[[key, metadata], …]` with keys as arrays of strings; bw2data keeps one per key. */
function parseMethodKeys(json: unknown): string[][] {
  if (!Array.isArray(json)) throw unavailable(`${METHODS_FILE} is not a JSON array`);
  const keys = new Map<string, string[]>();
  json.forEach((pair: unknown, index) => {
    if (!Array.isArray(pair) || pair.length !== 2 || !isStringArray(pair[0])) {
      throw unavailable(`${METHODS_FILE}: item ${index} is not a [key, metadata] pair with a key of strings`);
    }
    keys.set(JSON.stringify(pair[0]), pair[0]);
  });
  return [...keys.values()];
}

/** Counts in SQLite only the databases whose `number` is absent, so a complete catalogue costs no SQL. */
async function withActivityCounts(directory: string, catalogue: CatalogueEntry[]): Promise<BackgroundDatabase[]> {
  const uncounted = catalogue.filter((entry) => entry.number === null).map((entry) => entry.name);
  const counts = uncounted.length > 0 ? await countActivities(path.join(directory, LCI_FILE), uncounted) : new Map();
  return catalogue.map(({ name, backend, format, number }) => ({
    name,
    backend,
    format,
    activity_count: number ?? (counts.get(name) as number),
  }));
}

async function countActivities(file: string, databases: string[]): Promise<Map<string, number>> {
  const uri = await readOnlyUri(file);
  let connection: Database.Database | undefined;
  try {
    connection = new Database(uri, { timeout: BUSY_TIMEOUT_MS });
    const count = connection.prepare('SELECT COUNT(*) AS n FROM activitydataset WHERE database = ?');
    return new Map(databases.map((name) => [name, Number((count.get(name) as { n: number | bigint }).n)]));
  } catch (error) {
    // libsql's open errors quote the full path; only the SQLite code goes into the message.
    throw unavailable(`${LCI_FILE} cannot be read (${sqliteCode(error)})`);
  } finally {
    connection?.close();
  }
}

const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');
const HEADER_BYTES = 100;
const WAL_FORMAT = 2;

/**
 * A URI that opens the file without writing anything, taking no write lock, creating no file.
 * `mode=ro`: a rollback-journal database (what bw2data writes) is read under a shared lock held for
 * the one COUNT query, which never blocks other readers; SQLite creates no journal for readers.
 * A WAL-mode database opened `mode=ro` would create `-wal`/`-shm` beside it unless both exist; when
 * they do not, every committed page is in the main file, so it is opened `immutable=1` (no locks, no
 * side files). When both exist, a live writer owns them and `mode=ro` reads through them.
 */
async function readOnlyUri(file: string): Promise<string> {
  const header = await readHeader(file);
  if (header.length < HEADER_BYTES || !header.subarray(0, SQLITE_MAGIC.length).equals(SQLITE_MAGIC)) {
    throw unavailable(`${LCI_FILE} is not an SQLite database`);
  }
  // pathToFileURL percent-encodes `?`, `#` and `%`, which SQLite's URI parser decodes.
  const uri = `${pathToFileURL(file).href}?mode=ro`;
  if (header[18] !== WAL_FORMAT) return uri;
  const liveWal = (await exists(`${file}-wal`)) && (await exists(`${file}-shm`));
  return liveWal ? uri : `${uri}&immutable=1`;
}

async function readHeader(file: string): Promise<Buffer> {
  let handle;
  try {
    handle = await open(file, 'r');
  } catch (error) {
    if (errorCode(error) === 'ENOENT') throw unavailable(`${LCI_FILE} is missing`);
    throw unavailable(`${LCI_FILE} cannot be read (${errorCode(error) ?? 'open error'})`);
  }
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(HEADER_BYTES), 0, HEADER_BYTES, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

async function exists(file: string): Promise<boolean> {
  return access(file, constants.F_OK).then(
    () => true,
    () => false,
  );
}

let cachedSqliteVersion: string | undefined;

/** The linked SQLite's version, asked once of an in-memory database (which touches no file). */
function sqliteVersion(): string {
  if (cachedSqliteVersion === undefined) {
    const memory = new Database(':memory:');
    try {
      cachedSqliteVersion = (memory.prepare('SELECT sqlite_version() AS v').get() as { v: string }).v;
    } finally {
      memory.close();
    }
  }
  return cachedSqliteVersion;
}

/** Python orders strings by code point; JavaScript's `<` by UTF-16 unit, which differs above U+FFFF. */
function compareStrings(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    if (a.charCodeAt(i) !== b.charCodeAt(i)) return (a.codePointAt(i) as number) - (b.codePointAt(i) as number);
  }
  return a.length - b.length;
}

/** Python's ordering of lists: element by element, a prefix first. */
function compareKeys(a: string[], b: string[]): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const order = compareStrings(a[i] as string, b[i] as string);
    if (order !== 0) return order;
  }
  return a.length - b.length;
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code !== '' ? code : undefined;
}

function sqliteCode(error: unknown): string {
  return errorCode(error) ?? 'open failed';
}
