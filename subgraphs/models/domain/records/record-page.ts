import { DomainError } from '../../../../kernel/errors.js';
import type { StoredRecord } from './record-store.js';

/** Which page of a list: `first` after a cursor, or `last` before one (Relay's connection arguments). */
export interface PageRequest {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
}

/** A page of records in order, each with its cursor (keysOnly: no records, the first and last cursors: RecordStore.pageRecords). */
export interface RecordPage {
  records: StoredRecord[];
  cursors: string[];
  hasNextPage: boolean;
  hasPreviousPage: boolean;
}

export const PAGE_SIZE = { default: 100, max: 1000 };

/**
 * A page as the store reads it: `size` records after the `after` cursor (forwards) or before the
 * `before` cursor (backwards, still answered in order). The cursors are the store's own, opaque here.
 */
export interface StorePage {
  size: number;
  backwards: boolean;
  after: string | null;
  before: string | null;
  keysOnly: boolean;
}

/**
 * The page asked for, checked: `first` or `last`, not both, at most PAGE_SIZE.max records, whatever
 * is read of them (issue 27: a page of 5,000 asked only for its `totalCount` was let through; a REST
 * offset is skipped PAGE_SIZE.max keys at a time). `keysOnly`: only the page's cursors are read.
 */
export function readPage(request: PageRequest, keysOnly: boolean): StorePage {
  if (request.first != null && request.last != null) throw invalidPage('last', 'give first or last, not both');
  const backwards = request.last != null || (request.before != null && request.first == null);
  const size = (backwards ? request.last : request.first) ?? PAGE_SIZE.default;
  const sizedBy = backwards ? 'last' : 'first';
  if (!Number.isInteger(size) || size < 0 || size > PAGE_SIZE.max) throw invalidPage(sizedBy, `${sizedBy} must be an integer from 0 to ${PAGE_SIZE.max}`);
  return { size, backwards, after: request.after ?? null, before: request.before ?? null, keysOnly };
}

/** A refusal that names the argument the client wrote (`first`, `last`), as every other input error of the graph does. */
function invalidPage(at: 'first' | 'last', reason: string): DomainError {
  return new DomainError('BAD_REQUEST', `invalid page: ${reason}`, { at, reason });
}
