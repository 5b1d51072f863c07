import { subgraphSdls } from '../../gateway/compose.js';
import { readCommittedSupergraph, supergraphVersion } from '../../gateway/committed-supergraph.js';
import type { NewSupergraphVersion, PublishedSubgraph, SupergraphVersion, SupergraphVersions } from '../../gateway/schema-registry/supergraph-versions.js';
import { type ClientUse, type SchemaCheckReport, checkSchema, exitCodeOf } from '../schema-check.js';
import type { SubgraphSource } from '../schema-check/change-location.js';
import { withSubgraph } from '../schema-check/given-subgraphs.js';
import { registryBase } from '../schema-check/registry-base.js';
import { CannotRun } from '../schema-check/sources.js';

/**
 * A publish to the schema registry (`npm run schema:publish`, server/schema-publish.ts being its
 * command line): a subgraph's new SDL composed with the other subgraphs' latest published ones,
 * checked as schema:check checks (composition by both composers, breaking changes weighed by what
 * clients use, the REST routes' and deployed documents validated) against the newest version, and
 * appended as the next version when it passes, or when forced. A rollback re-publishes an earlier
 * version's subgraphs the same way. docs/GRAPH.md, "The schema registry".
 */

export interface Publisher {
  /** SCHEMA_PUBLISH_AUTHOR, else the OS user. */
  author: string;
  commit: string | null;
  /** `--force REASON`: published even when a check refuses (never when composition fails), the reason kept. */
  force?: string;
}

export interface SubgraphPublish extends Publisher {
  name: string;
  /** Its SDL; absent: the code's SDL of that subgraph. */
  sdl?: string;
  /** Where `sdl` was read from, for the report's annotations. */
  sdlFile?: string;
  /** Its routing URL; absent: the previous version's for that subgraph, else null (the gateway's own). */
  url?: string;
}

export interface Rollback extends Publisher {
  /** The version whose subgraphs are published again. */
  to: number;
}

export type PublishOutcome =
  /** `previous`: the version it composed against; undefined for the first, composed with the code's other subgraphs. */
  | { outcome: 'published'; version: SupergraphVersion; report: SchemaCheckReport; previous: SupergraphVersion | undefined }
  /** The composed supergraph and routing URLs are the newest version's: nothing written. */
  | { outcome: 'unchanged'; version: SupergraphVersion }
  | { outcome: 'refused'; report: SchemaCheckReport; previous: SupergraphVersion | undefined };

/** What a publish proposes on top of the newest version. */
interface Proposal {
  subgraphs: PublishedSubgraph[];
  subgraph: string | null;
  rollbackOf: number | null;
  sources: SubgraphSource[];
}

/** Publishes one subgraph: its SDL given or the code's, with the others' latest published versions. */
export function publishSubgraph(versions: SupergraphVersions, request: SubgraphPublish, clients: ClientUse): Promise<PublishOutcome> {
  return publishVersion(versions, request, clients, async (previous) => {
    const { subgraphs } = await registryBase(previous);
    const prior = subgraphs.find((s) => s.name === request.name);
    if (!prior && (request.sdl === undefined || request.url === undefined)) {
      throw new CannotRun(`${request.name} is a new subgraph (published ones: ${subgraphs.map((s) => s.name).join(', ')}): give its SDL file (--subgraph ${request.name}=FILE) and its --url`);
    }
    const sdl = request.sdl ?? (await codeSdl(request.name));
    const published = { name: request.name, url: request.url ?? prior?.url ?? null, sdl };
    return { subgraphs: withSubgraph(subgraphs, published), subgraph: request.name, rollbackOf: null, sources: request.sdlFile ? [{ subgraph: request.name, sdlFile: request.sdlFile }] : [] };
  });
}

/** Publishes version `to`'s subgraphs again as a new version, checked against the newest like any publish. */
export async function rollbackTo(versions: SupergraphVersions, request: Rollback, clients: ClientUse): Promise<PublishOutcome> {
  const target = await versions.get(request.to);
  if (!target) throw new CannotRun(`--rollback-to ${request.to}: the registry has no version ${request.to}`);
  return publishVersion(versions, request, clients, async () => ({ subgraphs: target.subgraphs, subgraph: null, rollbackOf: target.id, sources: [] }));
}

