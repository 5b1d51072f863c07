import type { Database } from '../../database/database.js';

/** One subgraph of a supergraph version, as published: where gateways reach it and its SDL. */
export interface PublishedSubgraph {
  name: string;
  /** The routing URL gateways send its fetches to (null: the gateway's own SUBGRAPH_URLS entry, or in-process). */
  url: string | null;
  sdl: string;
}

/** A supergraph the registry composed (table `supergraph_versions`, migration `*_supergraph_versions`). */
export interface SupergraphVersion {
  id: number;
  supergraphSdl: string;
  /** 16 hex digits of the SHA-256 of the SDL (committed-supergraph.ts `supergraphVersion`). */
  supergraphHash: string;
  subgraphs: PublishedSubgraph[];
  /** The subgraph the publish changed; null for a rollback. */
  subgraph: string | null;
  /** The API schema's changes against the previous version, as schema:check reports them. */
  changelog: unknown[];
  author: string;
  commit: string | null;
  forcedReason: string | null;
  rollbackOf: number | null;
  createdAt: Date;
}

export type NewSupergraphVersion = Omit<SupergraphVersion, 'id' | 'createdAt'>;

/** A version without its SDLs, as a list shows it. */
export type SupergraphVersionSummary = Omit<SupergraphVersion, 'supergraphSdl' | 'subgraphs'> & { subgraphNames: string[] };

const SUMMARY_COLUMNS = 'id, supergraph_hash, subgraph, changelog, author, "commit", forced_reason, rollback_of, created_ms, subgraphs';
const ALL_COLUMNS = `${SUMMARY_COLUMNS}, supergraph_sdl`;

/**
 * The registry's versions on the records database (PostgreSQL or SQLite). Appending takes the
 * writers' turn (an advisory lock on PostgreSQL, the write lock on SQLite), so two publishes at once
 * are numbered one after the other and each composes against the one before.
 */
export class SupergraphVersions {
  constructor(private readonly database: Database) {}

  /** The newest version's id and hash only: what a following gateway polls. */
  async newestId(): Promise<{ id: number; supergraphHash: string } | undefined> {
    const [row] = await this.database.query(`SELECT id, supergraph_hash FROM supergraph_versions ORDER BY id DESC LIMIT 1`);
    return row ? { id: Number(row.id), supergraphHash: String(row.supergraph_hash) } : undefined;
  }

  async newest(): Promise<SupergraphVersion | undefined> {
    const [row] = await this.database.query(`SELECT ${ALL_COLUMNS} FROM supergraph_versions ORDER BY id DESC LIMIT 1`);
    return row ? fullVersion(row) : undefined;
  }

  async get(id: number): Promise<SupergraphVersion | undefined> {
    const [row] = await this.database.query(`SELECT ${ALL_COLUMNS} FROM supergraph_versions WHERE id = ${this.database.sql.placeholder(1)}`, [id]);
    return row ? fullVersion(row) : undefined;
  }

  /** Up to `first` versions, newest first, older than `before` when given (a cursor: the last id of the page before). */
  async list(first: number, before?: number): Promise<SupergraphVersionSummary[]> {
    const where = before === undefined ? '' : `WHERE id < ${this.database.sql.placeholder(2)}`;
    const rows = await this.database.query(
      `SELECT ${SUMMARY_COLUMNS} FROM supergraph_versions ${where} ORDER BY id DESC LIMIT ${this.database.sql.placeholder(1)}`,
      before === undefined ? [first] : [first, before],
    );
    return rows.map(summary);
  }

  /**
   * Appends a version made by `make` from the newest one, in one write transaction taking the
   * publishers' turn: `make` sees the version it builds on, and may refuse (throw) without writing.
   */
  append(make: (previous: SupergraphVersion | undefined) => Promise<NewSupergraphVersion>): Promise<SupergraphVersion> {
    return this.database.transaction(
      async (session) => {
        const [row] = await session.query(`SELECT ${ALL_COLUMNS} FROM supergraph_versions ORDER BY id DESC LIMIT 1`);
        const version = await make(row ? fullVersion(row) : undefined);
        const createdMs = Date.now();
        const p = (n: number) => this.database.sql.placeholder(n);
        const [inserted] = await session.query(
          `INSERT INTO supergraph_versions (supergraph_sdl, supergraph_hash, subgraphs, subgraph, changelog, author, "commit", forced_reason, rollback_of, created_ms)
           VALUES (${p(1)}, ${p(2)}, ${p(3)}, ${p(4)}, ${p(5)}, ${p(6)}, ${p(7)}, ${p(8)}, ${p(9)}, ${p(10)}) RETURNING id`,
          [
            version.supergraphSdl,
            version.supergraphHash,
            JSON.stringify(version.subgraphs),
            version.subgraph,
            JSON.stringify(version.changelog),
            version.author,
            version.commit,
            version.forcedReason,
            version.rollbackOf,
            createdMs,
          ],
        );
        return { ...version, id: Number(inserted!.id), createdAt: new Date(createdMs) };
      },
      { turnsBy: PUBLISHERS_TAKE_TURNS },
    );
  }
}

/** The advisory lock publishers take turns by on PostgreSQL (the migrator's is …793, usage's …794). */
const PUBLISHERS_TAKE_TURNS = '7205759403792795';

function summary(row: Record<string, unknown>): SupergraphVersionSummary {
  return {
    id: Number(row.id),
    supergraphHash: String(row.supergraph_hash),
    subgraph: (row.subgraph as string | null) ?? null,
    changelog: JSON.parse(String(row.changelog)) as unknown[],
    author: String(row.author),
    commit: (row.commit as string | null) ?? null,
    forcedReason: (row.forced_reason as string | null) ?? null,
    rollbackOf: row.rollback_of === null || row.rollback_of === undefined ? null : Number(row.rollback_of),
    createdAt: new Date(Number(row.created_ms)),
    subgraphNames: (JSON.parse(String(row.subgraphs)) as PublishedSubgraph[]).map((s) => s.name),
  };
}

function fullVersion(row: Record<string, unknown>): SupergraphVersion {
  const { subgraphNames: _names, ...rest } = summary(row);
  return { ...rest, supergraphSdl: String(row.supergraph_sdl), subgraphs: JSON.parse(String(row.subgraphs)) as PublishedSubgraph[] };
}
