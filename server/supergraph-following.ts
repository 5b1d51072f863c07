import type { RequestListener } from 'node:http';
import type { Logger } from 'pino';
import { withoutUrlCredentials } from '../kernel/display-url.js';
import type { ServiceMetrics } from '../kernel/metrics.js';
import type { MessageClasses } from '../kernel/http/express-messages.js';
import type { RequestPipeline } from '../pipeline/pipeline.js';
import { openDatabase } from '../database/database.js';
import { supergraphVersion } from '../gateway/committed-supergraph.js';
import { RemoteClient } from '../gateway/executor/remote-client.js';
import type { SubgraphClient } from '../gateway/executor/subgraph-client.js';
import { SupergraphFollower } from '../gateway/schema-registry/supergraph-follower.js';
import { type PublishedSubgraph, type SupergraphVersion, SupergraphVersions } from '../gateway/schema-registry/supergraph-versions.js';
import { SUBGRAPH_NAMES, type SubgraphName } from '../subgraphs/names.js';
import type { SupergraphSourceConfig } from './config.js';
import { EdgeSwitch, type ServingEdge } from './edge-switch.js';

/** A supergraph as an edge serves it, with a client for each of its subgraphs. */
export interface ServedSupergraph {
  sdl: string;
  /** 16 hex digits of the SHA-256 of the SDL (committed-supergraph.ts `supergraphVersion`). */
  version: string;
  /** Its id in the schema registry; null: the committed supergraph. */
  registryVersion: number | null;
  subgraphs: Readonly<Record<string, SubgraphClient>>;
}

/** An edge built for a supergraph, not yet serving: its handlers, and the GraphQL port's message classes to take over. */
export interface BuiltEdge extends ServingEdge {
  adopt(messages: MessageClasses): void;
  messages(): MessageClasses;
}

export interface FollowingProcess {
  settings: Extract<SupergraphSourceConfig, { source: 'registry' }>;
  logger: Logger;
  metrics: ServiceMetrics;
  pipeline: RequestPipeline;
  /** The three subgraphs of the code as this role reaches them: in this process (`all`), or at the configured URLs (`gateway`). */
  code: Readonly<Record<SubgraphName, SubgraphClient>>;
  /** The gateway role's `*_SUBGRAPH_URL`s; null in `all`, whose code subgraphs run in this process. */
  configuredUrls: Readonly<Record<SubgraphName, string>> | null;
  committedSdl(): Promise<string>;
  /** The edge of a supergraph (gateway, `/graphql`, the facades' routes compiled against it); throws when it cannot serve it. */
  build(supergraph: ServedSupergraph): Promise<BuiltEdge>;
  /** The edge's listeners, each with its handler. */
  listen(handlerOf: (listener: string) => RequestListener, messages: MessageClasses): Promise<void>;
  closers: Array<() => Promise<void>>;
}

/**
 * The largest supergraph a version may hold: forty times the committed one (46 KB). Building one
 * takes the event loop of every worker; a larger SDL is refused before it is parsed.
 */
const MAX_SUPERGRAPH_BYTES = 2 * 1024 * 1024;

/**
 * SUPERGRAPH_SOURCE=registry: this process (each worker on its own) serves the schema registry's
 * newest version, the committed supergraph while the registry holds none or cannot be read, and
 * follows it (gateway/schema-registry/supergraph-follower.ts): each newer version gets an edge of
 * its own, built whole before any request reaches it, then switched to (server/edge-switch.ts).
 * A version that cannot be built leaves the one before in service. Resolves with the version it
 * serves at start, once its listeners listen.
 */
export async function followRegistry(proc: FollowingProcess): Promise<string> {
  const { settings, logger, metrics } = proc;
  // Its own small pool: a poll never waits behind usage's writes or the records' requests.
  const database = await openDatabase(settings.databaseUrl, { limits: { ...settings.storeLimits, poolSize: 1 } });
  proc.closers.push(() => database.close());
  const clients = new PublishedClients(proc);
  let serving: ServedSupergraph | undefined;
  const follower = new SupergraphFollower(
    new SupergraphVersions(database),
    settings.pollMs,
    {
      loaded: (version, ms) => logger.info({ registryVersion: version.id, supergraph: version.supergraphHash, ms }, 'supergraph: serving a new version of the schema registry'),
      refused: (version, cause) => {
        metrics.supergraphLoadFailed();
        logger.error(
          { registryVersion: version.id, supergraph: version.supergraphHash, reason: reasonOf(cause), serving: serving && named(serving) },
          'supergraph: a version of the schema registry cannot be loaded; the one served stays in service until a newer version is published',
        );
      },
      unreachable: (cause) =>
        logger.warn({ reason: reasonOf(cause), serving: serving && named(serving) }, 'supergraph: the schema registry cannot be read; this process serves the supergraph it has until it can'),
      reachable: () => logger.info({}, 'supergraph: the schema registry can be read again'),
    },
    () => database.migrate(),
  );

  // The supergraphs whose edge serves or finishes its requests: their clients stay open.
  const live = new Set<ServedSupergraph>();
  const loadVersion = async (version: SupergraphVersion) => {
    try {
      const supergraph = servedVersion(version, (subgraphs) => clients.for(subgraphs));
      return { supergraph, edge: await proc.build(supergraph) };
    } catch (error) {
      clients.keepOnly(live);
      throw error;
    }
  };
  const first = await startingEdge(proc, follower, loadVersion);
  serving = first.supergraph;
  live.add(serving);
  const edges = new EdgeSwitch(first.edge);
  proc.closers.push(() => edges.stop());
  const messages = first.edge.messages();
  metrics.serving(serving.version);
  await proc.listen((listener) => edges.handler(listener), messages);

  follower.start(async (version) => {
    const next = await loadVersion(version);
    next.edge.adopt(messages);
    const before = serving!;
    serving = next.supergraph;
    live.add(serving);
    metrics.serving(serving.version);
    void edges
      .switchTo(next.edge)
      .catch((error: Error) => logger.warn({ reason: reasonOf(error), retired: named(before) }, 'supergraph: the edge of the version served before could not be stopped cleanly'))
      .finally(() => {
        live.delete(before);
        clients.keepOnly(live);
      });
  });
  proc.closers.push(() => follower.stop());
  return serving.version;
}