async function codeSdl(name: string): Promise<string> {
  const code = await subgraphSdls();
  const own = code.find((s) => s.name === name);
  if (!own) throw new CannotRun(`${name} is not a subgraph of this repository's code (${code.map((s) => s.name).join(', ')}): give its SDL file (--subgraph ${name}=FILE)`);
  return own.sdl;
}

/** How often a publish checks again when another publish lands while it checks. */
const MAX_ROUNDS = 5;

/**
 * Checks the proposal against the newest version and appends it. The check (seconds of CPU) runs
 * outside the write transaction, which holds the publishers' turn only for a moment (on SQLite it
 * is every writer's lock): when another publish landed meanwhile, the append refuses and the
 * proposal is made and checked again on top of it, so that versions follow one another and each
 * is checked against the one before.
 */
async function publishVersion(
  versions: SupergraphVersions,
  publisher: Publisher,
  clients: ClientUse,
  propose: (previous: SupergraphVersion | undefined) => Promise<Proposal>,
): Promise<PublishOutcome> {
  const committedSupergraph = await readCommittedSupergraph();
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const previous = await versions.newest();
    const proposal = await propose(previous);
    const { baseline } = await registryBase(previous);
    const report = await checkSchema({
      subgraphs: proposal.subgraphs.map(({ name, sdl }) => ({ name, sdl })),
      committedSupergraph,
      baselineSupergraph: baseline.sdl,
      baselineSource: baseline.source,
      ...clients,
      compareCommitted: false,
      sources: proposal.sources,
      newDocumentErrorsOnly: true,
    });
    const { supergraphSdl } = report;
    if (previous && supergraphSdl === previous.supergraphSdl && sameRouting(previous.subgraphs, proposal.subgraphs)) return { outcome: 'unchanged', version: previous };
    const refused = exitCodeOf(report) !== 0;
    if (supergraphSdl === null || (refused && !publisher.force)) return { outcome: 'refused', report, previous };
    const version: NewSupergraphVersion = {
      supergraphSdl,
      supergraphHash: supergraphVersion(supergraphSdl),
      subgraphs: proposal.subgraphs,
      subgraph: proposal.subgraph,
      changelog: changelogOf(report),
      author: publisher.author,
      commit: publisher.commit,
      forcedReason: refused ? publisher.force! : null,
      rollbackOf: proposal.rollbackOf,
    };
    const appended = await appendAfter(versions, previous, version);
    if (appended) return { outcome: 'published', version: appended, report, previous };
  }
  throw new CannotRun(`other publishes landed ${MAX_ROUNDS} times while this one was checked; run it again`);
}

/** Another publish landed after the version a proposal was checked against. */
class Superseded extends Error {}

/** `version` appended right after `previous`; undefined when another version came in between (nothing written). */
async function appendAfter(versions: SupergraphVersions, previous: SupergraphVersion | undefined, version: NewSupergraphVersion): Promise<SupergraphVersion | undefined> {
  try {
    return await versions.append(async (newest) => {
      if (newest?.id !== previous?.id) throw new Superseded();
      return version;
    });
  } catch (error) {
    if (error instanceof Superseded) return undefined;
    throw error;
  }
}

/** The same subgraphs at the same routing URLs. */
function sameRouting(a: PublishedSubgraph[], b: PublishedSubgraph[]): boolean {
  const routes = (subgraphs: PublishedSubgraph[]) => JSON.stringify(subgraphs.map(({ name, url }) => [name, url]).sort());
  return routes(a) === routes(b);
}

/** A version's changelog: the check's API changes, each with its verdict. */
function changelogOf(report: SchemaCheckReport): NewSupergraphVersion['changelog'] {
  return report.changes.map(({ change, verdict }) => ({ type: change.type, path: change.path ?? null, message: change.message, criticality: change.criticality.level, verdict }));
}
