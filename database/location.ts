import path from 'node:path';
import { DomainError } from '../kernel/errors.js';
import { displayUrl } from '../kernel/display-url.js';

/** The two databases the records database may be (DATABASE_URL). */
export type Backend = 'sqlite' | 'postgresql';

/**
 * Where a database is, read from its URL once: the only place that looks at DATABASE_URL's form.
 * `postgresql://…` or `postgres://…` is a PostgreSQL server; `file:<path>` an embedded SQLite file,
 * its path resolved against the working directory (`file:./data/records.db`, `file:///abs.db`).
 */
export type DatabaseLocation = { kind: 'postgresql'; url: string } | { kind: 'sqlite'; url: string; file: string };

const POSTGRESQL = /^postgres(ql)?:\/\//i;

/** DATABASE_URL when unset, for the server and schema:publish alike: an SQLite file under the working directory. */
export const DEFAULT_DATABASE_URL = 'file:./data/records.db';

/** Whether `url` names a database this project can open (the configuration's check). */
export function isDatabaseUrl(url: string): boolean {
  return POSTGRESQL.test(url) || url.startsWith('file:');
}

export function databaseLocation(url: string): DatabaseLocation {
  if (POSTGRESQL.test(url)) return { kind: 'postgresql', url };
  if (!url.startsWith('file:')) throw new DomainError('STORE_ERROR', 'the records store URL must start with file:, postgresql:// or postgres://');
  const location = url
    .slice('file:'.length)
    .replace(/^\/\/(?=\/)/, '')
    .replace(/\?.*$/, '');
  if (location === '') throw new DomainError('STORE_ERROR', 'the records store URL file: names no file');
  const file = path.resolve(location);
  return { kind: 'sqlite', url: `file:${file}`, file };
}

/** The database as the start-up line names it: never a password. */
export function describeDatabase(url: string): string {
  return POSTGRESQL.test(url) ? `postgresql ${displayUrl(url)}` : `sqlite ${url.slice('file:'.length)}`;
}
