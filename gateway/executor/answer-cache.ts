import { Kind, type OperationDefinitionNode, parse } from 'graphql';
import type { RequestContext } from '../../kernel/graphql/request-context.js';
import { deepFreeze } from '../../kernel/json.js';
import { jsonBytesPast, rememberJsonBytes } from '../../kernel/request-budget.js';
import type { SubgraphRequest, SubgraphResponse } from '../../pipeline/pipeline.js';
import { type SubgraphClient, isQuery } from './subgraph-client.js';
import { RenewedMap } from '../../kernel/renewed-map.js';

/**
 * Which answers of one subgraph are the same for every caller, and for how long: those of queries
 * that select nothing but `rootFields`, whose answers depend on the operation and its variables
 * alone (no caller, no stored record), for `ttlMs`.
 */
export interface AnswerReuse {
  rootFields: ReadonlySet<string>;
  ttlMs: number;
}

interface CachedAnswer {
  answer: SubgraphResponse;
  expiresAt: number;
  bytes: number;
}

/** Variables past this size (a record's payload in a representation) are not worth a key. */
const MAX_KEY_LENGTH = 16 * 1024;
/** Decisions remembered per query text; the planner's texts follow the clients' documents, so they are bounded too. */
const MAX_DECISIONS = 1000;

/**
 * Answers of a subgraph reused while they cannot have changed, as Apollo Router's entity cache and
 * Hive Gateway's response cache do: the indicators' questionnaires are registry data, the same for
 * every passport of a model version, and building them anew for each request was half of what one
 * allocated (bench/PROFILE.md, "Why one process's throughput swings").
 *
 * An answer is kept only without errors, keyed by the query text, operation name and variables, and
 * deeply frozen: every request is handed the same objects, so whatever merges into fetched data
 * copies a frozen object before writing to it (plan-execution.ts `deepMerge`, result-shaping.ts),
 * and a write that missed it throws rather than changing another request's answer. The cache holds
 * at most `maxBytes` of answers written as JSON (with their keys), the least recently used going
 * first.
 */
export class AnswerCache implements SubgraphClient {
  /** Most recently used last: an entry a request reuses is set again (kernel/renewed-map.ts: why not a Map). */
  private readonly answers = new RenewedMap<string, CachedAnswer>();
  private readonly decisions = new Map<string, boolean>();
  private bytes = 0;

  constructor(
    private readonly client: SubgraphClient,
    private readonly reuse: AnswerReuse,
    private readonly maxBytes: number,
  ) {}

  async fetch(request: SubgraphRequest, context: RequestContext): Promise<SubgraphResponse> {
    const key = this.keyOf(request);
    if (key === null) return this.client.fetch(request, context);
    const cached = this.answers.get(key);
    if (cached && cached.expiresAt > Date.now()) {
      // Most recently used last: a Map iterates in insertion order.
      this.answers.delete(key);
      this.answers.set(key, cached);
      return cached.answer;
    }
    if (cached) this.forget(key, cached);
    const answer = await this.client.fetch(request, context);
    if (!answer.errors?.length && answer.data) this.keep(key, answer);
    return answer;
  }

  private keyOf(request: SubgraphRequest): string | null {
    if (this.reuse.ttlMs <= 0 || this.maxBytes <= 0 || !this.reusable(request)) return null;
    const key = JSON.stringify([request.query, request.operationName ?? null, request.variables]);
    return key.length <= MAX_KEY_LENGTH ? key : null;
  }

  private keep(key: string, answer: SubgraphResponse): void {
    if (jsonBytesPast(answer, this.maxBytes - key.length)) return;
    const bytes = key.length + rememberJsonBytes(deepFreeze(answer));
    const replaced = this.answers.get(key);
    if (replaced) this.forget(key, replaced);
    this.answers.set(key, { answer, expiresAt: Date.now() + this.reuse.ttlMs, bytes });
    this.bytes += bytes;
    while (this.bytes > this.maxBytes) {
      const oldest = this.answers.oldest();
      if (!oldest) break;
      this.forget(...oldest);
    }
  }

  private forget(key: string, entry: CachedAnswer): void {
    this.answers.delete(key);
    this.bytes -= entry.bytes;
  }

  /** A query whose every root selection is one of the reusable fields (or `__typename`). */
  private reusable(request: SubgraphRequest): boolean {
    if (!isQuery(request)) return false;
    let decision = this.decisions.get(request.query);
    if (decision === undefined) {
      if (this.decisions.size >= MAX_DECISIONS) this.decisions.clear();
      decision = selectsOnly(request.query, request.operationName, this.reuse.rootFields);
      this.decisions.set(request.query, decision);
    }
    return decision;
  }
}

function selectsOnly(query: string, operationName: string | null | undefined, rootFields: ReadonlySet<string>): boolean {
  let operations: OperationDefinitionNode[];
  try {
    operations = parse(query).definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  } catch {
    return false;
  }
  // The planner writes one operation per fetch; anything else is not worth the doubt.
  const [operation] = operations;
  if (operations.length !== 1 || operation!.operation !== 'query' || (operationName && operation!.name?.value !== operationName)) return false;
  return operation!.selectionSet.selections.every((s) => s.kind === Kind.FIELD && (s.name.value === '__typename' || rootFields.has(s.name.value)) && !s.directives?.length);
}
