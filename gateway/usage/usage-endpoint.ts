import express, { type Router } from 'express';
import { type GraphQLSchema, isEnumType, isInputObjectType, isInterfaceType, isObjectType } from 'graphql';
import { DomainError } from '../../kernel/errors.js';
import { credentialSourceOf } from '../../kernel/identity/identity.js';
import { type AccessControl, recordFailure, requestContext } from '../../kernel/graphql/request-context.js';
import type { Exchange, RequestPipeline } from '../../pipeline/pipeline.js';
import { ADMIN_DOOR } from '../../pipeline/graphql-door.js';
import { storeFailure } from '../../database/failure.js';
import { FieldPage } from './usage-analysis.js';
import type { UsageCollector } from './usage-collector.js';
import { type CountKey, USAGE_EXPORT_FORMAT, type UsageExport, type UsagePage, type UsageStore, windowStart } from './usage-store.js';

export interface UsageEndpointOptions {
  access: AccessControl;
  /** The API schema the gateway serves (deprecated fields) and its supergraph (a check's baseline). */
  schema: GraphQLSchema;
  supergraphSdl: string;
  /** Null when usage reporting is off (USAGE_REPORTING=false). */
  usage: { store: UsageStore; collector: UsageCollector } | null;
  /** Its door's concerns (request id, metrics, the log line of a 5xx). */
  pipeline: RequestPipeline;
}

const MAX_DAYS = 366;
/** Count rows of an export page: by default, and at most (`limit`). */
const EXPORT_ROWS = { default: 1_000, max: 10_000 };
/** Coordinates of a fields page: by default, and at most (`limit`). */
const FIELD_COORDINATES = { default: 500, max: 5_000 };
/** Count rows read at once while the fields page walks the window. */
const WALK_ROWS = 5_000;
/** A page's bytes when REQUEST_MAX_RESPONSE_BYTES is off (0): its default. */
const UNBUDGETED_PAGE_BYTES = 32 * 1024 * 1024;
/** Kept for what a page carries besides its rows (format, window, cursor, `removable`'s are counted). */
const ENVELOPE_BYTES = 4 * 1024;
/** A cursor longer than this is not one of ours. */
const MAX_CURSOR_CHARS = 8 * 1024;

/**
 * The gateway port's admin paths, for CI and for people, each authenticated and authorized as
 * `admin.usage` (the token's scope `admin.usage`; AUTH_POLICY_FILE may add a scope or role):
 * - `GET /admin/supergraph`: the supergraph this gateway serves, the baseline of `schema:check --baseline-url`;
 * - `GET /admin/usage?days=30&limit=1000&cursor=…`: a page of the aggregated usage of the window
 *   (every worker and replica that writes to this database), the export `schema:check --usage-url`
 *   reads: count rows in key order, the operations they name, and `next`, the cursor of the next
 *   page (null on the last);
 * - `GET /admin/usage/fields?days=30&limit=500&cursor=…`: per schema coordinate, in order, its
 *   requests, last use and clients, a page of coordinates at a time (`next` likewise), and the
 *   `@deprecated` coordinates nobody used in the window (`removable`, on every page).
 * A page holds at most `limit` entries and stays within the request budget's answer bytes
 * (REQUEST_MAX_RESPONSE_BYTES); a bad `days`, `limit` or `cursor` is 400 BAD_REQUEST. This process's
 * own counts are written first; other processes' are at most one flush interval old.
 */
export function usageEndpoint(options: UsageEndpointOptions): Router {
  const router = express.Router();
  const admin = adminPath(options, 'usage could not be read');
  router.get(
    '/admin/supergraph',
    admin(async () => ({ type: 'text/plain', body: options.supergraphSdl })),
  );
  router.get(
    '/admin/usage',
    admin(async (req, exchange) => {
      const from = windowStart(daysOf(req));
      const page = await (await usageOf(options)).page({ from, after: cursorOf(req, isCountKey), limit: limitOf(req, EXPORT_ROWS), maxBytes: pageBytes(exchange), bodies: true });
      const body: UsageExport = { format: USAGE_EXPORT_FORMAT, version: 1, from, exportedAt: new Date().toISOString(), operations: page.operations, counts: page.counts, next: cursorFor(page.next) };
      return { type: 'json', body };
    }),
  );
  router.get(
    '/admin/usage/fields',
    admin(async (req, exchange) => ({ type: 'json', body: await fieldsPage(options, req, exchange) })),
  );
  return router;
}

/**
 * An admin path's handler as the door `admin` runs it: authorized as `admin.usage`, its JSON
 * answer charged to the request's budget, a failure that is not the domain's a store failure
 * (`failure` its message) recorded for the server's log.
 */
export function adminPath(
  options: Pick<UsageEndpointOptions, 'access' | 'pipeline'>,
  failure: string,
): (handler: (req: express.Request, exchange: Exchange) => Promise<{ type: string; body: unknown }>) => express.RequestHandler {
  return (handler) => (req, res) =>
    void options.pipeline.run(ADMIN_DOOR, req, res, async (exchange) => {
      exchange.route = req.route?.path ?? null;
      await requestContext(options.access, credentialSourceOf(req), exchange).authorize('admin.usage');
      try {
        const { type, body } = await handler(req, exchange);
        if (type === 'json') exchange.budget.chargeAnswer(body);
        return { status: 200, headers: { 'content-type': `${type === 'json' ? 'application/json' : type}; charset=utf-8` }, body: type === 'json' ? JSON.stringify(body) : body };
      } catch (error) {
        if (error instanceof DomainError) throw error;
        const failed = storeFailure(failure, error);
        recordFailure(exchange, failed);
        throw failed;
      }
    });
}