/** The newest version, or the committed supergraph when there is none, it cannot be read, or it cannot be loaded (each said in one line). */
async function startingEdge(
  proc: FollowingProcess,
  follower: SupergraphFollower,
  loadVersion: (version: SupergraphVersion) => Promise<{ supergraph: ServedSupergraph; edge: BuiltEdge }>,
): Promise<{ supergraph: ServedSupergraph; edge: BuiltEdge }> {
  const started = performance.now();
  const newest = await follower.newest();
  if (newest) {
    try {
      const loaded = await loadVersion(newest);
      proc.logger.info({ registryVersion: newest.id, supergraph: newest.supergraphHash, ms: Math.round(performance.now() - started) }, 'supergraph: serving the newest version of the schema registry');
      return loaded;
    } catch (error) {
      proc.metrics.supergraphLoadFailed();
      proc.logger.error(
        { registryVersion: newest.id, supergraph: newest.supergraphHash, reason: reasonOf(error as Error) },
        'supergraph: the newest version of the schema registry cannot be loaded; serving the committed supergraph until a newer version is published',
      );
    }
  } else {
    proc.logger.info({}, 'supergraph: no version of the schema registry to serve (none is published, or it cannot be read); serving the committed supergraph until one is');
  }
  const sdl = await proc.committedSdl();
  const supergraph: ServedSupergraph = { sdl, version: supergraphVersion(sdl), registryVersion: null, subgraphs: proc.code };
  return { supergraph, edge: await proc.build(supergraph) };
}

/** A version as an edge would serve it: refused when its SDL is over the bound or one of its subgraphs cannot be reached (`clientsOf` throws). */
function servedVersion(version: SupergraphVersion, clientsOf: (subgraphs: readonly PublishedSubgraph[]) => Record<string, SubgraphClient>): ServedSupergraph {
  const bytes = Buffer.byteLength(version.supergraphSdl);
  if (bytes > MAX_SUPERGRAPH_BYTES) throw new Error(`its supergraph SDL takes ${bytes} bytes, over the ${MAX_SUPERGRAPH_BYTES} a version may take`);
  return { sdl: version.supergraphSdl, version: version.supergraphHash, registryVersion: version.id, subgraphs: clientsOf(version.subgraphs) };
}

/** How the log lines name the supergraph served. */
function named(supergraph: ServedSupergraph): Record<string, unknown> {
  return { registryVersion: supergraph.registryVersion, supergraph: supergraph.version };
}

/** Why, as a log line may say it: the failure's message and its cause's (a driver's), no URL credentials. */
function reasonOf(error: Error): string {
  const cause = (error as { cause?: unknown }).cause;
  const text = cause instanceof Error && cause.message && !error.message.includes(cause.message) ? `${error.message}: ${cause.message}` : error.message;
  return withoutUrlCredentials(text);
}

/**
 * The clients of the subgraphs a version names: the code's three as this role reaches them (in
 * this process in `all`; at the version's routing URL, or the configured one when it names none,
 * in `gateway`), any other at its routing URL. A client stays while an edge uses it: its
 * connections are kept alive across versions that name the same URL.
 */
class PublishedClients {
  private readonly remote = new Map<string, RemoteClient>();

  constructor(private readonly proc: FollowingProcess) {}

  for(subgraphs: readonly PublishedSubgraph[]): Record<string, SubgraphClient> {
    return Object.fromEntries(subgraphs.map((subgraph) => [subgraph.name, this.clientOf(subgraph)]));
  }

  /** Closes the connections of every client none of `live` uses. */
  keepOnly(live: ReadonlySet<ServedSupergraph>): void {
    const used = new Set([...live].flatMap((supergraph) => Object.values(supergraph.subgraphs)));
    for (const [key, client] of this.remote) {
      if (used.has(client)) continue;
      client.close();
      this.remote.delete(key);
    }
  }

  private clientOf({ name, url }: PublishedSubgraph): SubgraphClient {
    const code = isCodeSubgraph(name) ? this.proc.code[name] : undefined;
    const configured = isCodeSubgraph(name) ? this.proc.configuredUrls?.[name] : undefined;
    // `all`: the code's subgraphs run here, whatever URL the version gives them.
    if (code && (!this.proc.configuredUrls || url === null || url === configured)) return code;
    if (url === null) throw new Error(`subgraph ${name}: the version gives no routing URL, and this gateway has none configured for it`);
    if (!isHttpUrl(url)) throw new Error(`subgraph ${name}: its routing URL is not an http or https URL`);
    const key = JSON.stringify([name, url]);
    let client = this.remote.get(key);
    if (!client) this.remote.set(key, (client = new RemoteClient({ name, url }, this.proc.pipeline)));
    return client;
  }
}

function isCodeSubgraph(name: string): name is SubgraphName {
  return (SUBGRAPH_NAMES as readonly string[]).includes(name);
}

function isHttpUrl(url: string): boolean {
  try {
    return ['http:', 'https:'].includes(new URL(url).protocol);
  } catch {
    return false;
  }
}
