import express, { type Router } from 'express';
import { DomainError } from '../../kernel/errors.js';
import type { AccessControl } from '../../kernel/graphql/request-context.js';
import type { RequestPipeline } from '../../pipeline/pipeline.js';
import { adminPath, cursorFor, cursorOf, entriesWithin, limitOf, pageBytes } from '../usage/usage-endpoint.js';
import type { SupergraphVersion, SupergraphVersionSummary, SupergraphVersions } from './supergraph-versions.js';

export interface VersionsEndpointOptions {
  access: AccessControl;
  pipeline: RequestPipeline;
  /** The registry, opened at the first request; null where this process has no records database. */
  versions: (() => Promise<SupergraphVersions>) | null;
}

/** Versions of a page: by default, and at most (`limit`). */
const VERSIONS_PAGE = { default: 20, max: 100 };
/** Version ids are PostgreSQL integers: nine digits stay well within them. */
const VERSION_ID = /^[1-9]\d{0,8}$/;

/**
 * The schema registry's versions on the gateway port, behind the same door, authorization
 * (`admin.usage`) and envelopes as the usage paths (usage-endpoint.ts):
 * - `GET /admin/supergraph/versions?limit=20&cursor=…`: newest first, each without its SDLs
 *   (its changelog, who, when, the commit, a forced publish's reason, the version a rollback
 *   re-published, its subgraphs' names), and `next`, the cursor of the next page (null on the last);
 *   a page holds at most `limit` versions and stays within the request budget's answer bytes;
 * - `GET /admin/supergraph/versions/{id}`: one version with its supergraph and subgraphs' SDLs and
 *   routing URLs; 404 NOT_FOUND when there is none.
 * A malformed id, limit or cursor is 400 BAD_REQUEST.
 */
export function versionsEndpoint(options: VersionsEndpointOptions): Router {
  const router = express.Router();
  const admin = adminPath(options, 'the schema registry could not be read');
  router.get(
    '/admin/supergraph/versions',
    admin(async (req, exchange) => {
      const limit = limitOf(req, VERSIONS_PAGE);
      const before = cursorOf(req, (value): value is number => typeof value === 'number' && VERSION_ID.test(String(value)));
      const rows = await exchange.budget.within((await registryOf(options)).list(limit + 1, before ?? undefined));
      const page = rows.slice(0, limit).map(summaryJson);
      const kept = page.slice(0, entriesWithin(page, pageBytes(exchange)));
      return { type: 'json', body: { versions: kept, next: kept.length < rows.length ? cursorFor(kept.at(-1)!.id) : null } };
    }),
  );
  router.get(
    '/admin/supergraph/versions/:id',
    admin(async (req, exchange) => {
      const id = String(req.params.id);
      if (!VERSION_ID.test(id)) throw new DomainError('BAD_REQUEST', 'id must be a version id, a whole number from 1 to 999999999', { at: 'id' });
      const version = await exchange.budget.within((await registryOf(options)).get(Number(id)));
      if (!version) throw new DomainError('NOT_FOUND', `the registry has no version ${id}`);
      return { type: 'json', body: versionJson(version) };
    }),
  );
  return router;
}

async function registryOf(options: VersionsEndpointOptions): Promise<SupergraphVersions> {
  if (!options.versions) throw new DomainError('NOT_FOUND', 'the schema registry is not read on this gateway: it has no records database (a gateway with USAGE_REPORTING=false)');
  return options.versions();
}

function summaryJson(version: SupergraphVersionSummary) {
  return {
    id: version.id,
    hash: version.supergraphHash,
    subgraph: version.subgraph,
    subgraphNames: version.subgraphNames,
    author: version.author,
    commit: version.commit,
    createdAt: version.createdAt.toISOString(),
    forcedReason: version.forcedReason,
    rollbackOf: version.rollbackOf,
    changelog: version.changelog,
  };
}

function versionJson({ supergraphSdl, subgraphs, ...version }: SupergraphVersion) {
  return { ...summaryJson({ ...version, subgraphNames: subgraphs.map((s) => s.name) }), supergraphSdl, subgraphs };
}