/**
 * A page of the fields view: the window's counts walked a chunk at a time (within the request's
 * deadline), tallied for the page's coordinates only, then cut to the answer's bytes.
 */
async function fieldsPage(options: UsageEndpointOptions, req: express.Request, exchange: Exchange) {
  const days = daysOf(req);
  const from = windowStart(days);
  const page = new FieldPage(
    cursorOf(req, (value): value is string => typeof value === 'string'),
    limitOf(req, FIELD_COORDINATES),
  );
  const store = await usageOf(options);
  let after: CountKey | null = null;
  do {
    exchange.budget.checkDeadline();
    const chunk: UsagePage = await exchange.budget.within(store.page({ from, after, limit: WALK_ROWS, maxBytes: Infinity, bodies: false }));
    page.add(new Map(chunk.operations.map((o) => [o.hash, o.coordinates])), chunk.counts);
    after = chunk.next;
  } while (after);
  const removable = deprecatedCoordinates(options.schema).filter((d) => !page.touched.has(d.coordinate));
  const at = (ms: number) => new Date(ms).toISOString();
  const fields = page.fields().map((f) => ({ coordinate: f.coordinate, requests: f.requests, last_used_at: at(f.lastSeenMs), clients: f.clients }));
  const kept = fields.slice(0, entriesWithin(fields, pageBytes(exchange) - Buffer.byteLength(JSON.stringify(removable))));
  const more = kept.length < fields.length || page.more;
  return { from, days, requests: page.totalRequests, fields: kept, removable, next: more ? cursorFor(kept[kept.length - 1]?.coordinate ?? null) : null };
}

/** This gateway's usage store, once this process's counts are written. */
async function usageOf(options: UsageEndpointOptions): Promise<UsageStore> {
  if (!options.usage) throw new DomainError('NOT_FOUND', 'usage reporting is off on this gateway (USAGE_REPORTING=false)');
  await options.usage.collector.flush();
  return options.usage.store;
}

/** The bytes a page may take: what the request's budget lets an answer take, less its envelope. */
export function pageBytes(exchange: Exchange): number {
  return Math.min(exchange.budget.payloadBytesLeft(), UNBUDGETED_PAGE_BYTES) - ENVELOPE_BYTES;
}

/** How many of the entries, in order, fit in `maxBytes` of JSON (at least one). */
export function entriesWithin(entries: readonly unknown[], maxBytes: number): number {
  let bytes = 0;
  for (let i = 0; i < entries.length; i++) {
    bytes += Buffer.byteLength(JSON.stringify(entries[i])) + 1;
    if (i > 0 && bytes > maxBytes) return i;
  }
  return entries.length;
}

function daysOf(req: express.Request): number {
  const raw = req.query.days;
  if (raw === undefined) return 30;
  const days = typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!(days >= 1 && days <= MAX_DAYS)) throw new DomainError('BAD_REQUEST', `days must be a whole number from 1 to ${MAX_DAYS}`, { at: 'days' });
  return days;
}

export function limitOf(req: express.Request, bounds: { default: number; max: number }): number {
  const raw = req.query.limit;
  if (raw === undefined) return bounds.default;
  const limit = typeof raw === 'string' && /^\d{1,9}$/.test(raw) ? Number(raw) : NaN;
  if (!(limit >= 1 && limit <= bounds.max)) throw new DomainError('BAD_REQUEST', `limit must be a whole number from 1 to ${bounds.max}`, { at: 'limit' });
  return limit;
}

/** A page's position: base64url of its JSON, opaque to clients. */
export function cursorFor(position: unknown): string | null {
  return position === null ? null : Buffer.from(JSON.stringify(position)).toString('base64url');
}

export function cursorOf<T>(req: express.Request, is: (value: unknown) => value is T): T | null {
  const raw = req.query.cursor;
  if (raw === undefined) return null;
  let value: unknown;
  try {
    if (typeof raw !== 'string' || raw.length > MAX_CURSOR_CHARS || !/^[A-Za-z0-9_-]+$/.test(raw)) throw new Error();
    value = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    value = undefined;
  }
  if (!is(value)) throw new DomainError('BAD_REQUEST', 'cursor is not one this path gave (take `next` of the page before)', { at: 'cursor' });
  return value;
}

function isCountKey(value: unknown): value is CountKey {
  const key = value as Partial<Record<keyof CountKey, unknown>> | null;
  return typeof key === 'object' && key !== null && (['hash', 'client', 'clientVersion', 'day', 'inputs'] as const).every((name) => typeof key[name] === 'string');
}

/** Every `@deprecated` field, argument, input field and enum value of the API schema, with its reason. */
export function deprecatedCoordinates(schema: GraphQLSchema): Array<{ coordinate: string; reason: string }> {
  const found: Array<{ coordinate: string; reason: string }> = [];
  const add = (coordinate: string, reason: string | null | undefined) => {
    if (reason != null) found.push({ coordinate, reason });
  };
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith('__')) continue;
    if (isObjectType(type) || isInterfaceType(type)) {
      for (const field of Object.values(type.getFields())) {
        add(`${type.name}.${field.name}`, field.deprecationReason);
        for (const arg of field.args) add(`${type.name}.${field.name}.${arg.name}`, arg.deprecationReason);
      }
    } else if (isInputObjectType(type)) {
      for (const field of Object.values(type.getFields())) add(`${type.name}.${field.name}`, field.deprecationReason);
    } else if (isEnumType(type)) {
      for (const value of type.getValues()) add(`${type.name}.${value.name}`, value.deprecationReason);
    }
  }
  return found.sort((a, b) => a.coordinate.localeCompare(b.coordinate));
}
