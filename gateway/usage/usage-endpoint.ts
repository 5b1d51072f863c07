import express, { type Router } from 'express';
import { type GraphQLSchema, isEnumType, isInputObjectType, isInterfaceType, isObjectType } from 'graphql';
import { DomainError } from '../../kernel/errors.js';
import { graphqlRefusal } from '../../kernel/http/graphql-body.js';
import { credentialSourceOf } from '../../kernel/identity/identity.js';
import { type AccessControl, requestContext } from '../../kernel/graphql/request-context.js';
import type { Door, RequestPipeline } from '../../pipeline/pipeline.js';
import { storeFailure } from '../../subgraphs/models/store/store-error.js';
import { UsageIndex } from './usage-analysis.js';
import type { UsageCollector } from './usage-collector.js';
import { type UsageStore, windowStart } from './usage-store.js';

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

/** The admin paths' door: refusals in the GraphQL error shape of the port's others. */
const ADMIN: Door = { name: 'admin', protocol: 'rest', json: 'application/json; charset=utf-8', refuse: graphqlRefusal };

const MAX_DAYS = 366;

/**
 * The gateway port's admin paths, for CI and for people, each authenticated and authorized as
 * `admin.usage` (AUTH_POLICY_FILE may require a scope or role):
 * - `GET /admin/supergraph`: the supergraph this gateway serves, the baseline of `schema:check --baseline-url`;
 * - `GET /admin/usage?days=30`: the aggregated usage of the window (every worker and replica that
 *   writes to this database), the export `schema:check --usage-url` reads;
 * - `GET /admin/usage/fields?days=30`: per schema coordinate, its requests, last use and clients, and
 *   the `@deprecated` fields nobody used in the window (removable).
 * This process's own counts are written first; other processes' are at most one flush interval old.
 */
export function usageEndpoint(options: UsageEndpointOptions): Router {
  const router = express.Router();
  const admin =
    (handler: (req: express.Request) => Promise<{ type: string; body: unknown }>): express.RequestHandler =>
    (req, res) =>
      void options.pipeline.run(ADMIN, req, res, async (exchange) => {
        exchange.route = req.route?.path ?? null;
        await requestContext(options.access, credentialSourceOf(req), exchange).authorize('admin.usage');
        try {
          const { type, body } = await handler(req);
          return { status: 200, headers: { 'content-type': `${type === 'json' ? 'application/json' : type}; charset=utf-8` }, body: type === 'json' ? JSON.stringify(body) : body };
        } catch (error) {
          if (error instanceof DomainError) throw error;
          const failed = storeFailure('usage could not be read', error);
          exchange.failures.push(failed);
          throw failed;
        }
      });
  router.get(
    '/admin/supergraph',
    admin(async () => ({ type: 'text/plain', body: options.supergraphSdl })),
  );
  router.get(
    '/admin/usage',
    admin(async (req) => ({ type: 'json', body: await readUsage(options, daysOf(req)) })),
  );
  router.get(
    '/admin/usage/fields',
    admin(async (req) => {
      const days = daysOf(req);
      const usage = await readUsage(options, days);
      const index = new UsageIndex(usage, { from: usage.from });
      const fields = index.fields();
      const used = new Set(fields.map((f) => f.coordinate));
      const removable = deprecatedCoordinates(options.schema).filter((d) => !used.has(d.coordinate));
      const at = (ms: number) => new Date(ms).toISOString();
      return {
        type: 'json',
        body: {
          from: usage.from,
          days,
          requests: index.totalRequests,
          fields: fields.map((f) => ({ coordinate: f.coordinate, requests: f.requests, last_used_at: at(f.lastSeenMs), clients: f.clients })),
          removable,
        },
      };
    }),
  );
  return router;
}

async function readUsage(options: UsageEndpointOptions, days: number) {
  if (!options.usage) throw new DomainError('NOT_FOUND', 'usage reporting is off on this gateway (USAGE_REPORTING=false)');
  await options.usage.collector.flush();
  return options.usage.store.read(windowStart(days));
}

function daysOf(req: express.Request): number {
  const raw = req.query.days;
  if (raw === undefined) return 30;
  const days = typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!(days >= 1 && days <= MAX_DAYS)) throw new DomainError('BAD_REQUEST', `days must be a whole number from 1 to ${MAX_DAYS}`, { at: 'days' });
  return days;
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
